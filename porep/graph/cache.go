package graph

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"sync"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/par"
)

// ParentCacheEntrySize is the size in bytes of one node's cache entry.
const ParentCacheEntrySize = Degree * 4

// defaultChunkNodes is the number of nodes a worker computes per unit of
// work: 224 KiB of output, large enough to amortise channel traffic and
// small enough that the ordered writer never waits long.
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
// node-major. It is meant for small graphs (a 32 GiB sector needs 56 GiB);
// stream large ones with WriteParentCache. workers < 1 means 1.
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

// WriteParentCache streams the parent cache file to w: for each node in
// order, its Degree parents as u32 LE. It returns the sha256 of everything
// written, the digest upstream's parent_cache.json records. Chunks of nodes
// are computed by workers goroutines (< 1 means 1) and written in order;
// memory stays bounded by a few chunks per worker. ctx is checked between
// chunks.
func (g *Graph) WriteParentCache(ctx context.Context, w io.Writer, workers int) ([32]byte, error) {
	return g.writeParentCache(ctx, w, workers, defaultChunkNodes)
}

func (g *Graph) writeParentCache(ctx context.Context, w io.Writer, workers int, chunkNodes uint32) ([32]byte, error) {
	chunks := g.chunkCount(chunkNodes)
	workers = clampWorkers(workers, chunks)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// Worker k computes chunks k, k+workers, … in order and hands them over
	// on its own channel, so reading the channels round-robin yields the
	// chunks in file order without any reordering buffer. Spent buffers go
	// back to the worker that owns them.
	const depth = 2
	type lane struct{ full, free chan []byte }
	lanes := make([]lane, workers)
	var wg sync.WaitGroup
	for k := range lanes {
		l := lane{full: make(chan []byte, depth), free: make(chan []byte, depth+1)}
		for range depth + 1 {
			l.free <- make([]byte, int(chunkNodes)*ParentCacheEntrySize)
		}
		lanes[k] = l
		wg.Go(func() {
			var parents [Degree]uint32
			for c := uint64(k); c < chunks; c += uint64(workers) {
				var buf []byte
				select {
				case buf = <-l.free:
				case <-ctx.Done():
					return
				}
				lo, hi := g.chunkRange(c, chunkNodes)
				buf = buf[:int(hi-lo)*ParentCacheEntrySize]
				out := buf
				for node := lo; node < hi; node++ {
					g.Parents(node, parents[:])
					for _, p := range parents {
						binary.LittleEndian.PutUint32(out, p)
						out = out[4:]
					}
				}
				select {
				case l.full <- buf:
				case <-ctx.Done():
					return
				}
			}
		})
	}

	var digest [32]byte
	err := func() error {
		h := sha256.New()
		for c := uint64(0); c < chunks; c++ {
			l := lanes[c%uint64(workers)]
			var buf []byte
			select {
			case buf = <-l.full:
			case <-ctx.Done():
				return fmt.Errorf("parent cache: %w", context.Cause(ctx))
			}
			h.Write(buf)
			if _, err := w.Write(buf); err != nil {
				lo, _ := g.chunkRange(c, chunkNodes)
				return fmt.Errorf("parent cache: write at node %d: %w", lo, err)
			}
			l.free <- buf[:cap(buf)]
		}
		h.Sum(digest[:0])
		return nil
	}()
	cancel()
	wg.Wait()
	if err != nil {
		return [32]byte{}, err
	}
	return digest, nil
}

func (g *Graph) chunkCount(chunkNodes uint32) uint64 {
	return (uint64(g.nodes) + uint64(chunkNodes) - 1) / uint64(chunkNodes)
}

// chunkRange is the node range [lo, hi) of chunk c.
func (g *Graph) chunkRange(c uint64, chunkNodes uint32) (lo, hi uint32) {
	start := c * uint64(chunkNodes)
	end := min(start+uint64(chunkNodes), uint64(g.nodes))
	return uint32(start), uint32(end)
}

func clampWorkers(workers int, chunks uint64) int {
	if workers < 1 {
		workers = 1
	}
	if uint64(workers) > chunks {
		workers = int(chunks)
	}
	return workers
}
