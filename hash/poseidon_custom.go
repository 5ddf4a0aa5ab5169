package hash

import "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

// CustomDomainTag is neptune's HashType::Custom(CType::Arbitrary(id))
// domain tag, id·2^40 (hash_type.rs; id in 1..=256, which neptune asserts
// and this panics on). Round constants and matrices do not depend on the
// hash type, so a custom-tag hash only changes state[0].
func CustomDomainTag(id uint64) fr.Element {
	if id < 1 || id > 256 {
		panic("hash: custom domain tag id out of range 1..256")
	}
	var t fr.Element
	t.SetUint64(id << 40)
	return t
}

// genRandomnessTag is the tag storage-proofs-update uses for φ, ρ and the
// challenge digests (HASH_TYPE_GEN_RANDOMNESS = Custom(Arbitrary(1))).
var genRandomnessTag = CustomDomainTag(1)

// GenRandomnessTag returns storage-proofs-update's HASH_TYPE_GEN_RANDOMNESS
// domain tag, 2^40.
func GenRandomnessTag() fr.Element { return genRandomnessTag }

// HashWithTag is Hash with tag in state[0] instead of the Merkle-tree tag
// 2^arity - 1 (neptune Poseidon::new_with_preimage with constants of another
// HashType; only MerkleTree-shaped preimages of exactly Arity elements).
func (p *PoseidonConstants) HashWithTag(tag fr.Element, preimage []fr.Element) fr.Element {
	return p.hash(&tag, preimage)
}

// HashCorrectWithTag is HashCorrect with a custom tag, the reference for
// HashWithTag.
func (p *PoseidonConstants) HashCorrectWithTag(tag fr.Element, preimage []fr.Element) fr.Element {
	return p.hashCorrect(&tag, preimage)
}

// PoseidonGenRandomness is storage-proofs-update's Poseidon-2 with the
// gen-randomness tag: H(a, b) as phi, rho and the challenge digests use it.
func PoseidonGenRandomness(a, b fr.Element) fr.Element {
	pre := [2]fr.Element{a, b}
	return Poseidon(2).hash(&genRandomnessTag, pre[:])
}
