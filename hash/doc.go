// Package hash implements the two native hash functions of Filecoin proofs,
// bit-exactly as rust-fil-proofs computes them.
//
// # SHA-254
//
// [Sha254] is SHA-256 with the two most significant bits of the last digest
// byte cleared, so that the digest read as 32 little-endian bytes is a field
// element below 2^254 (rust-fil-proofs filecoin-hashers/src/sha256.rs). tree_d
// nodes are Sha254(left || right), computed without allocation by [Sha254Pair].
//
// # Poseidon
//
// [Poseidon] returns the neptune v11.0.0 constants for one arity, with the
// settings Filecoin uses (filecoin-hashers/src/poseidon_types.rs):
// Strength::Standard, HashType::MerkleTree, so the state is
// [2^arity - 1, x_1, ..., x_arity] and the digest is state[1]. Everything is
// derived the way neptune derives it and is bit-identical to it:
//
//   - round numbers: calc_round_numbers with security margin, in float32
//     (src/round_numbers.rs);
//   - round constants: the Grain LFSR in self-shrinking mode with field size 255
//     (src/round_constants.rs);
//   - the Cauchy MDS matrix m[i][j] = 1/(i + t + j) (src/mds.rs generate_mds);
//   - the "OptimizedStatic" preprocessing: compress_round_constants
//     (src/preprocessing.rs) and factor_to_sparse_matrixes (src/mds.rs).
//
// The preprocessed values are part of the Groth16 circuit (they become
// linear-combination coefficients in neptune's circuit.rs), which is why they
// are exported and must match neptune exactly, not merely give the same hash.
//
// Matrix convention: a matrix is a slice of rows, M[i][j] is row i, column j,
// as neptune's Matrix type. neptune v11 multiplies the state as a ROW vector
// from the left: new[j] = sum_i state[i] * M[i][j]. The MDS matrix is
// symmetric, so the orientation only matters for PreSparseMatrix, which is
// not; circuits must use the same row-vector product.
//
// [PoseidonConstants.HashWithTag] replaces the Merkle-tree tag with another
// one, such as neptune's HashType::Custom(CType::Arbitrary(id)) tag id·2^40
// ([CustomDomainTag]); round constants and matrices do not depend on the
// tag. storage-proofs-update hashes φ, ρ and its challenge digests with
// Poseidon-2 and id 1 ([PoseidonGenRandomness]).
//
// A [PoseidonConstants] value is computed once per arity and shared; it must
// never be modified. Hashing allocates nothing.
//
// Upstream: neptune v11.0.0 src/poseidon.rs, src/poseidon_alt.rs,
// src/preprocessing.rs, src/mds.rs, src/matrix.rs, src/round_constants.rs,
// src/round_numbers.rs.
package hash
