// Package bincode reads and writes the subset of bincode 1.x (serde's
// default options in rust-fil-proofs: little-endian fixed-width integers,
// u64 lengths for Vec and usize, u32 enum tags, fixed arrays without a
// length) that Filecoin vanilla proofs use, together with the Merkle proof
// layout of storage-proofs-core/src/merkle/proof.rs.
//
// The reader is bounded: every length is checked against the bytes that
// remain (and, by the callers, against the expected tree shape) before
// anything is allocated, so a hostile length costs nothing. Every error is
// an [*Error] that names the byte offset and the field path
// ("sectors[3].inclusion_proofs[7].path[2].hashes") and wraps [ErrInvalid]
// plus one specific sentinel.
//
// The field path is kept as a stack of segments and only formatted when an
// error is built, so decoding a 58 MB WindowPoSt partition does no string
// work.
package bincode
