// Package circuit is the stacked DRG PoRep circuit of one partition,
// constraint for constraint the circuit of rust-fil-proofs
// storage-proofs-porep/src/stacked/circuit (proof.rs StackedCircuit,
// params.rs Proof::synthesize, create_label.rs, column.rs, hash.rs), so that
// proofs made with the official Filecoin parameters verify under the
// official verifying keys.
//
// Row and variable order are part of the parameters. Synthesis order, for a
// partition (after the prover's ONE):
//
//  1. replica_id: alloc, inputize, to_bits_le, reverse_bit_numbering (these
//     256 bits are reused by every label);
//  2. comm_d, comm_r: alloc + inputize each; comm_r_last, comm_c: alloc;
//  3. comm_r = Poseidon-2(comm_c, comm_r_last), checked with equal;
//  4. per challenge: data leaf; its tree_d inclusion; for each of the 6 DRG
//     then 8 expander parents: the column's L rows, their Poseidon-L column
//     hash, its tree_c inclusion; the challenge as a UInt64 packed into an
//     input; the L labels (each parent row's bits, parents repeated to 37,
//     SHA-256 of the 1,248-byte message, packed to 254 bits); encoding
//     (label_L + data leaf); its tree_r_last inclusion; the column hash of
//     the labels and its tree_c inclusion.
//
// Every inclusion proof packs its path bits into one public input, so a
// partition has 3 + 18·challenges inputs besides ONE.
package circuit
