package gadgets

import (
	"fmt"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// The gadgets of storage-proofs-update src/gadgets.rs (rust-fil-proofs
// 19.0.1) and storage-proofs-core gadgets/por.rs por_no_challenge_input,
// which the EmptySectorUpdate circuit is built from.

// NumToAllocatedBits is storage-proofs-update allocated_num_to_allocated_bits:
// the 255 bits of x, least significant first, each an AllocatedBit with its
// boolean row (field_into_allocated_bits_le), then one packing row
// (Σ 2^i·b_i)·(ONE) = (x). The decomposition is not strict, as upstream. It
// differs from AllocatedNum.ToBitsLE only in that last row, which there is
// (0)·(0) = (Σ 2^i·b_i − x). The bits are appended to dst.
func NumToAllocatedBits(cs *r1cs.CS, dst []AllocatedBit, x AllocatedNum) []AllocatedBit {
	start := len(dst)
	limbs := x.Val.Bits()
	for i := 0; i < NumBits; i++ {
		dst = append(dst, AllocBit(cs, limbs[i/64]>>(uint(i)%64)&1 == 1))
	}
	bs := dst[start:]
	v := x.V
	cs.Enforce(func(a, b, c *r1cs.LC) {
		for i := range bs {
			a.AddScaled(&pow2[i], bs[i].v)
		}
		b.AddOne()
		c.Add(v)
	})
	return dst
}

// Booleans appends Is(b) for every bit to dst (Boolean::from(AllocatedBit)).
func Booleans(dst []Boolean, bs []AllocatedBit) []Boolean {
	for _, b := range bs {
		dst = append(dst, b.Boolean())
	}
	return dst
}

// ChallengeDigests is the number of digests gen_challenge_bits hashes for
// challenges challenges of bitsPerChallenge bits each: ⌈challenges /
// ⌊254/bitsPerChallenge⌋⌉.
func ChallengeDigests(challenges, bitsPerChallenge int) int {
	per := Capacity / bitsPerChallenge
	return (challenges + per - 1) / per
}

// GenChallengeBits is storage-proofs-update gen_challenge_bits. With
// D = ChallengeDigests(challenges, bitsPerChallenge), for each digest
// j = 0..D−1 (568 rows each):
//
//  1. alloc digest_index = k·D + j, k the partition's value;
//     (D·partition + j·ONE)·(ONE) = (digest_index);
//  2. digest = PoseidonGenRandomness(commRNew, digest_index) (311 rows);
//  3. NumToAllocatedBits(digest) (256 rows);
//  4. the digest's bits, cut into chunks of bitsPerChallenge from the least
//     significant end, give ⌊254/bitsPerChallenge⌋ challenges (fewer from the
//     last digest, to make challenges in all).
//
// Each challenge's bits are least significant first; they are views of the
// digest bits (no rows of their own).
func GenChallengeBits(cs *r1cs.CS, commRNew, partition AllocatedNum, challenges, bitsPerChallenge int) ([][]AllocatedBit, error) {
	if bitsPerChallenge < 1 || bitsPerChallenge > Capacity || challenges < 1 {
		return nil, fmt.Errorf("gen_challenge_bits: %d challenges of %d bits: %w", challenges, bitsPerChallenge, ErrArity)
	}
	perDigest := Capacity / bitsPerChallenge
	digests := ChallengeDigests(challenges, bitsPerChallenge)
	out := make([][]AllocatedBit, 0, challenges)
	var d fr.Element
	d.SetUint64(uint64(digests))
	for j := 0; j < digests; j++ {
		var jv, idx fr.Element
		jv.SetUint64(uint64(j))
		idx.Mul(&partition.Val, &d)
		idx.Add(&idx, &jv)
		cs.PushIdx("digest", j)
		index := AllocNum(cs, idx)
		pv, iv := partition.V, index.V
		cs.Enforce(func(a, b, c *r1cs.LC) {
			a.AddScaled(&d, pv).AddConst(&jv)
			b.AddOne()
			c.Add(iv)
		})
		digest := PoseidonGenRandomness(cs, commRNew, index)
		dbits := NumToAllocatedBits(cs, make([]AllocatedBit, 0, NumBits), digest)
		cs.Pop()
		take := perDigest
		if j == digests-1 {
			take = challenges - len(out)
		}
		for c := 0; c < take; c++ {
			out = append(out, dbits[c*bitsPerChallenge:(c+1)*bitsPerChallenge:(c+1)*bitsPerChallenge])
		}
	}
	return out, nil
}

// ChallengeHighBits is storage-proofs-update get_challenge_high_bits: the h
// most significant of the challenge bits cBits (least significant first),
// h = hs[i] chosen by hSelect, which has exactly one bit set (bit i). For
// each k: c_high = PackBits(the top hs[k] bits of cBits) (1 row); alloc
// c_high_or_zero = hSelect[k] ? c_high : 0; (c_high)·(hSelect[k]) =
// (c_high_or_zero). Then alloc the sum of the c_high_or_zero and
// (Σ c_high_or_zero)·(ONE) = (sum): 2·len(hs) + 1 rows.
func ChallengeHighBits(cs *r1cs.CS, cBits, hSelect []AllocatedBit, hs []int) (AllocatedNum, error) {
	if len(hSelect) != len(hs) {
		return AllocatedNum{}, fmt.Errorf("get_challenge_high_bits: %d h-select bits for %d h values: %w", len(hSelect), len(hs), ErrArity)
	}
	var buf [8]r1cs.Variable
	scaled := buf[:0]
	var bools [Capacity]Boolean
	var sum fr.Element
	for k, h := range hs {
		if h < 1 || h > len(cBits) {
			return AllocatedNum{}, fmt.Errorf("get_challenge_high_bits: h = %d of %d challenge bits: %w", h, len(cBits), ErrArity)
		}
		hb := Booleans(bools[:0], cBits[len(cBits)-h:])
		high := PackBits(cs, hb)
		var val fr.Element
		if hSelect[k].val {
			val = high.Val
		}
		sum.Add(&sum, &val)
		v := cs.Alloc(val)
		hv, sv := high.V, hSelect[k].v
		cs.Enforce(func(a, b, c *r1cs.LC) { a.Add(hv); b.Add(sv); c.Add(v) })
		scaled = append(scaled, v)
	}
	s := cs.Alloc(sum)
	cs.Enforce(func(a, b, c *r1cs.LC) {
		for _, v := range scaled {
			a.Add(v)
		}
		b.AddOne()
		c.Add(s)
	})
	return AllocatedNum{V: s, Val: sum}, nil
}

// LabelRNew is storage-proofs-update label_r_new, the encoding of one node:
// label_r_new = label_r_old + label_d_new·ρ as Mul (alloc, (d)·(ρ) = (dρ))
// then alloc r; (r_old + dρ)·(ONE) = (r), which is Add's row.
func LabelRNew(cs *r1cs.CS, rOld, dNew, rho AllocatedNum) AllocatedNum {
	return Add(cs, rOld, dNew.Mul(cs, rho))
}

// PoRNoChallenge is storage-proofs-core por_no_challenge_input: a Merkle
// inclusion proof whose insertion indices are bits the caller already has
// (the challenge's bits, least significant first) and whose siblings the
// caller has already allocated. For every level (base levels, then sub,
// then top): Insert(cur, log2(arity) challenge bits, siblings), then the
// hasher over the arity numbers; finally (computed root)·(ONE) = (root).
// Nothing is allocated besides what Insert and the hasher allocate, and no
// public input is made. It keeps scratch space: reuse one per goroutine.
type PoRNoChallenge struct {
	Shape  merkle.Shape
	Hasher NodeHasher

	nums    []AllocatedNum
	bools   []Boolean
	arities []int
}

// Synthesize proves that leaf sits under root at the position given by
// challengeBits. The bits must be exactly as many as the path's levels
// consume, and every level must have arity−1 siblings; otherwise it
// returns ErrPathShape (upstream asserts).
func (p *PoRNoChallenge) Synthesize(cs *r1cs.CS, challengeBits []AllocatedBit, leaf AllocatedNum, path [][]AllocatedNum, root AllocatedNum) error {
	if err := p.Shape.Validate(); err != nil {
		return fmt.Errorf("por: %w: %w", ErrArity, err)
	}
	var err error
	if p.arities, err = p.Shape.AppendPathArities(p.arities[:0], len(path)); err != nil {
		return fmt.Errorf("por: %w: %w", ErrPathShape, err)
	}
	need := 0
	for l, sib := range path {
		a := p.arities[l]
		if len(sib) != a-1 {
			return fmt.Errorf("level %d has %d siblings, arity %d: %w", l, len(sib), a, ErrPathShape)
		}
		need += bits.TrailingZeros(uint(a))
	}
	if need != len(challengeBits) {
		return fmt.Errorf("%d challenge bits for a path consuming %d: %w", len(challengeBits), need, ErrPathShape)
	}
	p.bools = Booleans(p.bools[:0], challengeBits)
	cur := leaf
	used := 0
	for l, sib := range path {
		n := bits.TrailingZeros(uint(p.arities[l]))
		cs.PushIdx("merkle proof", l)
		p.nums, err = Insert(cs, p.nums[:0], cur, p.bools[used:used+n], sib)
		if err == nil {
			cur, err = p.Hasher.HashNodes(cs, p.nums)
		}
		cs.Pop()
		if err != nil {
			return fmt.Errorf("por level %d: %w", l, err)
		}
		used += n
	}
	Equal(cs, cur, root)
	return nil
}

// ApexPoR is storage-proofs-update apex_por: the partition's apex tree is
// built over apexLeafs (a power of two of them) with the SHA-254 Hash2
// (len(apexLeafs)−1 hashes, row by row, left to right), and its root is
// proven under commD by PoRNoChallenge over a binary SHA-254 tree with
// partitionBits (least significant first) and partitionPath (one allocated
// sibling per level). sha and por are scratch space.
func ApexPoR(cs *r1cs.CS, sha *Sha254Hasher, por *PoRNoChallenge, apexLeafs []AllocatedNum, partitionBits []AllocatedBit, partitionPath [][]AllocatedNum, commD AllocatedNum) error {
	n := len(apexLeafs)
	if n == 0 || n&(n-1) != 0 {
		return fmt.Errorf("apex tree over %d leafs: %w", n, ErrPathShape)
	}
	row := append([]AllocatedNum(nil), apexLeafs...)
	for level := 0; len(row) > 1; level++ {
		cs.PushIdx("apex tree row", level)
		for i := 0; i < len(row)/2; i++ {
			row[i] = sha.Hash2(cs, row[2*i], row[2*i+1])
		}
		cs.Pop()
		row = row[:len(row)/2]
	}
	por.Shape = merkle.Shape{Base: 2}
	por.Hasher = sha
	cs.Push("partition-tree por")
	defer cs.Pop()
	return por.Synthesize(cs, partitionBits, row[0], partitionPath, commD)
}
