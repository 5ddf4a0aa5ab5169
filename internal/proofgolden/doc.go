// Package proofgolden holds no code. Its tests (behind CUZK_E2E=1) prove
// the 2 KiB WindowPoSt, WinningPoSt and EmptySectorUpdate circuits built
// from the vanilla proofs rust-fil-proofs made, with cuzk's deterministic
// test parameters and fixed r, s, through the CPU prover backend, and
// require the bytes bellperson's create_proof_batch made for the same
// circuit, parameters, r and s (testdata/rustref/proof/*.json, written by
// scripts/golden-proof-post.sh).
//
// The tests live here rather than in post/circuit and snap/circuit because
// they prove through prover/cpu, a daemon package the proof packages must
// not know about, and because testparams will import those circuits.
package proofgolden
