package seal

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/internal/par"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/graph"
)

// Openings is what the vanilla proofs of a sector open: the labels of the
// challenged nodes and of their parents, and inclusion proofs in its three
// trees. A sealed [Replica] has all of them; an input made without sealing
// (porep/c1gen) has only those the challenges reach, which is all a vanilla
// proof reads.
type Openings interface {
	// Layers is the number of SDR layers.
	Layers() int
	// Shape is the shape of tree_c and tree_r_last.
	Shape() merkle.Shape
	// Label is the label of node in layer (1-based).
	Label(layer int, node uint64) [32]byte
	// ProveD opens data node i in tree_d.
	ProveD(i int) (*merkle.Sha254Proof, error)
	// ProveC opens the column of node i in tree_c.
	ProveC(i int) (*merkle.PoseidonProof, error)
	// ProveR opens replica node i in tree_r_last.
	ProveR(i int) (*merkle.PoseidonProof, error)
}

// VanillaProofs builds, for every partition of cfg, the vanilla proof of
// each of its challenges (prove_layers_generate) from the sector's
// openings. g is cfg's graph; commR matters only to the challenge modes that
// read it.
func VanillaProofs(ctx context.Context, cfg porep.Config, g *graph.Graph, o Openings, replicaID, commR, seed [32]byte, workers int) ([][]c1.Proof, error) {
	out := make([][]c1.Proof, cfg.Partitions())
	for k := range out {
		challenges, err := cfg.Challenges(replicaID, commR, seed, k)
		if err != nil {
			return nil, err
		}
		proofs := make([]c1.Proof, len(challenges))
		phase := fmt.Sprintf("commit, partition %d of %d", k+1, len(out))
		report(ctx, phase, 0, int64(len(challenges)))
		var proven atomic.Int64
		// One challenge per chunk: each builds dozens of inclusion proofs.
		err = par.Do(ctx, len(challenges), 1, workers, func(lo, hi int) error {
			for i := lo; i < hi; i++ {
				if err := proveChallenge(&proofs[i], g, o, challenges[i]); err != nil {
					return fmt.Errorf("challenge %d (node %d): %w", i, challenges[i], err)
				}
				report(ctx, phase, proven.Add(1), int64(len(challenges)))
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("seal: partition %d: %w", k, err)
		}
		out[k] = proofs
	}
	return out, nil
}

// LabelParents writes into dst (TotalParents long) the parent labels that
// produce the label of node c in layer (1-based): layer 1 uses the 6 DRG
// parents, later layers add the 8 expander parents from the layer below;
// either way cycled to 37. parents are c's graph parents (graph.Parents).
func LabelParents(dst [][32]byte, label func(layer int, node uint64) [32]byte, parents *[graph.Degree]uint32, layer int) {
	n := graph.BaseDegree
	if layer > 1 {
		n = graph.Degree
	}
	for i := range dst[:filecoin.TotalParents] {
		j := i % n
		if j < graph.BaseDegree {
			dst[i] = label(layer, uint64(parents[j]))
		} else {
			dst[i] = label(layer-1, uint64(parents[j]))
		}
	}
}

func proveChallenge(p *c1.Proof, g *graph.Graph, o Openings, c uint64) error {
	dp, err := o.ProveD(int(c))
	if err != nil {
		return err
	}
	p.CommDProofs = c1.MerkleProof{Variant: c1.Single, Root: dp.Root, Leaf: dp.Leaf, Base: make([]c1.PathElement, len(dp.Path))}
	for i, e := range dp.Path {
		p.CommDProofs.Base[i] = c1.PathElement{Hashes: e.Hashes, Index: uint64(e.Index)}
	}
	rp, err := o.ProveR(int(c))
	if err != nil {
		return err
	}
	p.CommRLastProof = treeProof(rp, o.Shape())

	var parents [graph.Degree]uint32
	g.Parents(uint32(c), parents[:])
	rc := &p.ReplicaColumnProofs
	if rc.CX, err = columnProof(o, uint32(c)); err != nil {
		return err
	}
	rc.DRGParents = make([]c1.ColumnProof, graph.BaseDegree)
	rc.ExpParents = make([]c1.ColumnProof, graph.ExpansionDegree)
	for j, q := range parents {
		cp, err := columnProof(o, q)
		if err != nil {
			return err
		}
		if j < graph.BaseDegree {
			rc.DRGParents[j] = cp
		} else {
			rc.ExpParents[j-graph.BaseDegree] = cp
		}
	}

	layers := o.Layers()
	p.LabelingProofs = make([]c1.LabelingProof, layers)
	for l := range layers {
		ps := make([][32]byte, filecoin.TotalParents)
		LabelParents(ps, o.Label, &parents, l+1)
		p.LabelingProofs[l] = c1.LabelingProof{Parents: ps, LayerIndex: uint32(l + 1), Node: c}
	}
	last := &p.LabelingProofs[layers-1]
	p.EncodingProof = c1.EncodingProof{Parents: append([][32]byte(nil), last.Parents...), LayerIndex: last.LayerIndex, Node: c}
	return nil
}

func columnProof(o Openings, node uint32) (c1.ColumnProof, error) {
	rows := make([][32]byte, o.Layers())
	for l := range rows {
		rows[l] = o.Label(l+1, uint64(node))
	}
	ip, err := o.ProveC(int(node))
	if err != nil {
		return c1.ColumnProof{}, err
	}
	return c1.ColumnProof{Column: c1.Column{Index: node, Rows: rows}, InclusionProof: treeProof(ip, o.Shape())}, nil
}

// treeProof converts a tree_c / tree_r_last proof into the JSON variant of
// the tree's shape.
func treeProof(p *merkle.PoseidonProof, shape merkle.Shape) c1.MerkleProof {
	conv := func(es []merkle.PathElement[fr.Element]) []c1.PathElement {
		if es == nil {
			return nil
		}
		out := make([]c1.PathElement, len(es))
		for i, e := range es {
			hs := make([][32]byte, len(e.Hashes))
			for j := range e.Hashes {
				hs[j] = fr32.FromElement(&e.Hashes[j])
			}
			out[i] = c1.PathElement{Hashes: hs, Index: uint64(e.Index)}
		}
		return out
	}
	base, sub, top := p.Split(shape)
	m := c1.MerkleProof{Root: fr32.FromElement(&p.Root), Leaf: fr32.FromElement(&p.Leaf), Base: conv(base), Sub: conv(sub), Top: conv(top)}
	switch {
	case shape.Top != 0:
		m.Variant = c1.Top
	case shape.Sub != 0:
		m.Variant = c1.Sub
	}
	return m
}
