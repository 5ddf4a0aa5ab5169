// Package sectordir is the on-disk layout of a sector sealed by `cuzk seal
// --out DIR` or updated by `cuzk snap encode`: what WindowPoSt, WinningPoSt
// and SnapDeals need long after sealing, kept as a storage provider keeps a
// sealed sector (the replica plus the cache that spares rebuilding its
// tree_r_last).
//
// # Layout, version 1
//
//	DIR/sealed                 the replica: sector size bytes, node i being
//	                           tree_r_last's leaf i as a 32-byte little-endian
//	                           field element (upstream's sealed file, byte for
//	                           byte; after an update, the updated replica,
//	                           upstream's "update" file)
//	DIR/cache/p_aux            64 bytes: comm_c then comm_r_last, little-endian
//	                           (upstream's bincode PersistentAux, byte for byte)
//	DIR/cache/tree-r-last.dat  tree_r_last above its leaves: every level from
//	                           the one over the leaves up to the root, each a
//	                           run of 32-byte little-endian nodes in order
//	                           (cuzk's own format: upstream keeps a LevelCache
//	                           store under sc-02-data-tree-r-last*.dat, which
//	                           drops rows and is read back with t_aux, so the
//	                           name is not reused for different bytes)
//	DIR/sector.json            the manifest, written last: format
//	                           "cuzk-sector", version 1, the sector's public
//	                           values (registered seal proof, sector size,
//	                           sector id, miner id when the prover id is a
//	                           miner's, prover id, ticket, comm_d, comm_r,
//	                           tree_r_last's shape), for an updated sector the
//	                           update (registered update proof, comm_r_old,
//	                           comm_d_old), and the size and SHA-256 of each
//	                           file above
//
// Commitments are hex of their 32 stored bytes (Fr little-endian), as
// everywhere in cuzk. After an update comm_d and comm_r are the new ones
// (comm_d_new, comm_r_new) and comm_c is unchanged, as upstream's update
// cache keeps it: PoSt over an updated sector reads the same layout.
//
// # Checks
//
// [Load] refuses a directory whose manifest is missing ([ErrNotSector]), of
// another format or version ([ErrFormat], [ErrVersion]), or any file whose
// size or digest differs from the manifest, whose size is not the one the
// sector size gives, whose nodes are not canonical field elements, whose
// tree root is not p_aux's comm_r_last, or whose Poseidon2(comm_c,
// comm_r_last) is not the manifest's comm_r ([ErrCorrupt]); each error names
// the file and the field or node. Hashes inside the tree are not recomputed
// (the digest stands for them): rebuilding an 8 MiB tree_r_last takes
// seconds, a 512 MiB one minutes. Load and Write hold the whole sector in
// memory and refuse sectors above 512 MiB, which cuzk seal cannot make
// either ([ErrTooLarge]).
//
// Upstream: rust-fil-proofs filecoin-proofs/src/api/seal.rs
// (seal_pre_commit_phase2 writes p_aux), storage-proofs-porep/src/stacked/
// vanilla/params.rs (PersistentAux), filecoin-proofs/src/api/update.rs.
package sectordir
