package srs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/fuzzcheck"
	"github.com/cuzk-dev/cuzk/internal/testcircuits"
)

// FuzzReadSizes: the engine reads a parameter file's vector counts before
// it decodes any point (to plan memory), from a file of unknown
// provenance. No input may panic, take long or allocate; a rejection
// wraps groth16.ErrParamsFormat; and whenever groth16 decodes the bytes as
// parameters, the sizes agree with the decoded vectors.
func FuzzReadSizes(f *testing.F) {
	tw := groth16.ToxicWaste{}
	for i, e := range []*fr.Element{&tw.Tau, &tw.Alpha, &tw.Beta, &tw.Gamma, &tw.Delta} {
		e.SetUint64(uint64(1000 + 7*i))
	}
	p, err := groth16.Setup(testcircuits.Mixed{Constraints: 27, Inputs: 4, Seed: 1}, tw, groth16.SetupOptions{Workers: 1})
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := p.WriteTo(&buf); err != nil {
		f.Fatal(err)
	}
	valid := buf.Bytes()
	f.Add(valid)
	vk := len(p.VK.Bytes())
	for _, at := range []int{vk - 4, vk} { // the ic and h counts
		b := bytes.Clone(valid)
		binary.BigEndian.PutUint32(b[at:], 1<<32-1)
		f.Add(b)
	}
	f.Add(valid[:len(valid)-1])
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzcheck.Check(t, len(b), func() { _, _ = readSizes(bytes.NewReader(b), int64(len(b))) })
		s, err := readSizes(bytes.NewReader(b), int64(len(b)))
		if err != nil && !errors.Is(err, groth16.ErrParamsFormat) {
			t.Fatalf("rejection does not wrap ErrParamsFormat: %v", err)
		}
		p, derr := groth16.DecodeParams(b, groth16.LoadOptions{Workers: 1})
		if derr != nil {
			return
		}
		if err != nil {
			t.Fatalf("groth16 decodes the parameters, ReadSizes refuses them: %v", err)
		}
		if s.Inputs != len(p.VK.IC) || s.H != len(p.H) || s.Aux != len(p.L) || s.A != len(p.A) || s.B != len(p.BG1) || s.FileLen != int64(len(b)) {
			t.Fatalf("sizes %+v disagree with the decoded parameters", s)
		}
	})
}
