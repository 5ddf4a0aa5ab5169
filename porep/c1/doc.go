// Package c1 reads and writes the output of PoRep commit phase 1 (a "C1"):
// the api-level SealCommitPhase1Output of rust-filecoin-proofs-api, exactly
// as serde_json writes it, and Curio's wrapper around it.
//
// # Format
//
// A C1 is one JSON object with, in this order, "registered_proof" (the api
// variant name, e.g. "StackedDrg2KiBV1_1"), "vanilla_proofs" (an externally
// tagged enum whose only key is one of the five StackedDrg{size}V1 names,
// holding the proofs partition-major), "comm_r", "comm_d", "replica_id",
// "seed" and "ticket" (each a JSON array of 32 integers). Every field element
// ("domain") is 32 little-endian bytes written as such an array. [Proof] is
// the vanilla proof of one challenge; its Merkle proofs are
// {"data":{"Single"|"Sub"|"Top":…}}, and a [Column] carries a "_h":null that
// serde writes for its PhantomData field.
//
// Curio sends the C1 inside {"SectorNum":n,"Phase1Out":"<base64>",
// "SectorSize":n}; see [Wrapped].
//
// # Decoding rules
//
// [Unmarshal] accepts what serde_json accepts for these types, with three
// deliberate differences that make it stricter: unknown object keys are
// errors ([ErrUnknownField]) where serde would skip them, because no
// producer writes any and a key we do not know could carry meaning; numbers
// must be plain integer literals; and an externally tagged enum must hold
// exactly one key (as serde requires). Duplicate keys are errors
// ([ErrDuplicateField]), as in serde. Keys are case-sensitive (unlike
// encoding/json, which is one reason this package carries its own decoder;
// the others are precise per-element error paths and strict 32-element
// domain arrays). Field order is free, so C1s re-marshalled by Curio's Go
// types (alphabetical top-level order) parse too.
//
// [Unmarshal] checks syntax and types only. [Output.Validate] then checks
// what C2 relies on: partition and challenge counts, path lengths and arities
// per tree level, the Merkle proof variant of the sector size, column heights,
// 37 labeling parents, 6+8 parent columns, canonical field elements (below r;
// SHA-254 domains and comm_d also below 2^254), the registered proof against
// the vanilla proof key, and non-zero comm_d, comm_r and seed (as
// seal_commit_phase2 requires). [Parse] does both. Every failure is an
// [*Error] naming the JSON path ("vanilla_proofs.StackedDrg2KiBV1[0][1].
// comm_d_proofs.data.Single.path.path[3].index") and wrapping one of the
// exported sentinels, so callers can use errors.Is.
//
// Semantic consistency (Merkle proofs that verify, labels that recompute,
// challenges that match the seed) is not checked here; package porep does it
// with the graph and hashes this package does not depend on.
//
// # Encoding
//
// [Output.AppendJSON] writes serde_json's compact form byte for byte: fields
// in the order the Rust structs declare them, no whitespace, integers, null.
// A C1 written by rust-fil-proofs therefore round-trips to identical bytes.
//
// # Memory
//
// Domains are [32]byte values carved from shared slabs; a 32 GiB C1 (about
// 50 MB of JSON, 10×18 challenges) decodes into roughly 10 MB of structs
// without any intermediate interface values.
//
// Upstream files mirrored: rust-filecoin-proofs-api src/seal.rs
// (SealCommitPhase1Output, VanillaSealProof), rust-fil-proofs
// storage-proofs-porep/src/stacked/vanilla/{params.rs (Proof,
// ReplicaColumnProof), column.rs, column_proof.rs, labeling_proof.rs,
// encoding_proof.rs}, storage-proofs-core/src/merkle/proof.rs (MerkleProof,
// ProofData, SingleProof, SubProof, TopProof, InclusionPath, PathElement),
// filecoin-proofs/src/api/seal.rs (seal_commit_phase2_circuit_proofs checks)
// and curio extern/cuzk/cuzk-core/src/prover.rs (C1OutputWrapper); Curio's Go
// mirror is lib/proof/{porep_vproof_types.go,merkle.go}.
package c1
