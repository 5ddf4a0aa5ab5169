// Package merkle builds Filecoin's native Merkle trees and their inclusion
// proofs: the binary SHA-254 tree behind comm_d (tree_d) and the Poseidon
// "compound" trees behind comm_c and comm_r_last (tree_c, tree_r_last).
//
// # Shapes
//
// A [Shape] is rust-fil-proofs' (base, sub, top) arity triple, written
// "8-8-2". A compound tree over n leaves is BaseTreeCount() base trees of
// arity Base over consecutive leaf ranges; the sub level hashes groups of Sub
// consecutive base roots with Poseidon-Sub, and the top level hashes the Top
// sub roots with Poseidon-Top (merkletree crate, MerkleTree::from_trees and
// from_sub_trees_as_trees). Because base trees hold whole powers of Base, the
// concatenation of their levels is the level of one tree whose arity changes
// only at the sub and top levels, so a compound tree is stored as one list of
// levels, with per-level arities. Each base tree must hold Base^k leaves, k >= 1.
//
// # Proofs
//
// A [Proof] lists one [PathElement] per level from the leaf up: the arity-1
// sibling hashes in order (skipping the node itself) and the node's position
// within its group, exactly rust-fil-proofs' PathElement {hashes, index}. For
// Sub and Top proofs upstream splits the same list into base_proof, sub_proof
// and top_proof ([Proof.Split] does the same); Leaf is the real leaf and Root
// the compound root.
//
// # Memory
//
// Trees keep the caller's leaf slice (not a copy) and store each level as one
// flat slice; a 2^24-leaf arity-8 tree needs the leaves plus 1/7 of their size.
// Builders take a worker count and never look at runtime.NumCPU.
//
// Full-size inputs made without sealing use trees that keep only what
// differs: [SparsePoseidonTree] (one default leaf but a few: tree_c and
// tree_r_last of porep/c1gen, a SnapDeals sector key), [RepeatedSha254Tree]
// (one data block repeated: tree_d) and [PeriodicPoseidonTree] (leaves
// that depend on a range and an offset within a period: the tree_r_new of
// snap/snapgen). Their proofs are ordinary inclusion proofs.
//
// Upstream: rust-fil-proofs storage-proofs-core/src/merkle/{tree.rs,proof.rs},
// filecoin-hashers/src/{sha256.rs,poseidon.rs} (node, multi_node), merkletree
// 0.23 src/merkle.rs (build, gen_proof, gen_sub_tree_proof).
package merkle
