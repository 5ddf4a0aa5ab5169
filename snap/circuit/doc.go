// Package circuit is the SnapDeals EmptySectorUpdate circuit of
// rust-fil-proofs 19.0.1 (storage-proofs-update src/circuit.rs, with the
// gadgets of src/gadgets.rs in package gadgets), constraint for constraint:
// the same allocations and rows in the same order, so that Filecoin's
// official empty-sector-update parameters prove it.
//
// One circuit proves one partition k of an updated sector. Its public inputs,
// after ONE, are (PublicInputs.Vector):
//
//  1. k_and_h_select: k | h_select << partition_bit_len, h_select = 2^i for
//     h = hs[i] (h = 10 in production, 1 for sectors up to 32 KiB);
//  2. comm_r_old, 3. comm_d_new, 4. comm_r_new.
//
// The inputs are plain field elements and sibling lists so that an adapter
// from storage_proofs_update::PartitionProof is a few lines: comm_c and
// apex_leafs are copied; RootROld and RootRNew are the roots of the first
// challenge's proof_r_old and proof_r_new; each ChallengeProof takes the
// leaf of each Merkle proof and, per level from the leaf up, the siblings
// (path()[l].0, the insertion index dropped: the circuit derives the
// challenge from comm_r_new and k).
package circuit
