// Package graph is the stacked DRG of Filecoin's SDR PoRep: for every node
// of a sector, its 6 DRG ("base") parents and 8 expander parents, and the
// parent cache (its layout, name and digest, checked against upstream's
// manifest) built from them.
//
// A [Graph] is parameterised by node count, porep_id and api version, so one
// type serves every sector size, including the 8- and 32-node sectors of
// upstream's circuit tests. It is immutable and safe for concurrent use.
//
// # Invariants
//
//   - Parents(n) writes 14 entries: BaseParents(n) then ExpanderParents(n),
//     the order of StackedGraph::parents, of the vanilla proofs and of the
//     parent cache (14 u32 little-endian per node).
//   - Nodes 0 and 1 have six zero DRG parents. For node n >= 2 the immediate
//     predecessor n-1 sits in DRG slot 0 (api 1.1.0 and 1.2.0) or slot 5
//     (1.0.0); the other five come from a ChaCha8 stream keyed by
//     drg_seed || n (u32 LE), where drg_seed is the first 28 bytes of
//     sha256("Filecoin_DRSample" || porep_id).
//   - Expander parent i of n is feistel(n*8+i) / 8 over the domain
//     [0, nodes*8), with cycle walking; the Feistel network has 3 rounds of
//     blake2b-512 keyed by sha256("Filecoin_Feistel" || porep_id) read as 4
//     u64 LE. Api 1.0.0 narrows the permuted index to u32 before dividing,
//     which is wrong for sectors of 2^29 nodes and more and must be kept.
//
// The ChaCha8 stream is implemented here to match rand_chacha's ChaCha8Rng
// bit for bit (64-bit block counter from 0, zero stream id, next_u64 = two
// consecutive LE words, low first).
//
// Upstream files mirrored (rust-fil-proofs): storage-proofs-core/src/drgraph.rs
// (BucketGraph::parents, derive_drg_seed), storage-proofs-core/src/crypto/
// {mod.rs,feistel.rs}, storage-proofs-porep/src/stacked/vanilla/graph.rs
// (StackedGraph, correspondent, derive_feistel_keys) and
// storage-proofs-porep/src/stacked/vanilla/cache.rs (parent cache layout,
// digest and file name).
package graph
