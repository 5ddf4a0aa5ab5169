package circuit

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/gadgets"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// ErrInputs is returned when sectors do not fit the circuit's shape.
var ErrInputs = errors.New("post circuit: inputs do not fit the circuit")

// Dims fixes the circuit's structure: Sectors sectors of Challenges
// challenges each, every challenge a path of TreeLevels levels in a tree of
// shape Tree.
type Dims struct {
	Tree       merkle.Shape
	TreeLevels int // base levels, then sub, then top
	Sectors    int // sector_count of the circuit
	Challenges int // challenge_count per sector
}

// DimsOf returns the circuit shape of a registered PoSt proof: for window
// PoSt SectorCount sectors of 10 challenges; for winning PoSt the unrolled
// 66 sectors of one challenge (winning_post_setup_params).
func DimsOf(p filecoin.RegisteredPoStProof) (Dims, error) {
	if !p.Valid() {
		return Dims{}, fmt.Errorf("post circuit: %w: %d", filecoin.ErrUnknownPoStProof, int64(p))
	}
	s, err := p.SectorSize().SealSpec()
	if err != nil {
		return Dims{}, fmt.Errorf("post circuit: %w", err)
	}
	shape := Dims{
		Tree:       s.Tree(),
		TreeLevels: s.TreePathLength(),
		Sectors:    p.SectorCount(),
		Challenges: p.ChallengeCount(),
	}
	if p.Type() == filecoin.WinningPoSt {
		shape.Sectors, shape.Challenges = p.ChallengeCount()/p.SectorCount(), 1
	}
	return shape, nil
}

// arities is the arity of each level of a challenge's path.
func (s Dims) arities() ([]int, error) {
	if err := s.Tree.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInputs, err)
	}
	ar, err := s.Tree.AppendPathArities(nil, s.TreeLevels)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInputs, err)
	}
	return ar, nil
}

// Challenge is one challenged leaf and its inclusion path under comm_r_last.
type Challenge struct {
	Leaf fr.Element
	Path []gadgets.PathElement
}

// Sector is one sector of the circuit (fallback::circuit::Sector).
type Sector struct {
	CommR      fr.Element
	CommC      fr.Element
	CommRLast  fr.Element
	Challenges []Challenge
}

// LeafIndex is the challenged leaf's index, the public input the PoR packs
// from the path's index bits: Σ index_l · Π_{m<l} arity_m.
func (c *Challenge) LeafIndex() uint64 {
	var idx, scale uint64 = 0, 1
	for _, e := range c.Path {
		idx += uint64(e.Index) * scale
		scale *= uint64(len(e.Siblings) + 1)
	}
	return idx
}

// FallbackPoSt is the circuit. It implements r1cs.Circuit; it keeps scratch
// space, so one value must not be synthesised by two goroutines at once.
type FallbackPoSt struct {
	Dims    Dims
	Sectors []Sector

	por gadgets.PoR
}

// New checks that sectors have the shape's dimensions everywhere and returns
// the circuit.
func New(shape Dims, sectors []Sector) (*FallbackPoSt, error) {
	if len(sectors) != shape.Sectors {
		return nil, fmt.Errorf("%w: %d sectors, shape needs %d", ErrInputs, len(sectors), shape.Sectors)
	}
	ar, err := shape.arities()
	if err != nil {
		return nil, err
	}
	for i := range sectors {
		s := &sectors[i]
		if len(s.Challenges) != shape.Challenges {
			return nil, fmt.Errorf("%w: sector %d has %d challenges, want %d", ErrInputs, i, len(s.Challenges), shape.Challenges)
		}
		for j := range s.Challenges {
			path := s.Challenges[j].Path
			if len(path) != len(ar) {
				return nil, fmt.Errorf("%w: sector %d challenge %d: path of %d levels, want %d", ErrInputs, i, j, len(path), len(ar))
			}
			for l, a := range ar {
				if len(path[l].Siblings) != a-1 || path[l].Index < 0 || path[l].Index >= a {
					return nil, fmt.Errorf("%w: sector %d challenge %d: level %d has %d siblings and index %d, arity %d",
						ErrInputs, i, j, l, len(path[l].Siblings), path[l].Index, a)
				}
			}
		}
	}
	return &FallbackPoSt{Dims: shape, Sectors: sectors}, nil
}

// Blank returns the circuit of shape with every value zero: enough to count
// rows or generate parameters, which do not depend on the witness.
func Blank(shape Dims) (*FallbackPoSt, error) {
	ar, err := shape.arities()
	if err != nil {
		return nil, err
	}
	// One path shared by every challenge: nothing writes to it.
	path := make([]gadgets.PathElement, len(ar))
	for l, a := range ar {
		path[l].Siblings = make([]fr.Element, a-1)
	}
	challenges := make([]Challenge, shape.Challenges)
	for j := range challenges {
		challenges[j].Path = path
	}
	sectors := make([]Sector, shape.Sectors)
	for i := range sectors {
		sectors[i].Challenges = challenges
	}
	return New(shape, sectors)
}

// PublicInputs are the values of the circuit's public inputs after ONE: per
// sector comm_r, then each challenge's leaf index
// (FallbackPoStCompound::generate_public_inputs, from the same inputs).
func (f *FallbackPoSt) PublicInputs() []fr.Element {
	out := make([]fr.Element, 0, len(f.Sectors)*(1+f.Dims.Challenges))
	for i := range f.Sectors {
		s := &f.Sectors[i]
		out = append(out, s.CommR)
		for j := range s.Challenges {
			var e fr.Element
			e.SetUint64(s.Challenges[j].LeafIndex())
			out = append(out, e)
		}
	}
	return out
}

// Synthesize implements r1cs.Circuit (synthesize_default; bellperson's
// extensible path emits the same rows and variables, sector after sector).
func (f *FallbackPoSt) Synthesize(cs *r1cs.CS) error {
	f.por.Shape, f.por.Hasher = f.Dims.Tree, gadgets.PoseidonHasher{}
	for i := range f.Sectors {
		cs.PushIdx("sector", i)
		err := f.sector(cs, &f.Sectors[i])
		cs.Pop()
		if err != nil {
			return fmt.Errorf("post circuit: sector %d: %w", i, err)
		}
	}
	return nil
}

func (f *FallbackPoSt) sector(cs *r1cs.CS, s *Sector) error {
	commRLast := gadgets.AllocNum(cs, s.CommRLast)
	commC := gadgets.AllocNum(cs, s.CommC)
	commR := gadgets.AllocNum(cs, s.CommR)
	commR.Inputize(cs)
	cs.Push("H_comm_c_comm_r_last")
	h := gadgets.PoseidonHasher{}.Hash2(cs, commC, commRLast)
	cs.Pop()
	gadgets.Equal(cs, commR, h)
	for j := range s.Challenges {
		c := &s.Challenges[j]
		cs.PushIdx("challenge_inclusion", j)
		err := f.por.Synthesize(cs, gadgets.RootVal(c.Leaf), c.Path, gadgets.RootVar(commRLast), true)
		cs.Pop()
		if err != nil {
			return fmt.Errorf("challenge %d: %w", j, err)
		}
	}
	return nil
}
