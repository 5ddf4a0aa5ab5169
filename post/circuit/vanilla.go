package circuit

import (
	"fmt"

	"github.com/cuzk-dev/cuzk/gadgets"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/post"
)

// FromPartition turns a partition assembled from Curio's vanilla proofs
// (post.NewPartition: Window sectors padded by repeating the last, Winning
// unrolled into one-challenge sectors) into the circuit's sectors, as
// FallbackPoStCompound::circuit builds them for partition 0.
func FromPartition(dims Dims, part *post.Partition) ([]Sector, error) {
	if len(part.Sectors) != len(part.Proofs) {
		return nil, fmt.Errorf("%w: %d sectors with %d proofs", ErrInputs, len(part.Sectors), len(part.Proofs))
	}
	out := make([]Sector, len(part.Proofs))
	for i := range part.Proofs {
		sp := &part.Proofs[i]
		s := Sector{CommR: part.Sectors[i].CommR, CommC: sp.CommC, CommRLast: sp.CommRLast, Challenges: make([]Challenge, len(sp.InclusionProofs))}
		for j, ip := range sp.InclusionProofs {
			s.Challenges[j] = challengeOf(ip)
		}
		out[i] = s
	}
	if len(out) != dims.Sectors {
		return nil, fmt.Errorf("%w: the partition has %d sectors, the circuit %d", ErrInputs, len(out), dims.Sectors)
	}
	return out, nil
}

func challengeOf(p *merkle.PoseidonProof) Challenge {
	c := Challenge{Leaf: p.Leaf, Path: make([]gadgets.PathElement, len(p.Path))}
	for l, e := range p.Path {
		c.Path[l] = gadgets.PathElement{Siblings: e.Hashes, Index: e.Index}
	}
	return c
}
