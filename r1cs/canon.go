package r1cs

// canonicalizer merges repeated variables of a linear combination, keeping
// first-occurrence order, and drops terms whose merged coefficient is zero
// (bellpepper keeps them, but they are never evaluated or marked dense).
// Zero coefficients can only come from merging: LC never stores a term with
// a zero coefficient, so combinations without repeats need no zero scan.
//
// Short combinations (the great majority: Boolean checks, xor, pick) are
// checked pairwise. Long ones (packing, MultiEq flushes with hundreds of
// terms) go through an open-addressing table whose slots are invalidated by
// bumping an epoch, so nothing is cleared between rows.
type canonicalizer struct {
	keys  []Variable
	pos   []int32
	stamp []uint32
	epoch uint32
	shift uint
}

const pairwiseLimit = 12

func (z *canonicalizer) canon(lc *LC) {
	t := lc.terms
	n := len(t)
	switch {
	case n < 2:
		return
	case n == 2:
		if t[0].Var == t[1].Var {
			t[0].Coeff.Add(&t[0].Coeff, &t[1].Coeff)
			lc.terms = dropZeros(t[:1])
		}
		return
	case n > pairwiseLimit:
		lc.terms = z.mergeHashed(t)
		return
	}
	for i := 1; i < n; i++ {
		for j := 0; j < i; j++ {
			if t[i].Var == t[j].Var {
				lc.terms = dropZeros(mergePairwise(t))
				return
			}
		}
	}
}

func mergePairwise(t []Term) []Term {
	w := 0
outer:
	for r := range t {
		for j := 0; j < w; j++ {
			if t[j].Var == t[r].Var {
				t[j].Coeff.Add(&t[j].Coeff, &t[r].Coeff)
				continue outer
			}
		}
		t[w] = t[r]
		w++
	}
	return t[:w]
}

func (z *canonicalizer) mergeHashed(t []Term) []Term {
	z.reserve(len(t))
	z.epoch++
	if z.epoch == 0 { // wrapped: stale stamps could alias the new epoch
		clear(z.stamp)
		z.epoch = 1
	}
	mask := uint32(len(z.keys) - 1)
	w := 0
	for r := range t {
		v := t[r].Var
		h := (uint32(v) * 0x9E3779B1) >> z.shift
		for {
			if z.stamp[h] != z.epoch {
				z.stamp[h] = z.epoch
				z.keys[h] = v
				z.pos[h] = int32(w)
				t[w] = t[r]
				w++
				break
			}
			if z.keys[h] == v {
				p := z.pos[h]
				t[p].Coeff.Add(&t[p].Coeff, &t[r].Coeff)
				break
			}
			h = (h + 1) & mask
		}
	}
	if w == len(t) {
		return t // no repeats, so no zero coefficients
	}
	return dropZeros(t[:w])
}

// dropZeros removes terms whose coefficient is zero.
func dropZeros(t []Term) []Term {
	w := 0
	for r := range t {
		if !t[r].Coeff.IsZero() {
			t[w] = t[r]
			w++
		}
	}
	return t[:w]
}

// reserve makes the table at least four times larger than n entries.
func (z *canonicalizer) reserve(n int) {
	size := 64
	bits := uint(6)
	for size < 4*n {
		size <<= 1
		bits++
	}
	if len(z.keys) >= size {
		return
	}
	z.keys = make([]Variable, size)
	z.pos = make([]int32, size)
	z.stamp = make([]uint32, size)
	z.epoch = 0
	z.shift = 32 - bits
}
