// Package filecoin names the Filecoin proof types cuzk serves and everything
// that follows from the name alone: numeric ids, seal specs, api versions,
// porep ids, circuit ids and the official Groth16 parameter file names.
//
// It is pure data and string derivation; it does no I/O and reads no
// environment (callers pass an env lookup, for example os.LookupEnv).
//
// # Invariants
//
//   - [RegisteredSealProof] and [RegisteredPoStProof] values are the numeric
//     ids of go-state-types abi.RegisteredSealProof / abi.RegisteredPoStProof
//     (and of the gRPC registered_proof field). Their String forms are the
//     serde names of rust-filecoin-proofs-api (src/registry.rs), which is what
//     a C1 JSON carries in "registered_proof".
//   - Parameter file names are derived exactly as rust-fil-proofs derives
//     them: "v28-" + cache prefix + "-" + hex(sha256(public-params identifier))
//     (storage-proofs-core/src/parameter_cache.rs). The identifier contains
//     neither porep_id nor api version, so all registered proofs of one sector
//     size share one PoRep circuit and one parameter file.
//   - Shapes follow filecoin-proofs/src/constants.rs (LAYERS, POREP_PARTITIONS,
//     the SectorShape* tree types and the minimum challenge counts) and
//     filecoin-proofs/src/parameters.rs (select_challenges).
//
// Upstream files mirrored: rust-filecoin-proofs-api src/registry.rs,
// rust-fil-proofs filecoin-proofs/src/{constants.rs,parameters.rs},
// storage-proofs-core/src/{api_version.rs,parameter_cache.rs,settings.rs},
// storage-proofs-porep/src/stacked/vanilla/params.rs (PublicParams::identifier),
// storage-proofs-post/src/fallback/vanilla.rs (PublicParams::identifier) and
// curio extern/cuzk (circuit ids, make_prover_id).
package filecoin
