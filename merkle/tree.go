package merkle

import (
	"fmt"

	"github.com/consensys/gnark-crypto/parallel"
)

// levels is the storage shared by both tree kinds: levels[0] is the leaf
// slice, levels[len(arities)] holds the single root, and level l+1 is level l
// hashed in groups of arities[l].
type levels[N any] struct {
	arities []int
	nodes   [][]N
}

// hashRange hashes src in groups of arity into dst (len(dst)*arity == len(src)).
type hashRange[N any] func(arity int, dst, src []N)

// buildLevels hashes level after level. Each level is split into contiguous
// ranges, one per worker, when it has at least minPerWorker parents per worker.
func buildLevels[N any](arities []int, leaves []N, workers, minPerWorker int, h hashRange[N]) *levels[N] {
	t := &levels[N]{arities: arities, nodes: make([][]N, len(arities)+1)}
	t.nodes[0] = leaves
	cur := leaves
	for l, a := range arities {
		next := make([]N, len(cur)/a)
		// Fewer workers on small levels: a goroutine must get at least
		// minPerWorker parents to pay for itself.
		w := max(1, min(workers, len(next)/max(minPerWorker, 1)))
		parallel.Execute(len(next), func(lo, hi int) {
			h(a, next[lo:hi], cur[lo*a:hi*a])
		}, w)
		t.nodes[l+1] = next
		cur = next
	}
	return t
}

func (t *levels[N]) root() N { return t.nodes[len(t.nodes)-1][0] }

func (t *levels[N]) prove(i int) (*Proof[N], error) {
	if i < 0 || i >= len(t.nodes[0]) {
		return nil, fmt.Errorf("leaf %d of %d: %w", i, len(t.nodes[0]), ErrIndex)
	}
	p := &Proof[N]{Leaf: t.nodes[0][i], Root: t.root(), Path: make([]PathElement[N], len(t.arities))}
	idx := i
	for l, a := range t.arities {
		first := idx / a * a
		hashes := make([]N, 0, a-1)
		for k := first; k < first+a; k++ {
			if k != idx {
				hashes = append(hashes, t.nodes[l][k])
			}
		}
		p.Path[l] = PathElement[N]{Hashes: hashes, Index: idx - first}
		idx /= a
	}
	return p, nil
}
