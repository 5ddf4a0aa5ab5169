// Package snapkind serves SNAP_DEALS_UPDATE requests (EmptySectorUpdate
// proofs of a CC sector updated with deals) in the engine: it decodes
// Curio's bincode PartitionProof entries, verifies each natively as its
// partition, and plans one EmptySectorUpdate circuit per partition whose
// public inputs it derives itself from the three commitments.
//
// Request fields used (api/cuzk/v1/README.md):
//   - registered_proof: the abi RegisteredUpdateProof (0–4); it selects the
//     circuit ("snap-<size>") and the partition count (1 at 2 KiB, 4 at
//     8 MiB, 16 from 512 MiB);
//   - comm_r_old, comm_r_new, comm_d_new: raw 32 bytes each, canonical
//     field elements;
//   - vanilla_proofs: exactly one entry per partition, entry k being
//     partition k's proof;
//   - sector_size: optional (Curio's proof-market path leaves it 0),
//     checked against registered_proof when set;
//   - sector_number, miner_id: informational (the circuit depends on
//     neither).
//
// Every partition proof must verify as snap.Verify checks it (the three
// paths of each challenge, comm_r_old and comm_r_new from comm_c and the
// roots, the encoding label_r_new = label_r_old + label_d_new·ρ, the apex
// tree); a failure is an error wrapping engine.ErrInvalidRequest naming the
// entry and the field (ErrCommRNew when comm_r_new does not match the
// vanilla proofs). Public inputs per partition k: k | h_select << log2
// (partitions), comm_r_old, comm_d_new, comm_r_new (snap.Public.PartitionInputs, h =
// h_default). Same-circuit requests batch like PoRep's
// (proofkind.Descriptor.Batchable).
//
// Upstream: filecoin-proofs-api update.rs
// (generate_empty_sector_update_proof_with_vanilla), filecoin-proofs
// api/update.rs, storage-proofs-update compound.rs (circuit for partition
// k) and circuit.rs (PublicInputs).
package snapkind
