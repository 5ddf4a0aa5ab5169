package post

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
)

// VerifyProof accepts rust-fil-proofs' WindowPoSt proof from its public
// values, rejects it for any other public value, and refuses public values
// and proof bytes that do not fit together, naming the mismatch.
func TestVerifyProof(t *testing.T) {
	o := loadOutside(t)
	if ok, err := VerifyProof(o.vk, o.proof, o.pub); err != nil || !ok {
		t.Fatalf("rust's proof: %v, %v", ok, err)
	}
	// Since V1_2 the partition index does not enter the challenges.
	if ok, err := VerifyProof(o.vk, o.proof, Public{Proof: o.pub.Proof, Randomness: o.pub.Randomness, Sectors: o.pub.Sectors, Partition: 1}); err != nil || !ok {
		t.Fatalf("as partition 1: %v, %v", ok, err)
	}
	changed := func(f func(p *Public)) Public {
		p := o.pub
		p.Sectors = slices.Clone(o.pub.Sectors)
		f(&p)
		return p
	}
	var one fr.Element
	one.SetOne()
	for name, pub := range map[string]Public{
		"comm_r of sector 1": changed(func(p *Public) { p.Sectors[1].CommR.Add(&p.Sectors[1].CommR, &one) }),
		"sector id":          changed(func(p *Public) { p.Sectors[1].ID = 3 }),
		"sectors swapped":    changed(func(p *Public) { p.Sectors[0], p.Sectors[1] = p.Sectors[1], p.Sectors[0] }),
		"one sector":         changed(func(p *Public) { p.Sectors = p.Sectors[:1] }),
		"randomness":         changed(func(p *Public) { p.Randomness[0] ^= 1 }),
		"V1 challenges":      changed(func(p *Public) { p.Proof = filecoin.StackedDrgWindow2KiBV1 }),
	} {
		ok, err := VerifyProof(o.vk, o.proof, pub)
		if err != nil || ok {
			t.Errorf("%s changed: %v, %v; want invalid", name, ok, err)
		}
		bad, err := InvalidPartitions(o.vk, o.proof, pub)
		if err != nil || !slices.Equal(bad, []int{0}) {
			t.Errorf("%s changed: invalid partitions %v, %v", name, bad, err)
		}
	}
	for _, c := range []struct {
		name  string
		pub   Public
		proof []byte
		is    error
		want  string
	}{
		{"three sectors", changed(func(p *Public) { p.Sectors = append(p.Sectors, p.Sectors[0]) }), o.proof, ErrProofLength,
			"3 sectors make 2 partition(s) of up to 2 for StackedDrgWindow2KiBV1_2; the proof has 1 partition proof(s)"},
		{"191 bytes", o.pub, o.proof[:191], ErrProofLength, "191 bytes is not a whole number of 192-byte Groth16 proofs"},
		{"no proof", o.pub, nil, ErrProofLength, "0 bytes"},
		{"no sectors", changed(func(p *Public) { p.Sectors = nil }), o.proof, ErrPublic, "no sectors"},
		{"negative partition", changed(func(p *Public) { p.Partition = -1 }), o.proof, ErrPublic, "partition -1"},
		{"winning, two sectors", changed(func(p *Public) { p.Proof = filecoin.StackedDrgWinning2KiBV1 }), o.proof, ErrPublic,
			"StackedDrgWinning2KiBV1 proves 1 sector, got 2"},
		{"winning, partition 1", changed(func(p *Public) { p.Proof, p.Sectors, p.Partition = filecoin.StackedDrgWinning2KiBV1, p.Sectors[:1], 1 }),
			o.proof, ErrPublic, "has partition 0 only"},
		{"window key for winning", changed(func(p *Public) { p.Proof, p.Sectors = filecoin.StackedDrgWinning2KiBV1, p.Sectors[:1] }),
			o.proof, groth16.ErrInputCount, "StackedDrgWinning2KiBV1: groth16: public input count does not match the verifying key: the verifying key takes 22 public inputs, the proof has 132"},
		{"unknown proof", changed(func(p *Public) { p.Proof = 15 }), o.proof, ErrRegisteredProof, ""},
		{"randomness not canonical", changed(func(p *Public) { p.Randomness[31] = 0xff }), o.proof, ErrRandomness, ""},
		{"garbage proof", o.pub, make([]byte, 192), nil, "proof"},
	} {
		_, err := VerifyProof(o.vk, c.proof, c.pub)
		if err == nil || (c.is != nil && !errors.Is(err, c.is)) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %v %q", c.name, err, c.is, c.want)
		}
	}
	// A whole proof of two partitions: the same partition proof twice for
	// four sectors: the second partition's (the two sectors swapped) does
	// not verify.
	two := changed(func(p *Public) { p.Sectors = append(p.Sectors, p.Sectors[1], p.Sectors[0]) })
	bad, err := InvalidPartitions(o.vk, append(slices.Clone(o.proof), o.proof...), two)
	if err != nil || !slices.Equal(bad, []int{1}) {
		t.Errorf("two partitions: invalid %v, %v; want [1]", bad, err)
	}
}

// VerifyFile reads the key, then the proof, and names the bad partitions
// of a file of several with their count.
func TestVerifyFile(t *testing.T) {
	o := loadOutside(t)
	dir := t.TempDir()
	vk, one, two := filepath.Join(dir, "post.vk"), filepath.Join(dir, "one"), filepath.Join(dir, "two")
	if err := groth16.WriteVerifyingKeyFile(vk, o.vk); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(one, o.proof, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(two, append(slices.Clone(o.proof), o.proof...), 0o600); err != nil {
		t.Fatal(err)
	}
	if bad, n, err := VerifyFile(vk, one, o.pub); err != nil || len(bad) != 0 || n != 1 {
		t.Errorf("rust's proof: bad %v, %d partition(s), %v", bad, n, err)
	}
	four := o.pub
	four.Sectors = append(slices.Clone(o.pub.Sectors), o.pub.Sectors[1], o.pub.Sectors[0])
	if bad, n, err := VerifyFile(vk, two, four); err != nil || !slices.Equal(bad, []int{1}) || n != 2 {
		t.Errorf("two partitions, the second swapped: bad %v, %d partition(s), %v; want [1], 2", bad, n, err)
	}
	if _, _, err := VerifyFile(vk, two, o.pub); !errors.Is(err, ErrProofLength) {
		t.Errorf("two partition proofs for two sectors: %v", err)
	}
	missing := filepath.Join(dir, "none")
	if _, _, err := VerifyFile(missing, missing, o.pub); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "none") {
		t.Errorf("missing key: %v", err)
	}
	if _, _, err := VerifyFile(vk, missing, o.pub); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing proof: %v", err)
	}
	if _, _, err := VerifyFile(one, one, o.pub); err == nil {
		t.Error("a proof read as the key: no error")
	}
}
