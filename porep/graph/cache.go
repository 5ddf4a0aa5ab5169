package graph

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/par"
)

// ParentCacheEntrySize is the size in bytes of one node's cache entry.
const ParentCacheEntrySize = Degree * 4

// defaultChunkNodes is the number of nodes a worker computes per unit of
// work.
const defaultChunkNodes = 1 << 12

// ParentCacheSize is the size in bytes of the parent cache file.
func (g *Graph) ParentCacheSize() uint64 { return uint64(g.nodes) * ParentCacheEntrySize }

// ParentCacheID is the parent cache's name in upstream's manifest
// (parent_cache.json) and its file stem: "v28-sdr-parent-" + hex of
// sha256("poseidon_hasher" || graph identifier || feistel keys (u64 LE) ||
// nodes (u32 LE)) (cache.rs cache_path). Unlike the parent order it does not
// depend on the api version.
func (g *Graph) ParentCacheID() string {
	h := sha256.New()
	h.Write([]byte("poseidon_hasher"))
	h.Write([]byte(filecoin.StackedGraphIdentifier(uint64(g.nodes))))
	var b [8]byte
	for _, k := range g.feistelKeys {
		binary.LittleEndian.PutUint64(b[:], k)
		h.Write(b[:])
	}
	binary.LittleEndian.PutUint32(b[:4], g.nodes)
	h.Write(b[:4])
	return fmt.Sprintf("v%d-sdr-parent-%s", filecoin.ParameterVersion, hex.EncodeToString(h.Sum(nil)))
}

// ParentCacheFileName is ParentCacheID with upstream's ".cache" extension.
func (g *Graph) ParentCacheFileName() string { return g.ParentCacheID() + ".cache" }

// ParentsRange writes the parents of nodes start, start+1, … into dst,
// Degree entries per node, for len(dst)/Degree nodes. It panics if the
// range leaves the graph or len(dst) is not a multiple of Degree.
func (g *Graph) ParentsRange(start uint32, dst []uint32) {
	if len(dst)%Degree != 0 {
		panic(fmt.Sprintf("graph: ParentsRange buffer of %d entries is not a multiple of %d", len(dst), Degree))
	}
	for node := start; len(dst) > 0; node++ {
		g.Parents(node, dst[:Degree])
		dst = dst[Degree:]
	}
}

// ParentCache computes the whole cache in memory: Degree parents per node,
// node-major, the layout of upstream's parent cache file (u32 little-endian
// each). It is meant for the graphs sealed in memory (a 32 GiB sector's
// would be 56 GiB). workers < 1 means 1.
func (g *Graph) ParentCache(ctx context.Context, workers int) ([]uint32, error) {
	out := make([]uint32, uint64(g.nodes)*Degree)
	err := par.Do(ctx, int(g.nodes), defaultChunkNodes, workers, func(lo, hi int) error {
		g.ParentsRange(uint32(lo), out[lo*Degree:hi*Degree])
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("parent cache: %w", err)
	}
	return out, nil
}
