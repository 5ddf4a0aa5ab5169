package groth16

import (
	"errors"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// InvalidPartitions names exactly the partitions that do not verify, and
// refuses what cannot be checked.
func TestInvalidPartitions(t *testing.T) {
	vk, proofBytes, inputs := loadPolka(t)
	var proof Proof
	if err := proof.UnmarshalBinary(proofBytes); err != nil {
		t.Fatal(err)
	}
	pvk, err := Prepare(vk)
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]fr.Element(nil), inputs...)
	bad[2].SetUint64(5)
	for _, c := range []struct {
		name   string
		inputs [][]fr.Element
		want   []int
	}{
		{"all valid", [][]fr.Element{inputs, inputs, inputs}, nil},
		{"one bad", [][]fr.Element{inputs, bad, inputs}, []int{1}},
		{"two bad", [][]fr.Element{bad, inputs, bad}, []int{0, 2}},
		{"one partition, bad", [][]fr.Element{bad}, []int{0}},
	} {
		proofs := make([]Proof, len(c.inputs))
		for i := range proofs {
			proofs[i] = proof
		}
		got, err := InvalidPartitions(pvk, proofs, c.inputs)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, %v; want %v", c.name, got, err, c.want)
		}
	}
	if _, err := InvalidPartitions(pvk, []Proof{proof}, [][]fr.Element{inputs, inputs}); err == nil {
		t.Error("count mismatch accepted")
	}
	if _, err := InvalidPartitions(pvk, []Proof{proof, proof}, [][]fr.Element{inputs, inputs[:3]}); !errors.Is(err, ErrInputCount) {
		t.Errorf("short inputs: %v, want ErrInputCount", err)
	}
}
