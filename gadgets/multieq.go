package gadgets

import "github.com/cuzk-dev/cuzk/r1cs"

// MultiEq batches the equalities of UInt32.AddMany into as few rows as fit
// the field (bellperson gadgets/multieq.rs). Each equality Σ lhs = Σ rhs of
// nbits bits is shifted by the bits already used and added to a pending pair;
// when bits used + nbits would reach Capacity (254), the pending pair is
// emitted first as (Σ lhs·2^off)·(ONE) = (Σ rhs·2^off). [MultiEq.Finish] emits
// what is left, as upstream's Drop does.
//
// Pending equalities are kept as the operand bits and the first result
// variable, not as linear combinations, so that the combination is built only
// when the constraint system wants rows. The zero value is ready to use and
// its buffers are reused after Finish.
type MultiEq struct {
	bitsUsed int
	ops      []pendingEq
	bits     []Boolean // operand bits of the pending equalities, 32 per operand
}

// pendingEq is one AddMany equality: operand bits bits[start : start+32·nops]
// against result bits first, first+1, ..., first+nbits-1, shifted by offset.
type pendingEq struct {
	start  int32
	nops   uint8
	nbits  uint8
	offset uint16
	first  r1cs.Variable
}

// Pending is the number of bits batched but not yet emitted.
func (me *MultiEq) Pending() int { return me.bitsUsed }

func (me *MultiEq) enforceEqual(cs *r1cs.CS, nbits int, first r1cs.Variable, ops []*UInt32) {
	if me.bitsUsed+nbits >= Capacity {
		me.flush(cs)
	}
	eq := pendingEq{
		start:  int32(len(me.bits)),
		nops:   uint8(len(ops)),
		nbits:  uint8(nbits),
		offset: uint16(me.bitsUsed),
		first:  first,
	}
	for _, op := range ops {
		me.bits = append(me.bits, op.bits[:]...)
	}
	me.ops = append(me.ops, eq)
	me.bitsUsed += nbits
}

// Finish emits the pending equalities, if any, as one row.
func (me *MultiEq) Finish(cs *r1cs.CS) {
	if me.bitsUsed > 0 {
		me.flush(cs)
	}
}

func (me *MultiEq) flush(cs *r1cs.CS) {
	cs.Enforce(func(a, b, c *r1cs.LC) {
		for _, eq := range me.ops {
			off := int(eq.offset)
			bits := me.bits[eq.start : int(eq.start)+32*int(eq.nops)]
			for k := 0; k < len(bits); k += 32 {
				for i, bit := range bits[k : k+32] {
					bit.AddLC(a, &pow2[off+i])
				}
			}
			base := eq.first.Index()
			for i := 0; i < int(eq.nbits); i++ {
				c.AddScaled(&pow2[off+i], r1cs.AuxVar(base+i))
			}
		}
		b.AddOne()
	})
	me.ops = me.ops[:0]
	me.bits = me.bits[:0]
	me.bitsUsed = 0
}
