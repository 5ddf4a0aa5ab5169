package gadgets

import (
	"fmt"
	"slices"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/hash"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// PoseidonHash is neptune v11.0.0's legacy circuit::poseidon_hash with
// Filecoin's constants (hash.Poseidon: Strength::Standard,
// HashType::MerkleTree), the circuit Filecoin's parameters were made with.
// The preimage length is the arity.
//
// Rows, each with exactly one allocation before it: the first full round
// computes the domain tag's S-box as a constant and spends 3 rows on every
// preimage element ((x + pre)², its square, then
// (x + pre)·(x + pre)⁴ = w − post); the other full rounds spend 4 rows per
// element (allocate the linear combination, square, square,
// (l)·(l⁴) = l⁵ − post) and the partial rounds 4 rows on element 0; the linear
// layers (MDS, the pre-sparse matrix after round R_F/2−1, the sparse matrices
// of the partial rounds) only recombine linear combinations; a last row
// allocates element 1, the digest. That is 3·arity + 4·t·(R_F−1) + 4·R_P + 1
// rows: 311, 377, 505 and 598 for arities 2, 4, 8 and 11.
func PoseidonHash(cs *r1cs.CS, preimage []AllocatedNum) (AllocatedNum, error) {
	tm, err := poseidonTemplateFor(len(preimage))
	if err != nil {
		return AllocatedNum{}, err
	}
	return tm.synthesize(cs, preimage), nil
}

// PoseidonRows is the number of rows PoseidonHash emits for arity.
func PoseidonRows(arity int) (int, error) {
	p, err := hash.LookupPoseidon(arity)
	if err != nil {
		return 0, fmt.Errorf("poseidon circuit: %w: %w", ErrArity, err)
	}
	return 3*p.Arity + 4*p.Width*(p.FullRounds-1) + 4*p.PartialRounds + 1, nil
}

// The circuit's linear combinations only involve constants of the
// permutation, so they are computed once per arity by running neptune's
// algorithm symbolically (poseidonTemplate) and replayed for every hash with
// the actual variables. A symbol names a variable relative to one hash:
// symbol 0 is ONE, 1..arity the preimage, arity+1+k the hash's k-th
// allocation (allocations are consecutive because every row's allocation is
// the only one before it).

type symTerm struct {
	sym   int32
	coeff fr.Element
}

type tmplRow struct {
	a, b, c []symTerm
}

type poseidonTemplate struct {
	p    *hash.PoseidonConstants
	rows []tmplRow
}

// poseidonTemplates are built once per arity and immutable afterwards.
var poseidonTemplates [hash.MaxPoseidonArity + 1]struct {
	once sync.Once
	t    *poseidonTemplate
}

func poseidonTemplateFor(arity int) (*poseidonTemplate, error) {
	p, err := hash.LookupPoseidon(arity)
	if err != nil {
		return nil, fmt.Errorf("poseidon circuit: %w: %w", ErrArity, err)
	}
	c := &poseidonTemplates[arity]
	c.once.Do(func() { c.t = buildPoseidonTemplate(p) })
	return c.t, nil
}

// symLC is a linear combination over symbols, sorted by symbol, without zero
// coefficients.
type symLC []symTerm

func (x symLC) scale(k *fr.Element) symLC {
	out := make(symLC, 0, len(x))
	for _, t := range x {
		t.coeff.Mul(&t.coeff, k)
		if !t.coeff.IsZero() {
			out = append(out, t)
		}
	}
	return out
}

func (x symLC) add(y symLC) symLC {
	out := make(symLC, 0, len(x)+len(y))
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case j == len(y) || (i < len(x) && x[i].sym < y[j].sym):
			out = append(out, x[i])
			i++
		case i == len(x) || y[j].sym < x[i].sym:
			out = append(out, y[j])
			j++
		default:
			t := x[i]
			t.coeff.Add(&t.coeff, &y[j].coeff)
			if !t.coeff.IsZero() {
				out = append(out, t)
			}
			i++
			j++
		}
	}
	return out
}

// symElt is neptune's Elt: an allocated number (a single symbol) or a Num (a
// linear combination); constants are Nums over ONE.
type symElt struct {
	allocated bool
	lc        symLC
}

func symConst(v *fr.Element) symElt {
	if v.IsZero() {
		return symElt{}
	}
	return symElt{lc: symLC{{sym: 0, coeff: *v}}}
}

func symVar(s int32) symElt { return symElt{allocated: true, lc: symLC{{sym: s, coeff: frOne}}} }

type templateBuilder struct {
	next int32
	rows []tmplRow
}

// row records the allocation of the next symbol and its row.
func (tb *templateBuilder) row(a, b, c symLC) int32 {
	s := tb.next
	tb.next++
	tb.rows = append(tb.rows, tmplRow{a: a, b: b, c: c})
	return s
}

func one(s int32) symLC { return symLC{{sym: s, coeff: frOne}} }

// plusConst is 1·s + k·ONE.
func plusConst(s int32, k *fr.Element) symLC {
	return one(s).add(symConst(k).lc)
}

// ensureAllocated is Elt::ensure_allocated(enforce = true): a Num becomes a
// new variable v with (lc)·(ONE) = (v).
func (tb *templateBuilder) ensureAllocated(e symElt) int32 {
	if e.allocated {
		return e.lc[0].sym
	}
	next := tb.next
	return tb.row(e.lc, one(0), one(next))
}

// quinticSBox is neptune's quintic_s_box: l = ensure_allocated(e);
// l2 = l²; l4 = l2²; l5 = mul_sum(l4, l, None, post).
func (tb *templateBuilder) quinticSBox(e symElt, post *fr.Element) symElt {
	l := tb.ensureAllocated(e)
	l2 := tb.row(one(l), one(l), one(tb.next))
	l4 := tb.row(one(l2), one(l2), one(tb.next))
	c := one(tb.next)
	if post != nil {
		var neg fr.Element
		neg.Neg(post)
		c = c.add(symConst(&neg).lc)
	}
	return symVar(tb.row(one(l), one(l4), c))
}

// quinticSBoxPreAdd is quintic_s_box_pre_add: l = ensure_allocated(e);
// l2 = square_sum(pre, l); l4 = l2²; l5 = mul_sum(l4, l, pre, post).
func (tb *templateBuilder) quinticSBoxPreAdd(e symElt, pre, post *fr.Element) symElt {
	l := tb.ensureAllocated(e)
	l2 := tb.row(plusConst(l, pre), plusConst(l, pre), one(tb.next))
	l4 := tb.row(one(l2), one(l2), one(tb.next))
	var neg fr.Element
	neg.Neg(post)
	return symVar(tb.row(plusConst(l, pre), one(l4), one(tb.next).add(symConst(&neg).lc)))
}

// scalarProduct is Σ_i elts[i]·k[i] as a Num.
func scalarProduct(elts []symElt, k func(i int) *fr.Element) symElt {
	var acc symLC
	for i, e := range elts {
		acc = acc.add(e.lc.scale(k(i)))
	}
	return symElt{lc: acc}
}

func buildPoseidonTemplate(p *hash.PoseidonConstants) *poseidonTemplate {
	t := p.Width
	tb := &templateBuilder{next: int32(p.Arity + 1)}
	elts := make([]symElt, t)
	elts[0] = symConst(&p.DomainTag)
	for i := 1; i < t; i++ {
		elts[i] = symVar(int32(i))
	}
	crc := p.CompressedRoundConstants
	round := 0
	linear := func() {
		sparseOffset := p.HalfFullRounds - 1
		next := make([]symElt, t)
		switch {
		case round == sparseOffset:
			for j := range next {
				next[j] = scalarProduct(elts, func(i int) *fr.Element { return &p.PreSparseMatrix[i][j] })
			}
		case round > sparseOffset && round < p.HalfFullRounds+p.PartialRounds:
			m := &p.SparseMatrices[round-sparseOffset-1]
			next[0] = scalarProduct(elts, func(i int) *fr.Element { return &m.WHat[i] })
			for j := 1; j < t; j++ {
				next[j] = symElt{lc: elts[j].lc.add(elts[0].lc.scale(&m.VRest[j-1]))}
			}
		default:
			for j := range next {
				next[j] = scalarProduct(elts, func(i int) *fr.Element { return &p.MDS[i][j] })
			}
		}
		elts = next
		round++
	}

	// First full round: pre-keys crc[0:t], post-keys crc[t:2t].
	pre, post := crc[:t], crc[t:2*t]
	crc = crc[2*t:]
	tag := p.DomainTag
	tag.Add(&tag, &pre[0])
	quintic(&tag)
	tag.Add(&tag, &post[0])
	elts[0] = symConst(&tag)
	for i := 1; i < t; i++ {
		elts[i] = tb.quinticSBoxPreAdd(elts[i], &pre[i], &post[i])
	}
	linear()
	for r := 1; r < p.HalfFullRounds; r++ {
		for i := range elts {
			elts[i] = tb.quinticSBox(elts[i], &crc[i])
		}
		crc = crc[t:]
		linear()
	}
	for r := 0; r < p.PartialRounds; r++ {
		elts[0] = tb.quinticSBox(elts[0], &crc[0])
		crc = crc[1:]
		linear()
	}
	for r := 0; r < p.HalfFullRounds-1; r++ {
		for i := range elts {
			elts[i] = tb.quinticSBox(elts[i], &crc[i])
		}
		crc = crc[t:]
		linear()
	}
	for i := range elts {
		elts[i] = tb.quinticSBox(elts[i], nil)
	}
	linear()
	tb.ensureAllocated(elts[1])
	if len(crc) != 0 {
		panic("gadgets: Poseidon round constants not all consumed")
	}
	return &poseidonTemplate{p: p, rows: slices.Clip(tb.rows)}
}

func quintic(x *fr.Element) {
	var x4 fr.Element
	x4.Square(x)
	x4.Square(&x4)
	x.Mul(x, &x4)
}

// poseidonState computes the witness of the legacy circuit natively, in
// allocation order, and emits every allocation with its template row.
type poseidonState struct {
	tm    *poseidonTemplate
	pre   []AllocatedNum
	base  int // aux index of symbol arity+1
	k     int // next template row
	arity int
}

func (st *poseidonState) variable(sym int32) r1cs.Variable {
	switch {
	case sym == 0:
		return r1cs.One
	case int(sym) <= st.arity:
		return st.pre[sym-1].V
	}
	return r1cs.AuxVar(st.base + int(sym) - st.arity - 1)
}

func (st *poseidonState) fill(lc *r1cs.LC, terms []symTerm) {
	for i := range terms {
		lc.AddScaled(&terms[i].coeff, st.variable(terms[i].sym))
	}
}

// emit allocates v and enforces the next template row.
func (st *poseidonState) emit(cs *r1cs.CS, v *fr.Element) {
	cs.Alloc(*v)
	cs.Enforce(st.nextRow())
}

// emitKnown allocates v and enforces the next template row, whose A, B and
// C evaluate to a, b and c at the witness (the permutation's own
// intermediate values): a templated assignment takes them as they are
// instead of evaluating the row's combinations, some of which have dozens
// of terms (the state after the partial rounds).
func (st *poseidonState) emitKnown(cs *r1cs.CS, v, a, b, c *fr.Element) {
	cs.Alloc(*v)
	cs.EnforceKnown(a, b, c, st.nextRow())
}

func (st *poseidonState) nextRow() func(a, b, c *r1cs.LC) {
	row := &st.tm.rows[st.k]
	st.k++
	return func(a, b, c *r1cs.LC) {
		st.fill(a, row.a)
		st.fill(b, row.b)
		st.fill(c, row.c)
	}
}

// sbox emits quintic_s_box: ensure_allocated (the element is always a Num
// when an S-box after the first round sees it: (l)·(ONE) = (x)), l², l⁴
// and (l)·(l⁴) = (l⁵ + post − post), and leaves l⁵ + post in x.
func (st *poseidonState) sbox(cs *r1cs.CS, x *fr.Element, post *fr.Element) {
	l := *x
	st.emitKnown(cs, x, &l, &frOne, &l)
	var l2, l4, l5 fr.Element
	l2.Square(&l)
	st.emitKnown(cs, &l2, &l, &l, &l2)
	l4.Square(&l2)
	st.emitKnown(cs, &l4, &l2, &l2, &l4)
	l5.Mul(&l, &l4)
	*x = l5
	if post != nil {
		x.Add(x, post)
	}
	st.emitKnown(cs, x, &l, &l4, &l5)
}

func (tm *poseidonTemplate) synthesize(cs *r1cs.CS, preimage []AllocatedNum) AllocatedNum {
	if !cs.WantsValues() {
		return tm.structure(cs, preimage)
	}
	p := tm.p
	t := p.Width
	st := poseidonState{tm: tm, pre: preimage, base: cs.NumAux(), arity: p.Arity}
	var buf, tmp [hash.MaxPoseidonArity + 1]fr.Element
	s, scratch := buf[:t], tmp[:t]
	s[0] = p.DomainTag
	for i, x := range preimage {
		s[i+1] = x.Val
	}
	crc := p.CompressedRoundConstants
	pre, post := crc[:t], crc[t:2*t]
	crc = crc[2*t:]

	// First round: the tag's S-box is a constant; the preimage elements are
	// already allocated, so each costs square_sum, square and mul_sum.
	s[0].Add(&s[0], &pre[0])
	quintic(&s[0])
	s[0].Add(&s[0], &post[0])
	for i := 1; i < t; i++ {
		// (x + pre)² = l2, l2² = l4, (x + pre)·(l4) = (v − post).
		var x, l2, l4, l5 fr.Element
		x.Add(&s[i], &pre[i])
		l2.Square(&x)
		st.emitKnown(cs, &l2, &x, &x, &l2)
		l4.Square(&l2)
		st.emitKnown(cs, &l4, &l2, &l2, &l4)
		l5.Mul(&x, &l4)
		s[i].Add(&l5, &post[i])
		st.emitKnown(cs, &s[i], &x, &l4, &l5)
	}
	mulMatrix(s, scratch, p.MDS)
	for r := 1; r < p.HalfFullRounds; r++ {
		for i := range s {
			st.sbox(cs, &s[i], &crc[i])
		}
		crc = crc[t:]
		if r == p.HalfFullRounds-1 {
			mulMatrix(s, scratch, p.PreSparseMatrix)
		} else {
			mulMatrix(s, scratch, p.MDS)
		}
	}
	for r := 0; r < p.PartialRounds; r++ {
		st.sbox(cs, &s[0], &crc[r])
		m := &p.SparseMatrices[r]
		var acc, prod fr.Element
		for i := range s {
			prod.Mul(&s[i], &m.WHat[i])
			acc.Add(&acc, &prod)
		}
		for j := 1; j < t; j++ {
			prod.Mul(&s[0], &m.VRest[j-1])
			s[j].Add(&s[j], &prod)
		}
		s[0] = acc
	}
	crc = crc[p.PartialRounds:]
	for r := 1; r < p.HalfFullRounds; r++ {
		for i := range s {
			st.sbox(cs, &s[i], &crc[i])
		}
		crc = crc[t:]
		mulMatrix(s, scratch, p.MDS)
	}
	for i := range s {
		st.sbox(cs, &s[i], nil)
	}
	mulMatrix(s, scratch, p.MDS)
	out := s[1]
	st.emitKnown(cs, &out, &out, &frOne, &out)
	if st.k != len(tm.rows) {
		panic("gadgets: Poseidon witness and row template out of step")
	}
	return AllocatedNum{V: r1cs.AuxVar(cs.NumAux() - 1), Val: out}
}

// structure emits the template's allocations and rows without computing
// the witness, for systems that do not consume values (counting, key
// generation): the rows do not depend on the values, and the permutation's
// arithmetic is nine tenths of a PoR's synthesis time. The digest's value is
// zero.
func (tm *poseidonTemplate) structure(cs *r1cs.CS, preimage []AllocatedNum) AllocatedNum {
	st := poseidonState{tm: tm, pre: preimage, base: cs.NumAux(), arity: tm.p.Arity}
	var zero fr.Element
	for range tm.rows {
		st.emit(cs, &zero)
	}
	return AllocatedNum{V: r1cs.AuxVar(cs.NumAux() - 1)}
}

// mulMatrix sets s = s·M, the row vector times the matrix, as neptune's
// product_mds_with_matrix (column j is Σ_i s[i]·M[i][j]).
func mulMatrix(s, scratch []fr.Element, m [][]fr.Element) {
	var prod fr.Element
	for j := range scratch {
		var acc fr.Element
		for i := range s {
			prod.Mul(&s[i], &m[i][j])
			acc.Add(&acc, &prod)
		}
		scratch[j] = acc
	}
	copy(s, scratch)
}
