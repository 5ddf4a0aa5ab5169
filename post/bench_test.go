package post

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
)

// BenchmarkDecodeFullWindowPartition32GiB decodes the entries of a full
// 2,349-sector 32 GiB partition (the Curio sector 2,349 times, ~58.6 MB).
func BenchmarkDecodeFullWindowPartition32GiB(b *testing.B) {
	data, err := os.ReadFile(curioDir + "post.vproof")
	if err != nil {
		b.Fatal(err)
	}
	p := filecoin.StackedDrgWindow32GiBV1_2
	entries := make([][]byte, p.SectorCount())
	for i := range entries {
		entries[i] = bytes.Clone(data)
	}
	b.SetBytes(int64(len(data) * len(entries)))
	for b.Loop() {
		if _, err := DecodeVanillaProofs(entries, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyCurioSector verifies the Curio sector (10 paths of 32 GiB).
func BenchmarkVerifyCurioSector(b *testing.B) {
	data, _ := os.ReadFile(curioDir + "post.vproof")
	p := filecoin.StackedDrgWindow32GiBV1_2
	v, err := DecodeVanillaProof(data, p)
	if err != nil {
		b.Fatal(err)
	}
	var r [32]byte
	pt, err := NewWindowPartition(p, r, []*VanillaProof{v}, 0)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := pt.Verify(context.Background(), 1); err != nil {
			b.Fatal(err)
		}
	}
}
