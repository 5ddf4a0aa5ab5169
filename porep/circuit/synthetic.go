package circuit

import (
	"math/rand/v2"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep"
)

// Synthetic returns a partition circuit of proof p with deterministic
// random inputs drawn from seed, shaped like a C1's partition (every path,
// column and parent list of the right length). Its rows are those of a
// real partition of that size — the circuit's structure does not depend on
// the witness — but the witness satisfies nothing: it exists to measure
// synthesis (time, memory) at sizes no test sector is sealed for, such as
// 32 GiB. challenges, when in (0, p's challenges per partition), builds a
// partition of that many challenges instead (the rows grow linearly with
// them), for machines that cannot hold a full one.
func Synthetic(p filecoin.RegisteredSealProof, challenges int, seed uint64) (*Stacked, error) {
	d, err := DimsOf(p)
	if err != nil {
		return nil, err
	}
	if challenges > 0 && challenges < d.Challenges {
		d.Challenges = challenges
	}
	arities, binary, err := d.pathArities()
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	nodes := p.SectorSize().Nodes()
	// path opens node in a tree of the given arities, with random siblings.
	path := func(node uint64, ar []int) []porep.PathLevel {
		out := make([]porep.PathLevel, len(ar))
		for l, a := range ar {
			out[l].Index = int(node % uint64(a))
			node /= uint64(a)
			out[l].Siblings = make([]fr.Element, a-1)
			for s := range out[l].Siblings {
				out[l].Siblings[s] = randomElement(rng)
			}
		}
		return out
	}
	column := func() porep.ColumnOpening {
		node := rng.Uint64N(nodes)
		c := porep.ColumnOpening{Node: uint32(node), Rows: make([]fr.Element, d.Layers), Path: path(node, arities)}
		for r := range c.Rows {
			c.Rows[r] = randomElement(rng)
		}
		return c
	}
	in := &porep.PartitionInputs{
		Proof: p, ReplicaID: randomElement(rng), CommD: randomElement(rng), CommR: randomElement(rng),
		CommRLast: randomElement(rng), CommC: randomElement(rng),
		Challenges: make([]porep.ChallengeInputs, d.Challenges),
	}
	for i := range in.Challenges {
		node := rng.Uint64N(nodes)
		c := &in.Challenges[i]
		c.Challenge = node
		c.DataLeaf = randomElement(rng)
		c.CommDPath = path(node, binary)
		c.CommRLastPath = path(node, arities)
		c.CommCPath = path(node, arities)
		c.DRGParents = make([]porep.ColumnOpening, filecoin.DRGDegree)
		c.ExpParents = make([]porep.ColumnOpening, filecoin.ExpansionDegree)
		for j := range c.DRGParents {
			c.DRGParents[j] = column()
		}
		for j := range c.ExpParents {
			c.ExpParents[j] = column()
		}
	}
	return New(d, in)
}

// randomElement is a uniform-enough field element below the modulus (its
// top limb is kept under the modulus's).
func randomElement(rng *rand.Rand) fr.Element {
	return fr.Element{rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64() >> 3}
}
