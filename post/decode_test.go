package post

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
)

func small2KiB(t testing.TB) []byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	p := filecoin.StackedDrgWindow2KiBV1_2
	tree, commC := testSector(t, rng, p)
	v, err := GenerateVanillaProof(p, randomness(rng), 3, 0, tree, commC)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := v.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// TestDecodeErrors: every truncation fails with ErrTruncated, and errors
// name the field and offset.
func TestDecodeErrors(t *testing.T) {
	enc := small2KiB(t)
	p := filecoin.StackedDrgWindow2KiBV1_2
	for n := range len(enc) {
		_, err := DecodeVanillaProof(enc[:n], p)
		var de *DecodeError
		if !errors.Is(err, ErrTruncated) || !errors.Is(err, ErrDecode) || !errors.As(err, &de) {
			t.Fatalf("prefix %d: %v", n, err)
		}
		if de.Offset > n {
			t.Fatalf("prefix %d: offset %d", n, de.Offset)
		}
	}
	if _, err := DecodeVanillaProof(append(enc, 0), p); !errors.Is(err, ErrTrailing) {
		t.Fatalf("trailing: %v", err)
	}
	// Layout of the 2 KiB proof: sector_id 8, comm_r 32, sectors len 8,
	// inclusion_proofs len 8 at 48, then proofs of 4+64+8+2*240 = 556 bytes:
	// tag, root, leaf, path len, then per element hashes len, 7 hashes, index.
	const first = 56
	const size = 556
	at := func(proof, off int) int { return first + proof*size + off }
	cases := []struct {
		name  string
		off   int
		patch func(b []byte, off int)
		want  error
		field string
	}{
		{"variant", at(0, 0), func(b []byte, o int) { b[o] = 1 }, ErrVariant, "sectors[0].inclusion_proofs[0]: bad enum variant: ProofData variant 1, tree 8-0-0 uses 0 at offset 56"},
		{"path length", at(2, 68), func(b []byte, o int) { b[o] = 3 }, ErrLength, "sectors[0].inclusion_proofs[2].path: bad length: length 3, want 2 at offset 1236"},
		{"hashes length", at(7, 76+240), func(b []byte, o int) { b[o] = 8 }, ErrLength, "sectors[0].inclusion_proofs[7].path[1].hashes: bad length: length 8, want 7"},
		{"index", at(9, 76+232), func(b []byte, o int) { b[o] = 8 }, ErrIndex, "sectors[0].inclusion_proofs[9].path[0].index: path index out of range: index 8, arity 8"},
		{"comm_r", 8, func(b []byte, o int) { copy(b[o:o+32], strings.Repeat("\xff", 32)) }, ErrNotCanonical, "comm_r: field element not canonical"},
		{"sibling", at(4, 76+8+32*3), func(b []byte, o int) { copy(b[o:o+32], strings.Repeat("\xff", 32)) }, ErrNotCanonical, "sectors[0].inclusion_proofs[4].path[0].hashes: field element not canonical"},
		{"proof count", 48, func(b []byte, o int) { binary.LittleEndian.PutUint64(b[o:], 11) }, ErrTruncated, "sectors[0].inclusion_proofs: truncated: length 11 needs 556-byte elements"},
		{"hostile sectors", 40, func(b []byte, o int) { binary.LittleEndian.PutUint64(b[o:], 1<<62) }, ErrTruncated, "sectors: truncated"},
		{"hostile hashes", at(0, 76), func(b []byte, o int) { binary.LittleEndian.PutUint64(b[o:], 1<<63) }, ErrLength, "path[0].hashes: bad length"},
	}
	for _, c := range cases {
		b := append([]byte(nil), enc...)
		c.patch(b, c.off)
		_, err := DecodeVanillaProof(b, p)
		if !errors.Is(err, c.want) || !errors.Is(err, ErrDecode) || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: got %v, want %v containing %q", c.name, err, c.want, c.field)
		}
		var de *DecodeError
		if errors.As(err, &de) && de.Offset != c.off {
			t.Errorf("%s: offset %d, want %d", c.name, de.Offset, c.off)
		}
	}
	if _, err := DecodeVanillaProof(enc, filecoin.RegisteredPoStProof(15)); !errors.Is(err, ErrRegisteredProof) {
		t.Errorf("proof 15: %v", err)
	}
}

// TestHostileLengthsDoNotAllocate: a u64 length near 2^64 in a short input
// is rejected before any allocation of that size.
func TestHostileLengthsDoNotAllocate(t *testing.T) {
	p := filecoin.StackedDrgWindow32GiBV1_2
	b := make([]byte, 8+32+8)
	binary.LittleEndian.PutUint64(b[40:], ^uint64(0)/2)
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := DecodeVanillaProof(b, p); !errors.Is(err, ErrTruncated) {
			t.Fatal(err)
		}
	})
	// The allocations are the reader and the error message, a fixed handful.
	if allocs > 16 {
		t.Errorf("%v allocations to reject a hostile length", allocs)
	}
	// One sector claiming 2^40 inclusion proofs, in 1 KiB of input.
	b = make([]byte, 1024)
	binary.LittleEndian.PutUint64(b[40:], 1)
	binary.LittleEndian.PutUint64(b[48:], 1<<40)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 100 {
		if _, err := DecodeVanillaProof(b, p); !errors.Is(err, ErrTruncated) {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
		t.Errorf("rejecting 100 hostile inputs allocated %d bytes", d)
	}
}
