// Package seal seals small sectors natively and writes their commit phase 1
// output, replacing lotus-bench / rust-fil-proofs for making test inputs.
//
// [PreCommit] does what seal_pre_commit_phase1 and phase2 do for one sector
// filled by a single full-size piece: fr32-pad the data (or take it padded),
// build tree_d (comm_d), derive replica_id, compute the SDR labels of every
// layer, hash each node's column into tree_c (comm_c), encode the last layer
// with the data into tree_r_last (comm_r_last) and set comm_r = H(comm_c,
// comm_r_last). [Replica.Commit] then does seal_commit_phase1: derive the
// challenges of every partition from the seed and build each challenge's
// vanilla proof exactly as prove_layers_generate does, giving a
// [c1.Output] whose JSON is byte-identical to rust-fil-proofs' for the same
// inputs.
//
// # Labels
//
// The label of node n in layer l is sha256(replica_id || l u32 BE || n u64
// BE || 20 zero bytes || 37 parent labels) with the top two bits cleared;
// node 0 hashes the 64-byte header alone. Layer 1 takes the 6 DRG parents
// in the same layer six times and the first once more; later layers take
// the 6 DRG parents in the same layer and the 8 expander parents in the
// layer below, twice, and then the first 9 again (create_label/single.rs
// copy_parents_data_inner{,_exp}). Labelling is sequential within a layer
// (every node depends on its predecessor); everything else runs on up to
// the given number of worker goroutines.
//
// # Limits
//
// Everything is kept in memory: about 9 times the sector size (the parent
// cache alone is 56 bytes per node), so 2 KiB and 8 MiB are instant to a
// few seconds and 512 MiB needs about 5 GB and minutes. Larger sectors are
// refused. Output is deterministic: the same inputs give the same bytes.
//
// Upstream files mirrored (rust-fil-proofs): filecoin-proofs/src/api/seal.rs
// (seal_pre_commit_phase1/2, seal_commit_phase1), storage-proofs-porep/src/
// stacked/vanilla/{proof.rs (replicate, prove_layers_generate),
// create_label/single.rs, graph.rs (copy_parents_data), column.rs,
// hash.rs}, storage-proofs-porep/src/encode.rs and fr32/src/padding.rs.
package seal
