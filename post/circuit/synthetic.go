package circuit

import (
	"math/rand/v2"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/gadgets"
)

// Synthetic returns the circuit of proof p with deterministic random inputs
// drawn from seed: every sector, challenge and path of the right shape, so
// its rows are those of a real partition (the structure does not depend on
// the witness), but the witness satisfies nothing. It exists to measure
// synthesis at full size — a 32 GiB WindowPoSt partition is 2,349 sectors
// of 10 challenges — without sealing anything. sectors, when in (0, p's
// sector count), builds a circuit of that many sectors instead (the rows
// grow linearly with them).
func Synthetic(p filecoin.RegisteredPoStProof, sectors int, seed uint64) (*FallbackPoSt, error) {
	shape, err := DimsOf(p)
	if err != nil {
		return nil, err
	}
	if sectors > 0 && sectors < shape.Sectors {
		shape.Sectors = sectors
	}
	ar, err := shape.arities()
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x9057))
	elem := func() fr.Element {
		return fr.Element{rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64() >> 3}
	}
	leaves := uint64(p.SectorSize().Nodes())
	out := make([]Sector, shape.Sectors)
	for i := range out {
		s := &out[i]
		s.CommR, s.CommC, s.CommRLast = elem(), elem(), elem()
		s.Challenges = make([]Challenge, shape.Challenges)
		for j := range s.Challenges {
			c := &s.Challenges[j]
			c.Leaf = elem()
			node := rng.Uint64N(leaves)
			c.Path = make([]gadgets.PathElement, len(ar))
			for l, a := range ar {
				c.Path[l].Index = int(node % uint64(a))
				node /= uint64(a)
				c.Path[l].Siblings = make([]fr.Element, a-1)
				for k := range c.Path[l].Siblings {
					c.Path[l].Siblings[k] = elem()
				}
			}
		}
	}
	return New(shape, out)
}
