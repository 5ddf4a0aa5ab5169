//go:build ignore

// gen writes kernels_amd64.s: the AVX-512 IFMA kernels of package ifma.
// Run it with `go generate ./internal/ifma` (TestGeneratedUpToDate checks
// that the committed file is its output). Every kernel is a leaf function
// (ABI0, NOSPLIT) that touches only its arguments' memory and its own
// stack frame, takes its constants as immediates, and so runs unchanged
// under the emulator of internal/kernelemu.
//
// Field elements are 8 lanes × 8 limbs of 52 bits, limb-major (type Fp8):
// one ZMM register holds limb k of 8 elements. The integers are
// gnark-crypto's Montgomery form (x·2^384 mod p), so the conversions are
// radix changes, and the multiplication reduces by 2^384 exactly: seven
// 52-bit Montgomery rounds and one of 20 bits (7·52 + 20 = 384).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"math/big"
	"os"
	"strings"
)

var out = flag.String("out", "kernels_amd64.s", "output file (- for stdout)")

// p is BLS12-381's base field modulus.
var p, _ = new(big.Int).SetString("1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab", 16)

const (
	mask52 = 1<<52 - 1
	mask20 = 1<<20 - 1
)

// limbs52 is x in radix 2^52, 8 limbs.
func limbs52(x *big.Int) [8]uint64 {
	var l [8]uint64
	t := new(big.Int).Set(x)
	m := big.NewInt(mask52)
	for k := range l {
		l[k] = new(big.Int).And(t, m).Uint64()
		t.Rsh(t, 52)
	}
	return l
}

// rMod is BLS12-381's scalar field modulus.
var rMod, _ = new(big.Int).SetString("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", 16)

// field is what the Montgomery code needs of a modulus: its radix-2^52
// limbs, −modulus⁻¹ mod 2^52, and the bits of the last round (the rounds
// divide by 2^(52·(limbs−1) + last) = gnark-crypto's R: 2^384 for fp,
// 2^256 for fr).
type field struct {
	limbs []uint64
	inv   uint64
	last  int
}

func newField(m *big.Int, nl, last int) field {
	l := limbs52(m)
	r := new(big.Int).Lsh(big.NewInt(1), 52)
	inv := new(big.Int).ModInverse(m, r)
	inv.Sub(r, inv)
	return field{limbs: l[:nl], inv: inv.Uint64(), last: last}
}

var (
	fpF = newField(p, 8, 20)    // 7·52 + 20 = 384
	frF = newField(rMod, 5, 48) // 4·52 + 48 = 256
	q   = fpF.limbs
)

type gen struct {
	buf   bytes.Buffer
	count map[string]int // instructions per kernel section, for the docs
	label int
}

func (g *gen) ins(format string, a ...any) { fmt.Fprintf(&g.buf, "\t"+format+"\n", a...) }
func (g *gen) raw(s string)                { g.buf.WriteString(s) }
func (g *gen) comment(s string)            { fmt.Fprintf(&g.buf, "\n\t// %s\n", s) }

func z(i int) string { return fmt.Sprintf("Z%d", i) }

// Stack frame of every field kernel: q's limbs (broadcast operands).
const (
	frameQ    = 0
	frameSize = 64
)

func qOp(k int) string { return fmt.Sprintf("%d(SP)", frameQ+8*k) }

// prologue stores the constants every kernel reads from its frame and
// loads the broadcast registers.
func (g *gen) prologue() { g.prologueOf(fpF) }

func (g *gen) prologueOf(f field) {
	for k, l := range f.limbs {
		g.ins("MOVQ $0x%x, AX", l)
		g.ins("MOVQ AX, %s", qOp(k))
	}
	g.ins("MOVQ $0x%x, AX", uint64(mask52))
	g.ins("VPBROADCASTQ AX, %s", rMask)
}

// Registers shared by the kernels.
const (
	rMask   = "Z31" // 2^52 − 1
	rQInv   = "Z30" // −p⁻¹ mod 2^52
	rC32    = "Z29" // 2^(52 − last): 2^32 for fp
	rMask20 = "Z28" // 2^last − 1: 2^20 − 1 for fp
	rTmp    = "Z27"
)

// mulConsts loads the multiplication's broadcast constants.
func (g *gen) mulConsts() { g.mulConstsOf(fpF) }

func (g *gen) mulConstsOf(f field) {
	g.ins("MOVQ $0x%x, AX", f.inv)
	g.ins("VPBROADCASTQ AX, %s", rQInv)
	g.ins("MOVQ $0x%x, AX", uint64(1)<<(52-f.last))
	g.ins("VPBROADCASTQ AX, %s", rC32)
	g.ins("MOVQ $0x%x, AX", uint64(1)<<f.last-1)
	g.ins("VPBROADCASTQ AX, %s", rMask20)
}

// mont emits the Montgomery product over fp (see montOf).
func (g *gen) mont(a [8]string, bLimb func(j int) string, t [9]string, bj, m string, out [8]string) {
	g.montOf(fpF, a[:], bLimb, t[:], bj, m, out[:])
}

// montOf emits the Montgomery product of a (nl registers) and b (nl limbs
// read by bLimb(j), a register or a memory operand), reduced by f's R
// exactly, normalised and fully reduced into out (nl registers; may be
// a's). t must be nl+1 free registers, bj and m two more.
//
// Contract: a·b < modulus·R (e.g. both below the modulus, or one below it
// and the other any value of nl 52-bit limbs below R); the result is
// canonical.
func (g *gen) montOf(f field, a []string, bLimb func(j int) string, t []string, bj, m string, out []string) {
	nl := len(f.limbs)
	t = append([]string(nil), t...)
	for _, r := range t {
		g.ins("VPXORQ %s, %s, %s", r, r, r)
	}
	for j := 0; j < nl; j++ {
		src := bLimb(j)
		if !strings.HasPrefix(src, "Z") {
			g.ins("VMOVDQU64 %s, %s", src, bj)
			src = bj
		}
		for k := 0; k < nl; k++ {
			g.ins("VPMADD52LUQ %s, %s, %s", src, a[k], t[k])
			g.ins("VPMADD52HUQ %s, %s, %s", src, a[k], t[k+1])
		}
		// m = t0·(−q⁻¹) mod 2^52 (mod 2^last in the last round), then
		// t += m·q: t0 becomes ≡ 0 mod 2^52 (2^last).
		g.ins("VPXORQ %s, %s, %s", m, m, m)
		g.ins("VPMADD52LUQ %s, %s, %s", rQInv, t[0], m)
		if j == nl-1 {
			g.ins("VPANDQ %s, %s, %s", rMask20, m, m)
		}
		for k := 0; k < nl; k++ {
			g.ins("VPMADD52LUQ.BCST %s, %s, %s", qOp(k), m, t[k])
			g.ins("VPMADD52HUQ.BCST %s, %s, %s", qOp(k), m, t[k+1])
		}
		if j < nl-1 {
			// Divide by 2^52: t0's carry into t1, then the limbs move
			// down one register (renamed, not copied).
			g.ins("VPSRLQ $52, %s, %s", t[0], rTmp)
			g.ins("VPADDQ %s, %s, %s", rTmp, t[1], t[1])
			old := t[0]
			copy(t, t[1:])
			t[nl] = old
			g.ins("VPXORQ %s, %s, %s", old, old, old)
		}
	}
	// Divide by 2^last: limb k becomes (t_k >> last) + (t_{k+1} mod
	// 2^last)·2^(52−last), the second term as the low half of an IFMA by
	// 2^(52−last) (it reads only t_{k+1}'s low 52 bits, of which the low
	// `last` matter). The top register's quotient is 0: the result is
	// below twice the modulus, far below 2^(52·nl).
	for k := 0; k < nl; k++ {
		g.ins("VPSRLQ $%d, %s, %s", f.last, t[k], t[k])
		g.ins("VPMADD52LUQ %s, %s, %s", rC32, t[k+1], t[k])
	}
	g.normalise(t[:nl])
	g.reduceOnceOf(f, t[:nl], out)
}

// normalise propagates carries so that limbs 0..6 are below 2^52.
func (g *gen) normalise(l []string) {
	for k := 0; k < len(l)-1; k++ {
		g.ins("VPSRLQ $52, %s, %s", l[k], rTmp)
		g.ins("VPANDQ %s, %s, %s", rMask, l[k], l[k])
		g.ins("VPADDQ %s, %s, %s", rTmp, l[k+1], l[k+1])
	}
}

// borrows propagates signed borrows (arithmetic shifts): limbs 0..6 end
// in [0, 2^52), the sign of the value in limb 7.
func (g *gen) borrows(l []string) {
	for k := 0; k < len(l)-1; k++ {
		g.ins("VPSRAQ $52, %s, %s", l[k], rTmp)
		g.ins("VPANDQ %s, %s, %s", rMask, l[k], l[k])
		g.ins("VPADDQ %s, %s, %s", rTmp, l[k+1], l[k+1])
	}
}

// reduceOnce sets out to x − p if that is not negative, else x, for a
// normalised x < 2p (out may alias nothing of x).
func (g *gen) reduceOnce(x []string, out [8]string) { g.reduceOnceOf(fpF, x, out[:]) }

func (g *gen) reduceOnceOf(f field, x []string, out []string) {
	nl := len(f.limbs)
	for k := 0; k < nl; k++ {
		g.ins("VPSUBQ.BCST %s, %s, %s", qOp(k), x[k], out[k])
	}
	g.borrows(out[:nl])
	g.ins("VPMOVQ2M %s, K1", out[nl-1]) // lanes where x < q
	for k := 0; k < nl; k++ {
		g.ins("VPBLENDMQ %s, %s, K1, %s", x[k], out[k], out[k])
	}
}

func limbOff(base string, k int) string { return fmt.Sprintf("%d(%s)", 64*k, base) }

func regs(from, n int) []string {
	r := make([]string, n)
	for i := range r {
		r[i] = z(from + i)
	}
	return r
}

func r8(from int) [8]string { return [8]string(regs(from, 8)) }
func r9(from int) [9]string { return [9]string(regs(from, 9)) }

// loop emits a loop over CX groups; body advances the pointers.
func (g *gen) loop(name string, body func()) {
	g.label++
	l := fmt.Sprintf("%s_loop", name)
	g.ins("TESTQ CX, CX")
	g.ins("JZ %s_done", name)
	g.raw(l + ":\n")
	body()
	g.ins("DECQ CX")
	g.ins("JNZ %s", l)
	g.raw(name + "_done:\n")
	g.ins("VZEROUPPER")
	g.ins("RET")
}

func (g *gen) header(name, sig string, args int) {
	fmt.Fprintf(&g.buf, "\n// %s\nTEXT ·%s(SB), NOSPLIT, $%d-%d\n", sig, name, frameSize, 8*args)
}

// fpMul: z[i] = x[i]·y[i]·2^-384 mod p for n groups.
func (g *gen) fpMul() {
	g.header("fpMul", "func fpMul(z, x, y *Fp8, n int)", 4)
	g.ins("MOVQ z+0(FP), DI")
	g.ins("MOVQ x+8(FP), SI")
	g.ins("MOVQ y+16(FP), BX")
	g.ins("MOVQ n+24(FP), CX")
	g.prologue()
	g.mulConsts()
	g.loop("fpMul", func() {
		a := r8(0)
		for k := range a {
			g.ins("VMOVDQU64 %s, %s", limbOff("SI", k), a[k])
		}
		out := a // a is free once the last product is summed
		g.mont(a, func(j int) string { return limbOff("BX", j) }, r9(8), "Z17", "Z18", out)
		for k := range out {
			g.ins("VMOVDQU64 %s, %s", out[k], limbOff("DI", k))
		}
		g.ins("ADDQ $512, SI")
		g.ins("ADDQ $512, BX")
		g.ins("ADDQ $512, DI")
	})
}

// fpAdd: z = x + y mod p (canonical in, canonical out).
func (g *gen) fpAdd() {
	g.header("fpAdd", "func fpAdd(z, x, y *Fp8, n int)", 4)
	g.ins("MOVQ z+0(FP), DI")
	g.ins("MOVQ x+8(FP), SI")
	g.ins("MOVQ y+16(FP), BX")
	g.ins("MOVQ n+24(FP), CX")
	g.prologue()
	g.loop("fpAdd", func() {
		s, d := r8(0), r8(8)
		for k := range s {
			g.ins("VMOVDQU64 %s, %s", limbOff("SI", k), s[k])
			g.ins("VPADDQ %s, %s, %s", limbOff("BX", k), s[k], s[k])
		}
		g.normalise(s[:])
		g.reduceOnce(s[:], d)
		for k := range d {
			g.ins("VMOVDQU64 %s, %s", d[k], limbOff("DI", k))
		}
		g.ins("ADDQ $512, SI")
		g.ins("ADDQ $512, BX")
		g.ins("ADDQ $512, DI")
	})
}

// sub emits d = x − y mod p into d for canonical x, y in registers.
func (g *gen) sub(d [8]string) { g.subOf(fpF, d[:]) }

// subOf finishes d = x − y mod q, d holding the limb-wise differences of
// canonical x and y.
func (g *gen) subOf(f field, d []string) {
	nl := len(f.limbs)
	g.borrows(d[:nl])
	g.ins("VPMOVQ2M %s, K1", d[nl-1]) // lanes where x < y: add q
	for k := 0; k < nl; k++ {
		g.ins("VPADDQ.BCST %s, %s, K1, %s", qOp(k), d[k], d[k])
	}
	g.normalise(d[:nl])
}

// fpSub: z = x − y mod p.
func (g *gen) fpSub() {
	g.header("fpSub", "func fpSub(z, x, y *Fp8, n int)", 4)
	g.ins("MOVQ z+0(FP), DI")
	g.ins("MOVQ x+8(FP), SI")
	g.ins("MOVQ y+16(FP), BX")
	g.ins("MOVQ n+24(FP), CX")
	g.prologue()
	g.loop("fpSub", func() {
		d := r8(0)
		for k := range d {
			g.ins("VMOVDQU64 %s, %s", limbOff("SI", k), d[k])
			g.ins("VPSUBQ %s, %s, %s", limbOff("BX", k), d[k], d[k])
		}
		g.sub(d)
		for k := range d {
			g.ins("VMOVDQU64 %s, %s", d[k], limbOff("DI", k))
		}
		g.ins("ADDQ $512, SI")
		g.ins("ADDQ $512, BX")
		g.ins("ADDQ $512, DI")
	})
}

// transpose8 transposes the 8×8 matrix of qwords in rows (row e = the
// 64-bit words of element e) into cols (col w = word w of the 8
// elements), using tmp; only the first ncols columns are produced. The
// same code transposes back. rows is overwritten.
func (g *gen) transpose8(rows, tmp, cols [8]string, ncols int) {
	for i := 0; i < 8; i += 2 {
		g.ins("VPUNPCKLQDQ %s, %s, %s", rows[i+1], rows[i], tmp[i])   // words 0,2,4,6 of rows i, i+1
		g.ins("VPUNPCKHQDQ %s, %s, %s", rows[i+1], rows[i], tmp[i+1]) // words 1,3,5,7
	}
	// u[0]: words 0,4 of rows 0–3; u[1]: 2,6; u[2]: 1,5; u[3]: 3,7; u[4..7] the same of rows 4–7.
	u := rows
	for h := 0; h < 2; h++ {
		t0, t1, t2, t3 := tmp[4*h], tmp[4*h+1], tmp[4*h+2], tmp[4*h+3]
		g.ins("VSHUFI64X2 $0x88, %s, %s, %s", t2, t0, u[4*h])
		g.ins("VSHUFI64X2 $0xDD, %s, %s, %s", t2, t0, u[4*h+1])
		g.ins("VSHUFI64X2 $0x88, %s, %s, %s", t3, t1, u[4*h+2])
		g.ins("VSHUFI64X2 $0xDD, %s, %s, %s", t3, t1, u[4*h+3])
	}
	// Column w from the pair of u holding it, low (0x88) or high (0xDD) half.
	src := [8]struct {
		u   int
		imm string
	}{{0, "0x88"}, {2, "0x88"}, {1, "0x88"}, {3, "0x88"}, {0, "0xDD"}, {2, "0xDD"}, {1, "0xDD"}, {3, "0xDD"}}
	for w := 0; w < ncols; w++ {
		g.ins("VSHUFI64X2 $%s, %s, %s, %s", src[w].imm, u[4+src[w].u], u[src[w].u], cols[w])
	}
}

// Element strides: R8 holds it in bytes, K2 the six words of an element.
func (g *gen) strideSetup() {
	g.ins("SHLQ $3, R8")
	g.ins("MOVQ $0x3f, AX")
	g.ins("KMOVB AX, K2")
}

// to52 converts six 64-bit words (w) to eight 52-bit limbs (l).
func (g *gen) to52(w [6]string, l [8]string, t string) {
	type part struct{ w, shr, shl int } // limb = (w[w] >> shr | w[w+1] << shl) & mask
	parts := [8]part{{0, 0, -1}, {0, 52, 12}, {1, 40, 24}, {2, 28, 36}, {3, 16, 48}, {4, 4, -1}, {4, 56, 8}, {5, 44, -1}}
	for k, pt := range parts {
		if pt.shr == 0 {
			g.ins("VPANDQ %s, %s, %s", rMask, w[pt.w], l[k])
			continue
		}
		g.ins("VPSRLQ $%d, %s, %s", pt.shr, w[pt.w], l[k])
		if pt.shl >= 0 {
			g.ins("VPSLLQ $%d, %s, %s", pt.shl, w[pt.w+1], t)
			g.ins("VPORQ %s, %s, %s", t, l[k], l[k])
		}
		if k != 7 {
			g.ins("VPANDQ %s, %s, %s", rMask, l[k], l[k])
		}
	}
}

// to64 converts eight normalised limbs (value < 2^384) to six words.
func (g *gen) to64(l [8]string, w [6]string, t string) {
	type term struct{ l, shift int } // >0: left shift, <0: right shift
	words := [6][]term{
		{{0, 0}, {1, 52}},
		{{1, -12}, {2, 40}},
		{{2, -24}, {3, 28}},
		{{3, -36}, {4, 16}},
		{{4, -48}, {5, 4}, {6, 56}},
		{{6, -8}, {7, 44}},
	}
	for i, terms := range words {
		for j, tm := range terms {
			dst := w[i]
			if j > 0 {
				dst = t
			}
			switch {
			case tm.shift == 0:
				g.ins("VMOVDQA64 %s, %s", l[tm.l], dst)
			case tm.shift > 0:
				g.ins("VPSLLQ $%d, %s, %s", tm.shift, l[tm.l], dst)
			default:
				g.ins("VPSRLQ $%d, %s, %s", -tm.shift, l[tm.l], dst)
			}
			if j > 0 {
				g.ins("VPORQ %s, %s, %s", t, w[i], w[i])
			}
		}
	}
}

// fpFrom64: z[g] lane l = src element 8g+l, elements stride qwords apart.
func (g *gen) fpFrom64() {
	g.header("fpFrom64", "func fpFrom64(z *Fp8, src *fp.Element, stride, n int)", 4)
	g.ins("MOVQ z+0(FP), DI")
	g.ins("MOVQ src+8(FP), SI")
	g.ins("MOVQ stride+16(FP), R8")
	g.ins("MOVQ n+24(FP), CX")
	g.strideSetup()
	g.ins("MOVQ $0x%x, AX", uint64(mask52))
	g.ins("VPBROADCASTQ AX, %s", rMask)
	g.loop("fpFrom64", func() {
		rows := r8(0)
		for e := range rows {
			g.ins("VMOVDQU64.Z (SI), K2, %s", rows[e])
			g.ins("ADDQ R8, SI")
		}
		w := r8(16)
		g.transpose8(rows, r8(8), w, 6)
		l := r8(0)
		g.to52([6]string(w[:6]), l, rTmp)
		for k := range l {
			g.ins("VMOVDQU64 %s, %s", l[k], limbOff("DI", k))
		}
		g.ins("ADDQ $512, DI")
	})
}

// fpTo64: dst element 8g+l (stride qwords apart) = x[g] lane l, for
// canonical, normalised x. Only the six words of each element are written.
func (g *gen) fpTo64() {
	g.header("fpTo64", "func fpTo64(dst *fp.Element, x *Fp8, stride, n int)", 4)
	g.ins("MOVQ dst+0(FP), DI")
	g.ins("MOVQ x+8(FP), SI")
	g.ins("MOVQ stride+16(FP), R8")
	g.ins("MOVQ n+24(FP), CX")
	g.strideSetup()
	g.loop("fpTo64", func() {
		l := r8(0)
		for k := range l {
			g.ins("VMOVDQU64 %s, %s", limbOff("SI", k), l[k])
		}
		w := r8(8)
		g.to64(l, [6]string(w[:6]), rTmp)
		rows := r8(16)
		g.transpose8(w, r8(0), rows, 8)
		for e := range rows {
			g.ins("VMOVDQU64 %s, K2, (DI)", rows[e])
			g.ins("ADDQ R8, DI")
		}
		g.ins("ADDQ $512, SI")
	})
}

// The batch-affine addition kernels of G1 and G2, from one template over
// the coordinates' field: fp for G1, fp2 = fp[u]/(u² + 1) for G2 (an
// element two Fp8, a0 then a1). A batch is n groups of 8 entries
// acc += ±q, acc and q being *bls.G1Affine or *bls.G2Affine
// (gnark-crypto's form: X then Y, each a coordinate of deg fp elements of
// six words), reached through arrays of 8n pointers; the arithmetic
// follows Montgomery's trick with one chain per lane:
//
//	forward:  den = q.x − acc.x; pre[g] = run; run *= den
//	(Go inverts the 8 lanes' runs with one scalar inversion)
//	backward: di = inv·pre[g]; inv *= den; λ = (±q.y − acc.y)·di;
//	          x3 = λ² − acc.x − q.x; y3 = λ(acc.x − x3) − acc.y
//
// A lane whose den is 0 (acc = ±q) is marked in zero[g], counts as den = 1
// in the chain, and is left unwritten for Go's complete formula. One fp2
// product is three fp products (Karatsuba), a square two: a G2 addition
// costs 17 fp products, a G1 one 6.

// group is what the batch kernels need of a curve group: its name (the
// kernels' and Go types' prefix), the degree of its coordinates over fp,
// and the lines of a point that the passes prefetch: all of it (forward),
// its Y coordinate (backward).
type group struct {
	name       string
	deg        int
	pointLines []int
	yLines     []int
}

var (
	g1 = group{name: "g1", deg: 1, pointLines: []int{0, 48, 95}, yLines: []int{48, 95}}
	g2 = group{name: "g2", deg: 2, pointLines: []int{0, 64, 128, 191}, yLines: []int{96, 128, 191}}
)

// elem is the bytes of one coordinate of 8 lanes (deg Fp8).
func (c group) elem() int { return 512 * c.deg }

// grp is slot i of the per-group record at R11 (gGroup: ax, qx, den, pre).
func (c group) grp(i int) loc { return loc{i * c.elem(), "R11"} }

// work is slot i of the working set at R13 (gWork: run, di, ay, qy, lam,
// t), and tmp the fp temporaries of the fp2 product after it (t0 … sb).
func (c group) work(i int) loc { return loc{i * c.elem(), "R13"} }
func (c group) tmp(i int) loc  { return loc{6*c.elem() + 512*i, "R13"} }

func (c group) groupSize() int { return 4 * c.elem() }

// y is the byte offset of component i of a point's Y coordinate.
func (c group) y(i int) int { return 48*c.deg + 48*i }

// loadFp loads an Fp8 at mem (a "off(REG)" base) into regs.
func (g *gen) loadFp(off int, base string, r [8]string) {
	for k := range r {
		g.ins("VMOVDQU64 %d(%s), %s", off+64*k, base, r[k])
	}
}

func (g *gen) storeFp(r [8]string, off int, base string) {
	for k := range r {
		g.ins("VMOVDQU64 %s, %d(%s)", r[k], off+64*k, base)
	}
}

// montMem: out(mem) = a(mem)·b(mem), through Z0–Z18.
func (g *gen) montMem(outOff int, outBase string, aOff int, aBase string, bOff int, bBase string) {
	a := r8(0)
	g.loadFp(aOff, aBase, a)
	g.mont(a, func(j int) string { return fmt.Sprintf("%d(%s)", bOff+64*j, bBase) }, r9(8), "Z17", "Z18", a)
	g.storeFp(a, outOff, outBase)
}

// subMem: out(mem) = x(mem) − y(mem), through Z0–Z7.
func (g *gen) subMem(outOff int, outBase string, xOff int, xBase string, yOff int, yBase string) {
	d := r8(0)
	for k := range d {
		g.ins("VMOVDQU64 %d(%s), %s", xOff+64*k, xBase, d[k])
		g.ins("VPSUBQ %d(%s), %s, %s", yOff+64*k, yBase, d[k], d[k])
	}
	g.sub(d)
	g.storeFp(d, outOff, outBase)
}

// addMem: out(mem) = x(mem) + y(mem) mod p, through Z0–Z15.
func (g *gen) addMem(outOff int, outBase string, xOff int, xBase string, yOff int, yBase string) {
	s, d := r8(0), r8(8)
	for k := range s {
		g.ins("VMOVDQU64 %d(%s), %s", xOff+64*k, xBase, s[k])
		g.ins("VPADDQ %d(%s), %s, %s", yOff+64*k, yBase, s[k], s[k])
	}
	g.normalise(s[:])
	g.reduceOnce(s[:], d)
	g.storeFp(d, outOff, outBase)
}

// gatherCoord loads coordinate off (0: X, 48: Y) of the 8 points whose
// pointers are at (ptrs) into Z0–Z7 as limbs (K2 = six words).
func (g *gen) gatherCoord(ptrs string, off int) {
	rows := r8(0)
	for e := range rows {
		g.ins("MOVQ %d(%s), AX", 8*e, ptrs)
		g.ins("VMOVDQU64.Z %d(AX), K2, %s", off, rows[e])
	}
	g.transpose8(rows, r8(8), r8(16), 6)
	g.to52([6]string(regs(16, 6)), r8(0), rTmp)
}

// scatterCoord stores the limbs in Z0–Z7 as coordinate off of the 8
// points at (ptrs), skipping the lanes set in the byte at skip.
func (g *gen) scatterCoord(ptrs string, off int, skip string) {
	g.to64(r8(0), [6]string(regs(8, 6)), rTmp)
	g.transpose8(r8(8), r8(0), r8(16), 8)
	g.ins("MOVBQZX %s, DX", skip)
	g.ins("NOTQ DX")
	for e := 0; e < 8; e++ {
		// K3 = the six words, or nothing for a skipped lane.
		g.ins("MOVQ DX, BX")
		g.ins("SHRQ $%d, BX", e)
		g.ins("ANDQ $1, BX")
		g.ins("NEGQ BX")
		g.ins("ANDQ $0x3f, BX")
		g.ins("KMOVB BX, K3")
		g.ins("MOVQ %d(%s), AX", 8*e, ptrs)
		g.ins("VMOVDQU64 %s, K3, %d(AX)", z(16+e), off)
	}
}

func (g *gen) batchSetup() {
	g.prologue()
	g.mulConsts()
	g.ins("MOVQ $0x3f, AX")
	g.ins("KMOVB AX, K2")
}

// prefetchGroups is the forward kernel's look-ahead, in groups of 8
// entries.
const prefetchGroups = 4

// prefetchPoints prefetches lines of the accumulators and points of the
// group whose pointers are off bytes past R8 and R9.
func (g *gen) prefetchPoints(off int, lines []int) {
	for e := 0; e < 8; e++ {
		for _, r := range []string{"R8", "R9"} {
			g.ins("MOVQ %d(%s), AX", off+8*e, r)
			for _, o := range lines {
				if o == 0 {
					g.ins("PREFETCHT0 (AX)")
				} else {
					g.ins("PREFETCHT0 %d(AX)", o)
				}
			}
		}
	}
}

// fp2 locations: component 1 is 512 bytes after component 0.
type loc struct {
	off  int
	base string
}

func (l loc) c(i int) loc { return loc{l.off + 512*i, l.base} }

func (g *gen) mul1(out, a, b loc) { g.montMem(out.off, out.base, a.off, a.base, b.off, b.base) }
func (g *gen) add1(out, a, b loc) { g.addMem(out.off, out.base, a.off, a.base, b.off, b.base) }
func (g *gen) sub1(out, a, b loc) { g.subMem(out.off, out.base, a.off, a.base, b.off, b.base) }

// mul: out = a·b over c's coordinates (out may alias a or b); fp2 by
// Karatsuba, its temporaries in c.tmp.
func (g *gen) mul(c group, out, a, b loc) {
	if c.deg == 1 {
		g.mul1(out, a, b)
		return
	}
	t0, t1, t2, sa, sb := c.tmp(0), c.tmp(1), c.tmp(2), c.tmp(3), c.tmp(4)
	g.mul1(t0, a.c(0), b.c(0))
	g.mul1(t1, a.c(1), b.c(1))
	g.add1(sa, a.c(0), a.c(1))
	g.add1(sb, b.c(0), b.c(1))
	g.mul1(t2, sa, sb)
	g.sub1(out.c(0), t0, t1)
	g.sub1(t2, t2, t0)
	g.sub1(out.c(1), t2, t1)
}

// sqr: out = a²; over fp2 ((a0 + a1)(a0 − a1), 2·a0·a1).
func (g *gen) sqr(c group, out, a loc) {
	if c.deg == 1 {
		g.mul1(out, a, a)
		return
	}
	t0, sa, sb := c.tmp(0), c.tmp(3), c.tmp(4)
	g.mul1(t0, a.c(0), a.c(1))
	g.add1(sa, a.c(0), a.c(1))
	g.sub1(sb, a.c(0), a.c(1))
	g.mul1(out.c(0), sa, sb)
	g.add1(out.c(1), t0, t0)
}

// subE: out = a − b, component by component.
func (g *gen) subE(c group, out, a, b loc) {
	for i := 0; i < c.deg; i++ {
		g.sub1(out.c(i), a.c(i), b.c(i))
	}
}

// batchForward is the forward kernel of c (g1Forward, g2Forward).
// Registers: R8 accs, R9 qs, R11 group, R12 zero bytes, R13 work, CX
// groups left.
func (g *gen) batchForward(c group) {
	name := c.name + "Forward"
	g.header(name, fmt.Sprintf("func %s(accs, qs *unsafe.Pointer, grp *%sGroup, zero *uint8, work *%sWork, n int)", name, c.name, c.name), 6)
	g.ins("MOVQ accs+0(FP), R8")
	g.ins("MOVQ qs+8(FP), R9")
	g.ins("MOVQ grp+16(FP), R11")
	g.ins("MOVQ zero+24(FP), R12")
	g.ins("MOVQ work+32(FP), R13")
	g.ins("MOVQ n+40(FP), CX")
	g.batchSetup()
	// Prefetch the accumulators and points prefetchGroups groups ahead
	// (the first ones here, the rest in the loop; the pointer array has
	// that many groups of slack): accumulators are random lines, and the
	// points, though in order, are first touched here through masked
	// loads, which the hardware prefetcher follows badly.
	for gr := 0; gr < prefetchGroups; gr++ {
		g.prefetchPoints(64*gr, c.pointLines)
	}
	ax, qx, den, pre := c.grp(0), c.grp(1), c.grp(2), c.grp(3)
	run := c.work(0)
	g.loop(name, func() {
		g.prefetchPoints(64*prefetchGroups, c.pointLines)
		for i := 0; i < c.deg; i++ {
			g.gatherCoord("R8", 48*i)
			g.storeFp(r8(0), ax.c(i).off, "R11")
			g.gatherCoord("R9", 48*i)
			g.storeFp(r8(0), qx.c(i).off, "R11")
		}
		// den = q.x − acc.x from the last component down, the last one's
		// q.x still in Z0–Z7; Z8 gathers the bits of every component, so
		// that lanes with den = 0 are marked, and den := 1.
		d := r8(0)
		for i := c.deg - 1; i >= 0; i-- {
			for k := range d {
				if i < c.deg-1 {
					g.ins("VMOVDQU64 %d(R11), %s", qx.c(i).off+64*k, d[k])
				}
				g.ins("VPSUBQ %d(R11), %s, %s", ax.c(i).off+64*k, d[k], d[k])
			}
			g.sub(d)
			from := 0
			if i == c.deg-1 {
				g.ins("VPORQ Z1, Z0, Z8")
				from = 2
			}
			for k := from; k < 8; k++ {
				g.ins("VPORQ %s, Z8, Z8", d[k])
			}
			if i > 0 {
				g.storeFp(d, den.c(i).off, "R11")
			}
		}
		g.ins("VPTESTNMQ Z8, Z8, K3")
		g.ins("KMOVB K3, (R12)")
		g.ins("MOVQ $1, AX")
		g.ins("VPBROADCASTQ AX, K3, Z0")
		g.storeFp(d, den.off, "R11")
		for i := 0; i < c.deg; i++ { // pre = run
			g.loadFp(run.c(i).off, "R13", r8(8))
			g.storeFp(r8(8), pre.c(i).off, "R11")
		}
		g.mul(c, run, run, den)
		g.ins("ADDQ $64, R8")
		g.ins("ADDQ $64, R9")
		g.ins("ADDQ $%d, R11", c.groupSize())
		g.ins("INCQ R12")
	})
}

// batchBackward is the backward kernel of c (g1Backward, g2Backward):
// the groups from last to first. R10 holds the negate bytes.
func (g *gen) batchBackward(c group) {
	name := c.name + "Backward"
	g.header(name, fmt.Sprintf("func %s(accs, qs *unsafe.Pointer, neg *uint8, grp *%sGroup, zero *uint8, work *%sWork, n int)", name, c.name, c.name), 7)
	g.ins("MOVQ accs+0(FP), R8")
	g.ins("MOVQ qs+8(FP), R9")
	g.ins("MOVQ neg+16(FP), R10")
	g.ins("MOVQ grp+24(FP), R11")
	g.ins("MOVQ zero+32(FP), R12")
	g.ins("MOVQ work+40(FP), R13")
	g.ins("MOVQ n+48(FP), CX")
	g.batchSetup()
	// Point every pointer at the last group.
	g.ins("MOVQ CX, AX")
	g.ins("DECQ AX")
	g.ins("JS %s_done", name)
	g.ins("MOVQ AX, DX")
	g.ins("SHLQ $6, DX")
	g.ins("ADDQ DX, R8")
	g.ins("ADDQ DX, R9")
	g.ins("ADDQ AX, R10")
	g.ins("ADDQ AX, R12")
	g.ins("IMUL3Q $%d, AX, DX", c.groupSize())
	g.ins("ADDQ DX, R11")
	ax, qx, den, pre := c.grp(0), c.grp(1), c.grp(2), c.grp(3)
	run, di, ay, qy, lam, t := c.work(0), c.work(1), c.work(2), c.work(3), c.work(4), c.work(5)
	g.loop(name, func() {
		// The accumulators' y of the group after next (two lower; there is
		// none when CX < 3): evicted again since the forward pass.
		g.ins("CMPQ CX, $3")
		g.ins("JB %s_noprefetch0", name)
		for e := 0; e < 8; e++ {
			g.ins("MOVQ %d(R8), AX", -128+8*e)
			for _, o := range c.yLines {
				g.ins("PREFETCHT0 %d(AX)", o)
			}
		}
		g.raw(name + "_noprefetch0:\n")
		g.mul(c, di, run, pre)  // di = inv·pre
		g.mul(c, run, run, den) // inv *= den
		for i := 0; i < c.deg; i++ {
			g.gatherCoord("R8", c.y(i))
			g.storeFp(r8(0), ay.c(i).off, "R13")
			g.gatherCoord("R9", c.y(i))
			// ±q.y: p − y in the lanes to negate (0 stays 0).
			nq := r8(19)
			for k := range nq {
				g.ins("VPXORQ %s, %s, %s", nq[k], nq[k], nq[k])
				g.ins("VPSUBQ %s, %s, %s", z(k), nq[k], nq[k])
			}
			g.sub(nq)
			g.ins("MOVBQZX (R10), AX")
			g.ins("KMOVB AX, K4")
			for k := range nq {
				g.ins("VPBLENDMQ %s, %s, K4, %s", nq[k], z(k), z(k))
			}
			g.storeFp(r8(0), qy.c(i).off, "R13")
		}
		g.subE(c, t, qy, ay)  // dy
		g.mul(c, lam, t, di)  // λ
		g.sqr(c, t, lam)      // λ²
		g.subE(c, t, t, ax)   // λ² − acc.x
		g.subE(c, t, t, qx)   // x3
		g.subE(c, di, ax, t)  // acc.x − x3
		g.mul(c, di, di, lam) // λ(acc.x − x3)
		g.subE(c, di, di, ay) // y3
		for i := 0; i < c.deg; i++ {
			g.loadFp(t.c(i).off, "R13", r8(0))
			g.scatterCoord("R8", 48*i, "(R12)")
		}
		for i := 0; i < c.deg; i++ {
			g.loadFp(di.c(i).off, "R13", r8(0))
			g.scatterCoord("R8", c.y(i), "(R12)")
		}
		g.ins("SUBQ $64, R8")
		g.ins("SUBQ $64, R9")
		g.ins("DECQ R10")
		g.ins("SUBQ $%d, R11", c.groupSize())
		g.ins("DECQ R12")
	})
}

// The fr butterfly kernels of internal/ntt's transforms, over n groups
// of 8 consecutive pairs (lo[j], hi[j]) of gnark-crypto fr.Elements, with
// one twiddle z for all (frCT, frGS) or one per pair (frCTv, frGSv):
//
//	CT (DIF): t = z·hi; (lo, hi) ← (lo + t, lo − t)
//	GS (DIT): (lo, hi) ← (lo + hi, (lo − hi)·z)
//
// in radix 2^52 (5 limbs), the product reduced by 2^256 exactly (four
// 52-bit rounds and one of 48), so the results are gnark-crypto's.

// to52r converts four 64-bit words (an fr element) to five 52-bit limbs.
func (g *gen) to52r(w []string, l []string) {
	g.ins("VPANDQ %s, %s, %s", rMask, w[0], l[0])
	for k, sh := range [][3]int{{0, 52, 12}, {1, 40, 24}, {2, 28, 36}} {
		g.ins("VPSRLQ $%d, %s, %s", sh[1], w[sh[0]], l[k+1])
		g.ins("VPSLLQ $%d, %s, %s", sh[2], w[sh[0]+1], rTmp)
		g.ins("VPORQ %s, %s, %s", rTmp, l[k+1], l[k+1])
		g.ins("VPANDQ %s, %s, %s", rMask, l[k+1], l[k+1])
	}
	g.ins("VPSRLQ $16, %s, %s", w[3], l[4])
}

// to64r converts five normalised limbs (value < 2^256) to four words.
func (g *gen) to64r(l []string, w []string) {
	for i, sh := range [][2]int{{0, 52}, {12, 40}, {24, 28}, {36, 16}} {
		if sh[0] == 0 {
			g.ins("VMOVDQA64 %s, %s", l[i], w[i])
		} else {
			g.ins("VPSRLQ $%d, %s, %s", sh[0], l[i], w[i])
		}
		g.ins("VPSLLQ $%d, %s, %s", sh[1], l[i+1], rTmp)
		g.ins("VPORQ %s, %s, %s", rTmp, w[i], w[i])
	}
}

// loadFr loads the 8 elements at (ptr) as limbs into Z0–Z4, through
// Z0–Z11. Lanes hold the elements in the order 0, 2, 1, 3, 4, 6, 5, 7 (a
// four-word element is half a ZMM register; this order needs eight
// shuffles where a full transpose needs twenty), the same for every load,
// and storeFr puts them back in place.
func (g *gen) loadFr(ptr string) {
	for i := 0; i < 4; i++ {
		g.ins("VMOVDQU64 %d(%s), Z%d", 64*i, ptr, i)
	}
	// Z4, Z5: words 0/2 and 1/3 of elements 0–3; Z6, Z7: of 4–7.
	g.ins("VPUNPCKLQDQ Z1, Z0, Z4")
	g.ins("VPUNPCKHQDQ Z1, Z0, Z5")
	g.ins("VPUNPCKLQDQ Z3, Z2, Z6")
	g.ins("VPUNPCKHQDQ Z3, Z2, Z7")
	g.ins("VSHUFI64X2 $0x88, Z6, Z4, Z8")  // word 0
	g.ins("VSHUFI64X2 $0x88, Z7, Z5, Z9")  // word 1
	g.ins("VSHUFI64X2 $0xDD, Z6, Z4, Z10") // word 2
	g.ins("VSHUFI64X2 $0xDD, Z7, Z5, Z11") // word 3
	g.to52r(regs(8, 4), regs(0, 5))
}

// storeFr stores the limbs l as the 8 elements at (ptr), undoing
// loadFr's lane order, through Z0–Z15 (l may lie there).
func (g *gen) storeFr(l []string, ptr string) {
	w, x, t, out := regs(0, 4), regs(4, 4), regs(8, 4), regs(12, 4)
	if l[0] == "Z0" {
		w, x, t, out = regs(8, 4), regs(12, 4), regs(0, 4), regs(4, 4)
	}
	g.to64r(l, w)
	// x: 128-bit halves regrouped; t: back to the unpacked layout.
	g.ins("VSHUFI64X2 $0x44, %s, %s, %s", w[2], w[0], x[0])
	g.ins("VSHUFI64X2 $0xEE, %s, %s, %s", w[2], w[0], x[1])
	g.ins("VSHUFI64X2 $0x44, %s, %s, %s", w[3], w[1], x[2])
	g.ins("VSHUFI64X2 $0xEE, %s, %s, %s", w[3], w[1], x[3])
	g.ins("VSHUFI64X2 $0xD8, %s, %s, %s", x[0], x[0], t[0]) // words 0/2 of elements 0–3
	g.ins("VSHUFI64X2 $0xD8, %s, %s, %s", x[2], x[2], t[1]) // words 1/3 of elements 0–3
	g.ins("VSHUFI64X2 $0xD8, %s, %s, %s", x[1], x[1], t[2]) // words 0/2 of 4–7
	g.ins("VSHUFI64X2 $0xD8, %s, %s, %s", x[3], x[3], t[3]) // words 1/3 of 4–7
	g.ins("VPUNPCKLQDQ %s, %s, %s", t[1], t[0], out[0])
	g.ins("VPUNPCKHQDQ %s, %s, %s", t[1], t[0], out[1])
	g.ins("VPUNPCKLQDQ %s, %s, %s", t[3], t[2], out[2])
	g.ins("VPUNPCKHQDQ %s, %s, %s", t[3], t[2], out[3])
	for i := range out {
		g.ins("VMOVDQU64 %s, %d(%s)", out[i], 64*i, ptr)
	}
}

func (g *gen) frButterfly(name string, dit, perLane bool) {
	g.header(name, fmt.Sprintf("func %s(lo, hi, z *fr.Element, n int)", name), 4)
	g.ins("MOVQ lo+0(FP), DI")
	g.ins("MOVQ hi+8(FP), SI")
	g.ins("MOVQ z+16(FP), BX")
	g.ins("MOVQ n+24(FP), CX")
	g.prologueOf(frF)
	g.mulConstsOf(frF)
	zb := regs(17, 5)
	if !perLane {
		// One twiddle: its limbs broadcast once.
		for i := 0; i < 4; i++ {
			g.ins("VPBROADCASTQ %d(BX), %s", 8*i, z(i))
		}
		g.to52r(regs(0, 4), zb)
	}
	lo, t5, m := regs(22, 5), regs(5, 6), "Z11"
	zLimb := func(j int) string { return zb[j] }
	g.loop(name, func() {
		if perLane {
			g.loadFr("BX")
			for k := range zb {
				g.ins("VMOVDQA64 %s, %s", z(k), zb[k])
			}
		}
		g.loadFr("DI")
		for k := range lo {
			g.ins("VMOVDQA64 %s, %s", z(k), lo[k])
		}
		g.loadFr("SI")
		if !dit {
			g.montOf(frF, regs(0, 5), zLimb, t5, m, m, regs(0, 5)) // t = z·hi
		}
		// sum and difference of lo and Z0–Z4 (t, or hi for GS)
		sum, sumR := regs(5, 5), regs(10, 5)
		for k := range sum {
			g.ins("VPADDQ %s, %s, %s", z(k), lo[k], sum[k])
		}
		g.normalise(sum)
		g.reduceOnceOf(frF, sum, sumR)
		for k := range lo {
			g.ins("VPSUBQ %s, %s, %s", z(k), lo[k], lo[k])
		}
		g.subOf(frF, lo)
		g.storeFr(sumR, "DI")
		if dit {
			g.montOf(frF, lo, zLimb, t5, m, m, regs(0, 5)) // (lo − hi)·z
			g.storeFr(regs(0, 5), "SI")
		} else {
			g.storeFr(lo, "SI")
		}
		g.ins("ADDQ $256, DI")
		g.ins("ADDQ $256, SI")
		if perLane {
			g.ins("ADDQ $256, BX")
		}
	})
}

// kernelNames is the order of kernelAddrs' table (kernels_amd64.go).
var kernelNames = []string{"fpMul", "fpAdd", "fpSub", "fpFrom64", "fpTo64", "g1Forward", "g1Backward", "frCT", "frGS", "frCTv", "frGSv", "g2Forward", "g2Backward"}

func (g *gen) addrs() {
	fmt.Fprintf(&g.buf, "\n// func kernelAddrs(t *[%d]uintptr): the kernels' ABI0 entries, for the emulator tests.\nTEXT ·kernelAddrs(SB), NOSPLIT, $0-8\n", len(kernelNames))
	g.ins("MOVQ t+0(FP), DI")
	for i, n := range kernelNames {
		g.ins("LEAQ ·%s(SB), AX", n)
		g.ins("MOVQ AX, %d(DI)", 8*i)
	}
	g.ins("RET")
}

func main() {
	flag.Parse()
	g := &gen{}
	g.raw("// Code generated by gen.go; DO NOT EDIT.\n\n//go:build !purego\n\n#include \"textflag.h\"\n")
	g.fpMul()
	g.fpAdd()
	g.fpSub()
	g.fpFrom64()
	g.fpTo64()
	g.batchForward(g1)
	g.batchBackward(g1)
	g.frButterfly("frCT", false, false)
	g.frButterfly("frGS", true, false)
	g.frButterfly("frCTv", false, true)
	g.frButterfly("frGSv", true, true)
	g.batchForward(g2)
	g.batchBackward(g2)
	g.addrs()
	if *out == "-" {
		os.Stdout.Write(g.buf.Bytes())
		return
	}
	if err := os.WriteFile(*out, g.buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}
