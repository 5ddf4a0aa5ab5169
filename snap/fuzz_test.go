package snap

import (
	"bytes"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/fuzzcheck"
)

// FuzzDecodePartitionProof: no input crashes the decoder, takes long or
// allocates more than its size allows (fuzzcheck), and whatever decodes
// re-encodes to the same bytes.
func FuzzDecodePartitionProof(f *testing.F) {
	p := filecoin.StackedDrg2KiBUpdateV1
	enc, err := newSector(f, p, 4).prove(f, 0).Encode(p)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(enc, uint8(p))
	f.Fuzz(func(t *testing.T, data []byte, proof uint8) {
		p := filecoin.RegisteredUpdateProof(proof % 5)
		pp, err := DecodePartitionProof(data, p)
		fuzzcheck.Check(t, len(data), func() { _, _ = DecodePartitionProof(data, p) })
		if err != nil {
			return
		}
		enc, err := pp.Encode(p)
		if err != nil {
			t.Fatalf("decoded proof does not encode: %v", err)
		}
		if !bytes.Equal(enc, data) {
			t.Fatal("round trip differs")
		}
	})
}
