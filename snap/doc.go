// Package snap is the native side of SnapDeals (EmptySectorUpdate): the
// bincode PartitionProof Curio sends, φ/ρ and challenge derivation,
// replica encoding, native vanilla verification and the circuit's public
// inputs.
//
// Invariants: comm_r_old, comm_r_new and comm_c are Poseidon domain
// elements (canonical fr.Element); comm_d_new and tree_d nodes are 32-byte
// SHA-254 digests, which are canonical field elements by construction
// (top two bits cleared) and are converted where upstream converts them.
//
// Upstream: rust-fil-proofs 19 storage-proofs-update/src/{vanilla.rs,
// challenges.rs,constants.rs,circuit.rs (PublicInputs),compound.rs}.
package snap
