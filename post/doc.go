// Package post is the native side of Filecoin's FallbackPoSt (WindowPoSt and
// WinningPoSt): the bincode vanilla proofs Curio sends, challenge
// derivation, partition assembly (Winning's unrolling, Window's padding),
// native vanilla verification and the circuit's public inputs.
//
// Invariants: commitments and domain elements are fr.Element values read
// from canonical 32-byte little-endian encodings; the randomness is the
// 32-byte seed as the chain gives it (it must be a canonical field element,
// as filecoin-proofs' as_safe_commitment requires).
//
// Upstream: rust-fil-proofs 19 storage-proofs-post/src/fallback/{vanilla.rs,
// utils.rs,compound.rs}, filecoin-proofs/src/api/{post_util.rs,
// winning_post.rs,window_post.rs}, filecoin-proofs/src/types/mod.rs
// (FallbackPoStSectorProof).
package post
