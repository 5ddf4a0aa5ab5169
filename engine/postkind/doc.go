// Package postkind serves WINDOW_POST_PARTITION and WINNING_POST requests
// in the engine (one Planner per PoSt type): it decodes Curio's bincode
// FallbackPoStSectorProof entries, assembles the circuit's partition
// (WindowPoSt: the given sectors in order, padded by repeating the last;
// WinningPoSt: the one sector's 66 challenges unrolled), verifies it
// natively, and plans one FallbackPoSt circuit whose public inputs it
// derives itself from public values.
//
// Request fields used (api/cuzk/v1/README.md):
//   - registered_proof: the abi RegisteredPoStProof, 0–4 WinningPoSt,
//     5–14 WindowPoSt (10–14 are go-state-types' V1_1 = proofs-api V1_2);
//     it selects the circuit ("wpost-<size>" or "winning-<size>");
//   - randomness: exactly 32 bytes, a canonical field element (Lotus and
//     Curio clear its top two bits);
//   - vanilla_proofs: WindowPoSt one entry per sector of this partition
//     (1..sector_count), WinningPoSt exactly one;
//   - partition_index: WindowPoSt's partition k, which numbers the sectors
//     in the challenge derivation before V1_2 (the sector index is
//     k·sector_count plus the position) and enters the public inputs the
//     same way; WinningPoSt only 0;
//   - sector_size: optional, checked against registered_proof when set;
//   - miner_id: informational (neither circuit depends on the prover id).
//
// The circuit is built from the proofs given, never as the k-th chunk of a
// larger list: upstream's generate_single_window_post_with_vanilla builds
// partition k's circuit as partition 0 of its vanilla proofs (the Rust
// cuzk pipeline passes partition_index there and so breaks every partition
// after the first). Public inputs: per sector comm_r and each challenged
// leaf index (post.PublicInputs, from the randomness and the sectors' ids
// and comm_r); for WinningPoSt the verifier's list, the one sector repeated
// 66 times (post.WinningPublicSectors).
//
// Every mismatch or malformed input is an error wrapping
// engine.ErrInvalidRequest that names the field, reported before the job
// is queued. Upstream: filecoin-proofs-api post.rs
// (generate_winning_post_with_vanilla,
// generate_single_window_post_with_vanilla), filecoin-proofs
// api/{winning_post.rs,window_post.rs,post_util.rs}.
package postkind
