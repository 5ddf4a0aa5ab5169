// Package proofgolden holds no code. Its tests (behind CUZK_E2E=1) prove
// the 2 KiB WindowPoSt, WinningPoSt and EmptySectorUpdate requests built
// from the vanilla proofs rust-fil-proofs made, with cuzk's deterministic
// test parameters and fixed r, s, through the engine (the one proving path
// of the daemon and the one-shot commands), and require the bytes
// bellperson's create_proof_batch made for the same circuit, parameters, r
// and s (testdata/rustref/proof/*.json, written by
// scripts/golden-proof-post.sh).
//
// The tests live here rather than in post/circuit and snap/circuit because
// they prove through the engine and its kinds, which the proof packages
// must not know about.
package proofgolden
