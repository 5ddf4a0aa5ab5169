// Package gadgets holds the in-circuit building blocks of Filecoin's proofs:
// bits and Boolean logic, 32- and 64-bit words, SHA-256, field numbers and
// their bit decompositions, bit packing, Merkle-path insertion, the Poseidon
// hash and the proof-of-retrievability (Merkle inclusion) circuit.
//
// # Invariant: constraint-for-constraint equality with upstream
//
// Groth16 parameters fix the index of every variable and the position of
// every row, so each gadget here emits exactly the allocations and rows of the
// Rust function it mirrors, in the same order, with the same A/B/C roles,
// signs, coefficients and constant folding. Where the code differs in shape
// (lazy linear combinations, precomputed Poseidon row templates) the emitted
// rows do not. The mirrored sources are:
//
//   - bellpepper-core 0.2 gadgets/boolean.rs and gadgets/num.rs: [AllocatedBit],
//     [Boolean], [AllocatedNum];
//   - bellperson 0.26 src/gadgets/uint32.rs, multieq.rs, multipack.rs,
//     sha256.rs: [UInt32], [MultiEq], [PackBits], [PackIntoInputs], [Sha256]
//     (these files only changed cosmetically up to bellperson 0.27);
//   - rust-fil-proofs storage-proofs-core src/gadgets/uint64.rs, insertion.rs,
//     constraint.rs, encode.rs, variables.rs, por.rs and src/util.rs: [UInt64],
//     [Insert], [Pick], [Equal], [Add], [Root], [PoR], [ReverseBitNumbering];
//   - neptune v11.0.0 src/circuit.rs (the "legacy" poseidon_hash that Filecoin's
//     parameters were made with): [PoseidonHash];
//   - rust-fil-proofs filecoin-hashers src/sha256.rs and src/poseidon.rs
//     (hash_circuit, hash2_circuit, hash_leaf_bits_circuit,
//     hash_multi_leaf_circuit): [Sha254Hasher], [PoseidonHasher].
//   - rust-fil-proofs 19.0.1 storage-proofs-update src/gadgets.rs and
//     storage-proofs-core gadgets/por.rs por_no_challenge_input, for the
//     EmptySectorUpdate circuit: [NumToAllocatedBits], [GenChallengeBits],
//     [ChallengeHighBits], [LabelRNew], [ApexPoR], [PoRNoChallenge]; neptune's
//     poseidon_hash with HashType::Custom(CType::Arbitrary(id)) constants
//     (POSEIDON_CONSTANTS_GEN_RANDOMNESS): [PoseidonHashCustom],
//     [PoseidonGenRandomness].
//
// A linear combination is built only inside the closure given to
// r1cs.CS.Enforce, so witness-only and counting systems never pay for it.
// Linear combinations are compared in canonical form (merged, zero terms
// dropped), which is what both the Groth16 prover and the R1CS digests see,
// so the order in which a gadget adds terms is free.
//
// # Values
//
// Every gadget computes its witness natively (plain uint32 arithmetic for
// words, field arithmetic for numbers) and always has a value: a system that
// does not consume values simply ignores them. The constraint structure never
// depends on values, only on which bits are constants.
//
// # Performance
//
// SHA-256 dominates Filecoin circuits (98% of a PoRep partition). Booleans
// and words are small value types, scratch space ([Sha256], [MultiEq]) is
// reused between calls, and the gadgets allocate nothing on the heap per
// constraint in steady state (a circuit may still allocate per challenge or
// per partition). Scratch-holding types are not safe for concurrent use; give each
// synthesis goroutine its own.
package gadgets
