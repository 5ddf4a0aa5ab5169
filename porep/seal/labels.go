package seal

import (
	"context"
	"crypto/sha256"
	"fmt"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/graph"
)

// ctxCheckNodes is how many labels are computed between context checks
// (about a millisecond).
const ctxCheckNodes = 1 << 10

// Labels computes the SDR labels of layers 1..layers over g:
// labels[l][n] is the label of node n in layer l+1. The parent cache is
// computed with up to workers goroutines; labelling itself is sequential.
func Labels(ctx context.Context, g *graph.Graph, replicaID [32]byte, layers, workers int) ([][][32]byte, error) {
	if layers < 1 {
		return nil, fmt.Errorf("seal: %d layers", layers)
	}
	report(ctx, "parent cache", 0, 0)
	parents, err := g.ParentCache(ctx, workers)
	if err != nil {
		return nil, err
	}
	return labelsFromCache(ctx, parents, int(g.Nodes()), replicaID, layers)
}

func labelsFromCache(ctx context.Context, parents []uint32, nodes int, replicaID [32]byte, layers int) ([][][32]byte, error) {
	const (
		deg  = graph.Degree
		base = graph.BaseDegree
	)
	labels := make([][][32]byte, layers)
	// msg is the whole preimage: header, then 37 parent labels.
	var msg [porep.LabelHeaderSize + filecoin.TotalParents*32]byte
	hdr := (*[porep.LabelHeaderSize]byte)(msg[:porep.LabelHeaderSize])
	ps := msg[porep.LabelHeaderSize:]
	for l := range layers {
		phase := fmt.Sprintf("labels, layer %d of %d", l+1, layers)
		cur := make([][32]byte, nodes)
		var prev [][32]byte
		if l > 0 {
			prev = labels[l-1]
		}
		for n := range nodes {
			if n%ctxCheckNodes == 0 {
				if err := ctx.Err(); err != nil {
					return nil, fmt.Errorf("seal: labelling layer %d: %w", l+1, err)
				}
				report(ctx, phase, int64(n), int64(nodes))
			}
			porep.LabelHeader(hdr, &replicaID, uint32(l+1), uint64(n))
			var d [32]byte
			if n == 0 {
				d = sha256.Sum256(msg[:porep.LabelHeaderSize])
			} else {
				p := parents[n*deg : n*deg+deg]
				if l == 0 {
					// 6 DRG parents, cycled to 37.
					for i := range filecoin.TotalParents {
						copy(ps[32*i:], cur[p[i%base]][:])
					}
				} else {
					// 6 DRG parents in this layer, 8 expander parents in the
					// one below, cycled to 37.
					for i := range filecoin.TotalParents {
						j := i % deg
						if j < base {
							copy(ps[32*i:], cur[p[j]][:])
						} else {
							copy(ps[32*i:], prev[p[j]][:])
						}
					}
				}
				d = sha256.Sum256(msg[:])
			}
			fr32.TrimToFr32(&d)
			cur[n] = d
		}
		labels[l] = cur
	}
	return labels, nil
}
