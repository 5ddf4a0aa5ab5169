package hash

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

func TestCustomDomainTag(t *testing.T) {
	// neptune test_domain_tags: Custom(Arbitrary(i)) = i * 2^40, limbs
	// [0x0000010000000000 * i, 0, 0, 0].
	for _, id := range []uint64{1, 2, 255, 256} {
		tag := CustomDomainTag(id)
		var want fr.Element
		want.SetUint64(0x0000010000000000 * id)
		if tag != want {
			t.Errorf("tag %d = %s", id, tag.String())
		}
	}
	g := GenRandomnessTag()
	if g.String() != "1099511627776" {
		t.Errorf("gen randomness tag %s, want 2^40", g.String())
	}
	for _, bad := range []uint64{0, 257} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("id %d accepted", bad)
				}
			}()
			CustomDomainTag(bad)
		}()
	}
}

// The optimised algorithm with a custom tag equals the plain one, differs
// from the Merkle-tree hash, and equals it when given the Merkle-tree tag.
func TestHashWithTag(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, arity := range []int{2, 8} {
		p := Poseidon(arity)
		pre := make([]fr.Element, arity)
		for i := range pre {
			pre[i].SetUint64(rng.Uint64())
		}
		tag := CustomDomainTag(1)
		got := p.HashWithTag(tag, pre)
		if got != p.HashCorrectWithTag(tag, pre) {
			t.Errorf("arity %d: optimised and plain custom-tag hashes differ", arity)
		}
		if got == p.Hash(pre) {
			t.Errorf("arity %d: custom tag has no effect", arity)
		}
		if p.HashWithTag(p.DomainTag, pre) != p.Hash(pre) {
			t.Errorf("arity %d: HashWithTag(DomainTag) != Hash", arity)
		}
	}
	a, b := fr.One(), fr.NewElement(7)
	if PoseidonGenRandomness(a, b) != Poseidon(2).HashWithTag(CustomDomainTag(1), []fr.Element{a, b}) {
		t.Error("PoseidonGenRandomness")
	}
	if n := testing.AllocsPerRun(10, func() { PoseidonGenRandomness(a, b) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}
