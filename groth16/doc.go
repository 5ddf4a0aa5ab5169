// Package groth16 is Groth16 over BLS12-381, bit-compatible with bellperson
// (github.com/filecoin-project/bellperson, src/groth16): the same proof,
// verifying-key and parameter encodings, the same prover algorithm (input
// rows, evaluation domain, H through coset FFTs, density-compacted queries),
// and a verifier that accepts bellperson's proofs. Proofs made here with the
// official Filecoin .params verify under the official .vk.
//
// Encodings (bellperson proof.rs, verifying_key.rs, params.rs):
//   - points use the zcash flags in the top three bits of the first byte
//     (compressed 0x80, infinity 0x40, lexicographically largest y 0x20); Fp
//     is big-endian; a G2 coordinate is written c1 then c0;
//   - a Proof is A‖B‖C compressed, 192 bytes;
//   - a .vk file is α₁, β₁, β₂, γ₂, δ₁, δ₂ uncompressed, then a u32
//     big-endian count and the IC points;
//   - a .params file is the vk followed by the vectors h, l, a, b_g1, b_g2,
//     each a u32 big-endian count and uncompressed points.
//
// Readers reject truncated input, points off the curve and points at
// infinity, naming the vector and index. Subgroup checks are optional: off
// for trusted official files (upstream loads them unchecked too), on for
// anything else.
//
// Setup generates parameters whose toxic waste is known to the caller. They
// are for tests only and must never be mistaken for a ceremony's output.
package groth16
