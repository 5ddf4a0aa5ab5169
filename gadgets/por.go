package gadgets

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// ErrPathShape is returned when an authentication path does not fit the
// tree shape of a PoR circuit.
var ErrPathShape = errors.New("gadgets: authentication path does not match the tree shape")

// Root is rust-fil-proofs variables::Root: a number that is either already
// allocated (Root::Var) or a value the gadget allocates when it needs it
// (Root::Val).
type Root struct {
	num       AllocatedNum
	allocated bool
}

// RootVar is Root::Var(n).
func RootVar(n AllocatedNum) Root { return Root{num: n, allocated: true} }

// RootVal is Root::Val(v).
func RootVal(v fr.Element) Root { return Root{num: AllocatedNum{Val: v}} }

// Allocated is Root::allocated: the number itself, or a fresh allocation of
// the value (no row).
func (r Root) Allocated(cs *r1cs.CS) AllocatedNum {
	if r.allocated {
		return r.num
	}
	return AllocNum(cs, r.num.Val)
}

// PathElement is one level of an authentication path, leaf to root: the
// siblings in order (the node itself left out) and the node's position among
// its arity siblings.
type PathElement struct {
	Siblings []fr.Element
	Index    int
}

// PoR is the proof-of-retrievability circuit of rust-fil-proofs
// gadgets/por.rs (PoRCircuit::synthesize with AuthPath), generic over the
// node hasher and the tree shape.
type PoR struct {
	Shape  merkle.Shape
	Hasher NodeHasher

	bits    []Boolean
	nums    []AllocatedNum
	arities []int
}

// Synthesize proves that value sits at the path's position under root:
//
//  1. value is allocated if it is a Root::Val;
//  2. for every level, leaf to root (base levels, then sub, then top):
//     log2(arity) index bits as AllocatedBits, least significant first; the
//     arity−1 siblings as numbers; Insert; the hasher over the result;
//  3. all index bits, in that order, packed into one public input (the leaf
//     index);
//  4. root is allocated if it is a Root::Val, then
//     Equal(computed root, root);
//  5. unless private, root is exposed as a public input (Inputize).
//
// The stacked PoRep circuit passes allocated value and root with private set.
// A path that does not fit the shape is rejected with ErrPathShape.
func (p *PoR) Synthesize(cs *r1cs.CS, value Root, path []PathElement, root Root, private bool) error {
	var err error
	if err := p.Shape.Validate(); err != nil {
		return fmt.Errorf("por: %w: %w", ErrArity, err)
	}
	if p.arities, err = p.Shape.AppendPathArities(p.arities[:0], len(path)); err != nil {
		return fmt.Errorf("por: %w: %w", ErrPathShape, err)
	}
	for l, e := range path {
		a := p.arities[l]
		if len(e.Siblings) != a-1 {
			return fmt.Errorf("level %d has %d siblings, arity %d: %w", l, len(e.Siblings), a, ErrPathShape)
		}
		if e.Index < 0 || e.Index >= a {
			return fmt.Errorf("level %d index %d outside arity %d: %w", l, e.Index, a, ErrPathShape)
		}
	}

	cur := value.Allocated(cs)
	p.bits = p.bits[:0]
	for l, e := range path {
		a := p.arities[l]
		cs.PushIdx("merkle tree hash", l)
		start := len(p.bits)
		for i := 0; i < bits.TrailingZeros(uint(a)); i++ {
			p.bits = append(p.bits, AllocBit(cs, e.Index>>uint(i)&1 == 1).Boolean())
		}
		p.nums = p.nums[:0]
		for _, s := range e.Siblings {
			p.nums = append(p.nums, AllocNum(cs, s))
		}
		nsib := len(p.nums)
		p.nums, err = Insert(cs, p.nums, cur, p.bits[start:], p.nums[:nsib])
		if err != nil {
			cs.Pop()
			return fmt.Errorf("por level %d: %w", l, err)
		}
		cur, err = p.Hasher.HashNodes(cs, p.nums[nsib:])
		cs.Pop()
		if err != nil {
			return fmt.Errorf("por level %d: %w", l, err)
		}
	}
	PackIntoInputs(cs, p.bits)
	rt := root.Allocated(cs)
	Equal(cs, cur, rt)
	if !private {
		rt.Inputize(cs)
	}
	return nil
}
