package snap_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/snap"
)

// rustUpdate is a rustref update (testdata/rustref/update/<size>): its
// public values and the public inputs rust-fil-proofs' circuit of each
// partition takes (testdata/rustref/r1cs/update_<size>_p<k>.json).
func rustUpdate(t *testing.T, size string) (filecoin.RegisteredUpdateProof, snap.Public, [][]fr.Element) {
	t.Helper()
	var u struct {
		RegisteredProof int64  `json:"registered_proof"`
		Partitions      int    `json:"partitions"`
		CommROld        string `json:"comm_r_old"`
		CommRNew        string `json:"comm_r_new"`
		CommDNew        string `json:"comm_d_new"`
	}
	golden.ReadJSON(t, filepath.Join(golden.Dir(), "update", size, "update.json"), &u)
	pub := snap.Public{Proof: filecoin.RegisteredUpdateProof(u.RegisteredProof), CommROld: golden.Fr(t, u.CommROld), CommRNew: golden.Fr(t, u.CommRNew), CommDNew: golden.Hex32(t, u.CommDNew)}
	inputs := make([][]fr.Element, u.Partitions)
	for k := range inputs {
		var g struct {
			PublicInputs []string `json:"public_inputs"`
		}
		golden.ReadJSON(t, filepath.Join(golden.Dir(), "r1cs", fmt.Sprintf("update_%s_p%d.json", size, k)), &g)
		for _, h := range g.PublicInputs {
			inputs[k] = append(inputs[k], golden.Fr(t, h))
		}
	}
	return filecoin.RegisteredUpdateProof(u.RegisteredProof), pub, inputs
}

// VerifyProof derives from the three commitments exactly the inputs
// rust-fil-proofs' update circuit takes, partition by partition (checked
// with proofs bound to rust's inputs), rejects any other commitment or a
// reordered proof, and refuses what does not fit, naming it.
func TestVerifyProof(t *testing.T) {
	p, pub, inputs := rustUpdate(t, "8MiB")
	if got, err := pub.Inputs(); err != nil || !slices.EqualFunc(got, inputs, slices.Equal) {
		t.Fatalf("Inputs: %v, want rust's", err)
	}
	vk, proof := testkit.StubProof(t, inputs)
	if ok, err := snap.VerifyProof(vk, proof, pub); err != nil || !ok {
		t.Fatalf("proof of rust's inputs: %v, %v", ok, err)
	}
	var one fr.Element
	one.SetOne()
	for name, f := range map[string]func(*snap.Public){
		"comm_r_old": func(p *snap.Public) { p.CommROld.Add(&p.CommROld, &one) },
		"comm_r_new": func(p *snap.Public) { p.CommRNew.Add(&p.CommRNew, &one) },
		"comm_d_new": func(p *snap.Public) { p.CommDNew[0] ^= 1 },
	} {
		bad := pub
		f(&bad)
		if ok, err := snap.VerifyProof(vk, proof, bad); err != nil || ok {
			t.Errorf("%s changed: %v, %v; want invalid", name, ok, err)
		}
	}
	swapped := slices.Concat(proof[192:384], proof[:192], proof[384:])
	if bad, err := snap.InvalidPartitions(vk, swapped, pub); err != nil || !slices.Equal(bad, []int{0, 1}) {
		t.Errorf("partitions 0 and 1 swapped: invalid %v, %v", bad, err)
	}
	otherKey, _ := testkit.StubProof(t, [][]fr.Element{inputs[0][:3]})
	for _, c := range []struct {
		name  string
		p     filecoin.RegisteredUpdateProof
		proof []byte
		vk    *groth16.VerifyingKey
		is    error
		want  string
	}{
		{"one partition", p, proof[:192], vk, snap.ErrProofLength, "1 partition proof(s), StackedDrg8MiBV1 has 4 partitions"},
		{"500 bytes", p, proof[:500], vk, snap.ErrProofLength, "500 bytes is not a whole number of 192-byte Groth16 proofs"},
		{"2 KiB proof", filecoin.StackedDrg2KiBUpdateV1, proof, vk, snap.ErrProofLength, "4 partition proof(s), StackedDrg2KiBV1 has 1"},
		{"unknown proof", 5, proof, vk, snap.ErrRegisteredProof, ""},
		{"key of another circuit", p, proof, otherKey, groth16.ErrInputCount, "StackedDrg8MiBV1: groth16: public input count does not match the verifying key: the verifying key takes 3 public inputs, the proof has 4"},
		{"garbage", p, make([]byte, 4*192), vk, nil, "proof"},
	} {
		pub := pub
		pub.Proof = c.p
		_, err := snap.VerifyProof(c.vk, c.proof, pub)
		if err == nil || (c.is != nil && !errors.Is(err, c.is)) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %v %q", c.name, err, c.is, c.want)
		}
	}
	notCanonical := pub
	notCanonical.CommDNew = [32]byte{31: 0xff}
	if _, err := snap.VerifyProof(vk, proof, notCanonical); !errors.Is(err, snap.ErrCommD) {
		t.Errorf("comm_d_new not a field element: %v", err)
	}
}

// VerifyFile reads the key, then the proof, and names the bad partitions
// with their count.
func TestVerifyFile(t *testing.T) {
	_, pub, inputs := rustUpdate(t, "8MiB")
	vk, proof := testkit.StubProof(t, inputs)
	dir := t.TempDir()
	vkPath, good, swapped := filepath.Join(dir, "update.vk"), filepath.Join(dir, "good"), filepath.Join(dir, "swapped")
	if err := groth16.WriteVerifyingKeyFile(vkPath, vk); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(good, proof, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(swapped, slices.Concat(proof[192:384], proof[:192], proof[384:]), 0o600); err != nil {
		t.Fatal(err)
	}
	if bad, n, err := snap.VerifyFile(vkPath, good, pub); err != nil || len(bad) != 0 || n != 4 {
		t.Errorf("valid proof: bad %v, %d partition(s), %v", bad, n, err)
	}
	if bad, n, err := snap.VerifyFile(vkPath, swapped, pub); err != nil || !slices.Equal(bad, []int{0, 1}) || n != 4 {
		t.Errorf("partitions 0 and 1 swapped: bad %v, %d partition(s), %v", bad, n, err)
	}
	if _, _, err := snap.VerifyFile(vkPath, good, snap.Public{Proof: filecoin.StackedDrg2KiBUpdateV1, CommROld: pub.CommROld, CommDNew: pub.CommDNew, CommRNew: pub.CommRNew}); !errors.Is(err, snap.ErrProofLength) {
		t.Errorf("4 partition proofs for a 1-partition proof: %v", err)
	}
	missing := filepath.Join(dir, "none")
	if _, _, err := snap.VerifyFile(missing, missing, pub); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "none") {
		t.Errorf("missing key: %v", err)
	}
	if _, _, err := snap.VerifyFile(vkPath, missing, pub); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing proof: %v", err)
	}
}
