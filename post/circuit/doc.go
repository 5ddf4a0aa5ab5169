// Package circuit is the FallbackPoSt circuit of rust-fil-proofs 19.0.1
// (storage-proofs-post src/fallback/circuit.rs), which proves both
// WindowPoSt and WinningPoSt, constraint for constraint: the same
// allocations and rows in the same order, so that Filecoin's official
// parameters prove it.
//
// For each sector, in order: comm_r_last, comm_c and comm_r are allocated,
// comm_r is made a public input, Poseidon-2(comm_c, comm_r_last) = comm_r is
// enforced, and then each challenge is a private PoR (gadgets.PoR, the leaf
// allocated inside it) under comm_r_last whose index bits are packed into one
// public input. Public inputs after ONE, per sector: comm_r, then the
// challenged leaf index of each challenge (PublicInputs).
//
// A WindowPoSt partition is its sectors in order, padded to SectorCount by
// repeating the last one (the caller pads); a WinningPoSt proof is its 66
// challenges of one sector unrolled into 66 one-challenge sectors.
//
// Inputs are plain field elements and gadgets.PathElement levels, so an
// adapter from FallbackPoStSectorProof is a few lines: per SectorProof,
// CommR is the public sector's comm_r, CommC and CommRLast are copied, and
// each inclusion proof gives Leaf = leaf() and Path = path() (for each level,
// leaf to root: the siblings and the node's index among them).
package circuit
