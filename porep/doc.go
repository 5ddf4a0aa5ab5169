// Package porep holds the public side of Filecoin's stacked-DRG PoRep:
// the values a verifier derives from a sector's public data and the values
// the C2 circuit takes from a C1.
//
//   - [Config] says how a sector was sealed: size, porep_id, api version and
//     challenge mode. [ConfigFor] derives it from a registered seal proof;
//     proofs made with non-standard porep_ids (the polka-storage test
//     vector) set the fields directly.
//   - [ReplicaID] is generate_replica_id; [InteractiveChallenges],
//     [NIChallenges] and [SynthChallenges] derive challenges;
//     [Config.Challenges] picks the right one per partition.
//   - [SealPublic.PublicInputs] builds the public inputs of one partition
//     in upstream order (replica_id, comm_d, comm_r, then 18 per challenge)
//     from public values alone, and [VerifySeal] batch-verifies every
//     partition of a seal proof.
//   - [CircuitInputs] turns a parsed C1 into what the stacked circuit of
//     partition k needs (package porep/circuit consumes it), and
//     [VerifyVanilla] verifies a C1 natively: challenges, parents, Merkle
//     paths, column hashes, labels, encoding and comm_r.
//
// # Invariants
//
// Field elements cross this package as 32 little-endian bytes (Filecoin's
// order) or as fr.Element; conversions reject non-canonical bytes instead of
// reducing them. A challenge c is always in [1, nodes): node 0 is never
// challenged. The public inputs of a partition are exactly those of
// StackedCompound::generate_public_inputs; a Merkle path input is the
// opened leaf index as a field element.
//
// Upstream files mirrored (rust-fil-proofs): storage-proofs-porep/src/
// stacked/vanilla/{params.rs (generate_replica_id, PublicInputs::challenges,
// Proof::verify), challenges.rs, labeling_proof.rs, encoding_proof.rs,
// column.rs, hash.rs}, storage-proofs-porep/src/stacked/circuit/{proof.rs
// (generate_public_inputs, circuit), params.rs (From<VanillaProof>)},
// storage-proofs-core/src/compound_proof.rs (verify) and
// filecoin-proofs/src/api/seal.rs (verify_seal, get_seal_inputs,
// seal_commit_phase2_circuit_proofs).
package porep
