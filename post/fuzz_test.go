package post

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/filecoin"
)

// checkFast fails if the fastest of three runs of decode takes over 100 ms;
// taking the fastest keeps scheduler and GC pauses of a loaded machine
// from being reported as slow inputs.
func checkFast(t *testing.T, n int, decode func()) {
	t.Helper()
	best := time.Duration(1<<63 - 1)
	for range 3 {
		start := time.Now()
		decode()
		best = min(best, time.Since(start))
		if best <= 100*time.Millisecond {
			return
		}
	}
	t.Fatalf("decoding %d bytes takes %v", n, best)
}

// FuzzDecodeVanillaProof: no input crashes the decoder or takes long to
// reject, and whatever decodes re-encodes to the same bytes.
func FuzzDecodeVanillaProof(f *testing.F) {
	f.Add(small2KiB(f), uint8(filecoin.StackedDrgWindow2KiBV1_2))
	if data, err := os.ReadFile(curioDir + "post.vproof"); err == nil {
		f.Add(data, uint8(filecoin.StackedDrgWindow32GiBV1))
	}
	f.Fuzz(func(t *testing.T, data []byte, proof uint8) {
		p := filecoin.RegisteredPoStProof(proof % 15)
		v, err := DecodeVanillaProof(data, p)
		checkFast(t, len(data), func() { _, _ = DecodeVanillaProof(data, p) })
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
