package post

import (
	"bytes"
	"os"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/fuzzcheck"
)

// FuzzDecodeVanillaProof: no input crashes the decoder, takes long or
// allocates more than its size allows (fuzzcheck), and whatever decodes
// re-encodes to the same bytes.
func FuzzDecodeVanillaProof(f *testing.F) {
	f.Add(small2KiB(f), uint8(filecoin.StackedDrgWindow2KiBV1_2))
	if data, err := os.ReadFile(curioDir + "post.vproof"); err == nil {
		f.Add(data, uint8(filecoin.StackedDrgWindow32GiBV1))
	}
	f.Fuzz(func(t *testing.T, data []byte, proof uint8) {
		p := filecoin.RegisteredPoStProof(proof % 15)
		v, err := DecodeVanillaProof(data, p)
		fuzzcheck.Check(t, len(data), func() { _, _ = DecodeVanillaProof(data, p) })
		if err != nil {
			return
		}
		enc, err := v.Encode(p)
		if err != nil {
			t.Fatalf("decoded proof does not encode: %v", err)
		}
		if !bytes.Equal(enc, data) {
			t.Fatal("round trip differs")
		}
	})
}
