package graph

import (
	"context"
	"runtime"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
)

const benchNodes = 1 << 18 // 8 MiB sector

func benchGraph(b *testing.B) *Graph {
	g, err := ForSealProof(filecoin.StackedDrg8MiBV1_1)
	if err != nil {
		b.Fatal(err)
	}
	return g
}

func BenchmarkParents(b *testing.B) {
	g := benchGraph(b)
	var p [Degree]uint32
	node := uint32(0)
	for b.Loop() {
		g.Parents(node, p[:])
		node = (node + 1) % benchNodes
	}
}

func BenchmarkBaseParents(b *testing.B) {
	g := benchGraph(b)
	var p [BaseDegree]uint32
	node := uint32(0)
	for b.Loop() {
		g.BaseParents(node, p[:])
		node = (node + 1) % benchNodes
	}
}

func BenchmarkExpanderParents(b *testing.B) {
	g := benchGraph(b)
	var p [ExpansionDegree]uint32
	node := uint32(0)
	for b.Loop() {
		g.ExpanderParents(node, p[:])
		node = (node + 1) % benchNodes
	}
}

// BenchmarkParentCache8MiB computes the whole 2^18-node cache (14.7 MB)
// with GOMAXPROCS workers and reports ns per node.
func BenchmarkParentCache8MiB(b *testing.B) {
	g := benchGraph(b)
	workers := runtime.GOMAXPROCS(0)
	b.SetBytes(int64(g.ParentCacheSize()))
	for b.Loop() {
		if _, err := g.ParentCache(context.Background(), workers); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchNodes, "ns/node")
}
