package hash

import (
	"errors"
	"fmt"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// MaxPoseidonArity is the largest arity neptune defines (U36).
const MaxPoseidonArity = 36

// ErrUnsupportedArity is returned when a Poseidon arity lies outside
// 1..MaxPoseidonArity.
var ErrUnsupportedArity = errors.New("hash: unsupported Poseidon arity")

// SparseMatrix is one of neptune's sparse partial-round matrices M″: dense
// first row and first column, identity elsewhere. As a matrix,
// M″[i][0] = WHat[i] and M″[0][j] = VRest[j-1] for j >= 1; the row-vector
// product is new[0] = sum_i s[i]*WHat[i], new[j] = s[j] + s[0]*VRest[j-1].
type SparseMatrix struct {
	WHat  []fr.Element // length Width: the first column, M″[0][0] included
	VRest []fr.Element // length Width-1: the first row without M″[0][0]
}

// PoseidonConstants holds everything neptune derives for one arity with
// Strength::Standard and HashType::MerkleTree. Values are shared between all
// users and must not be modified.
type PoseidonConstants struct {
	Arity          int
	Width          int // Arity + 1
	FullRounds     int // R_F (8 for every arity)
	HalfFullRounds int // R_F / 2
	PartialRounds  int // R_P

	// DomainTag is state[0] before hashing: 2^Arity - 1.
	DomainTag fr.Element

	// RoundConstants are the (R_F+R_P)·Width Grain constants used by the plain
	// algorithm, round by round.
	RoundConstants []fr.Element
	// CompressedRoundConstants are the R_F·Width + R_P constants of the
	// optimised algorithm (compress_round_constants).
	CompressedRoundConstants []fr.Element

	// MDS is the Cauchy matrix and MDSInverse its inverse (both symmetric).
	MDS, MDSInverse [][]fr.Element
	// PreSparseMatrix replaces MDS after the last round of the first half of
	// full rounds. It is not symmetric: use it as a row-vector product.
	PreSparseMatrix [][]fr.Element
	// SparseMatrices[k] is the linear layer of partial round k.
	SparseMatrices []SparseMatrix

	// Column-major copies for the hot path: col[j*Width+i] = M[i][j], so that
	// each output of the row-vector product is a contiguous dot product.
	mdsCols, preSparseCols []fr.Element
}

var poseidonCache [MaxPoseidonArity + 1]struct {
	once sync.Once
	p    *PoseidonConstants
	err  error
}

// LookupPoseidon returns the shared constants for arity (computed on first
// use; arity 36 takes a few hundred milliseconds), or ErrUnsupportedArity.
func LookupPoseidon(arity int) (*PoseidonConstants, error) {
	if arity < 1 || arity > MaxPoseidonArity {
		return nil, fmt.Errorf("arity %d: %w", arity, ErrUnsupportedArity)
	}
	c := &poseidonCache[arity]
	c.once.Do(func() { c.p, c.err = newPoseidonConstants(arity, standard) })
	return c.p, c.err
}

// Poseidon is LookupPoseidon for arities fixed in the code (Filecoin uses 2,
// 4, 8, 11, 16, 24 and 36). It panics on an unsupported arity.
func Poseidon(arity int) *PoseidonConstants {
	p, err := LookupPoseidon(arity)
	if err != nil {
		panic(err)
	}
	return p
}

func newPoseidonConstants(arity int, s strength) (*PoseidonConstants, error) {
	t := arity + 1
	rf, rp := roundNumbers(arity, s)
	p := &PoseidonConstants{
		Arity:          arity,
		Width:          t,
		FullRounds:     rf,
		HalfFullRounds: rf / 2,
		PartialRounds:  rp,
		RoundConstants: roundConstants(t, rf, rp),
		MDS:            cauchyMDS(t),
	}
	p.DomainTag.SetUint64(1<<uint(arity) - 1)
	var err error
	if p.MDSInverse, err = invert(p.MDS); err != nil {
		return nil, fmt.Errorf("poseidon arity %d: MDS: %w", arity, err)
	}
	p.CompressedRoundConstants = compressRoundConstants(t, rf, rp, p.RoundConstants, p.MDSInverse)
	if p.PreSparseMatrix, p.SparseMatrices, err = factorToSparse(p.MDS, rp); err != nil {
		return nil, fmt.Errorf("poseidon arity %d: %w", arity, err)
	}
	p.mdsCols = columns(p.MDS)
	p.preSparseCols = columns(p.PreSparseMatrix)
	return p, nil
}

func columns(m [][]fr.Element) []fr.Element {
	n := len(m)
	c := make([]fr.Element, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			c[j*n+i] = m[i][j]
		}
	}
	return c
}

// Hash returns the Poseidon digest of preimage, which must hold exactly Arity
// elements (it panics otherwise, as neptune does). It runs neptune's
// OptimizedStatic algorithm, the default native mode, and does not allocate.
func (p *PoseidonConstants) Hash(preimage []fr.Element) fr.Element {
	return p.hash(&p.DomainTag, preimage)
}

func (p *PoseidonConstants) hash(tag *fr.Element, preimage []fr.Element) fr.Element {
	if len(preimage) != p.Arity {
		panic(fmt.Sprintf("hash: Poseidon-%d needs %d elements, got %d", p.Arity, p.Arity, len(preimage)))
	}
	var buf, tmp [MaxPoseidonArity + 1]fr.Element
	t := p.Width
	s, scratch := buf[:t], tmp[:t]
	s[0] = *tag
	copy(s[1:], preimage)

	crc := p.CompressedRoundConstants
	for i := range s {
		s[i].Add(&s[i], &crc[i])
	}
	crc = crc[t:]

	// First half of the full rounds: S-box, then the next round's keys pulled
	// back through M^-1; the last of them mixes with the pre-sparse matrix.
	for r := 0; r < p.HalfFullRounds; r++ {
		for i := range s {
			sbox(&s[i])
			s[i].Add(&s[i], &crc[i])
		}
		crc = crc[t:]
		if r == p.HalfFullRounds-1 {
			mulCols(s, scratch, p.preSparseCols)
		} else {
			mulCols(s, scratch, p.mdsCols)
		}
	}
	for r := 0; r < p.PartialRounds; r++ {
		sbox(&s[0])
		s[0].Add(&s[0], &crc[r])
		mulSparse(s, &p.SparseMatrices[r])
	}
	crc = crc[p.PartialRounds:]
	for r := 1; r < p.HalfFullRounds; r++ {
		for i := range s {
			sbox(&s[i])
			s[i].Add(&s[i], &crc[i])
		}
		crc = crc[t:]
		mulCols(s, scratch, p.mdsCols)
	}
	// The last full round has no key after its S-boxes.
	for i := range s {
		sbox(&s[i])
	}
	mulCols(s, scratch, p.mdsCols)
	return s[1]
}

// HashCorrect computes the same digest with the plain algorithm (neptune
// poseidon_alt.rs hash_correct): every round adds its Width round constants,
// applies the S-box (to all elements in full rounds, to element 0 in partial
// rounds) and multiplies by the MDS matrix. It is the reference that Hash and
// the preprocessed constants are checked against.
func (p *PoseidonConstants) HashCorrect(preimage []fr.Element) fr.Element {
	return p.hashCorrect(&p.DomainTag, preimage)
}

func (p *PoseidonConstants) hashCorrect(tag *fr.Element, preimage []fr.Element) fr.Element {
	if len(preimage) != p.Arity {
		panic(fmt.Sprintf("hash: Poseidon-%d needs %d elements, got %d", p.Arity, p.Arity, len(preimage)))
	}
	var buf, tmp [MaxPoseidonArity + 1]fr.Element
	t := p.Width
	s, scratch := buf[:t], tmp[:t]
	s[0] = *tag
	copy(s[1:], preimage)

	rc := p.RoundConstants
	round := func(full bool) {
		for i := range s {
			s[i].Add(&s[i], &rc[i])
		}
		rc = rc[t:]
		if full {
			for i := range s {
				sbox(&s[i])
			}
		} else {
			sbox(&s[0])
		}
		mulCols(s, scratch, p.mdsCols)
	}
	for range p.HalfFullRounds {
		round(true)
	}
	for range p.PartialRounds {
		round(false)
	}
	for range p.HalfFullRounds {
		round(true)
	}
	return s[1]
}

// sbox sets x = x^5.
func sbox(x *fr.Element) {
	var x2 fr.Element
	x2.Square(x)
	x2.Square(&x2)
	x.Mul(x, &x2)
}

// minVectorWidth is where fr.Vector.InnerProduct starts to pay off: it
// reduces once per dot product on CPUs with AVX-512 (and is a plain loop
// elsewhere), but its call overhead loses on width 3.
const minVectorWidth = 5

// dot returns sum_i a[i]*b[i].
func dot(a, b []fr.Element) fr.Element {
	if len(a) >= minVectorWidth {
		v := fr.Vector(a)
		return v.InnerProduct(b[:len(a)])
	}
	var acc, prod fr.Element
	for i := range a {
		prod.Mul(&a[i], &b[i])
		acc.Add(&acc, &prod)
	}
	return acc
}

// mulCols sets s = s·M (row vector times matrix) where cols holds M column by
// column; scratch has len(s) elements.
func mulCols(s, scratch, cols []fr.Element) {
	t := len(s)
	for j := range scratch {
		scratch[j] = dot(s, cols[j*t:j*t+t])
	}
	copy(s, scratch)
}

// mulSparse sets s = s·M″ for a sparse partial-round matrix.
func mulSparse(s []fr.Element, m *SparseMatrix) {
	acc := dot(s, m.WHat)
	var prod fr.Element
	s0 := s[0]
	for j := 1; j < len(s); j++ {
		prod.Mul(&s0, &m.VRest[j-1])
		s[j].Add(&s[j], &prod)
	}
	s[0] = acc
}
