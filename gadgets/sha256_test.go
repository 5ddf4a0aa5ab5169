package gadgets

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"testing"

	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// nativeCompress returns the SHA-256 state after compressing one block into
// the standard IV, read from crypto/sha256's marshalled state.
func nativeCompress(t testing.TB, block []byte) [8]uint32 {
	h := sha256.New()
	h.Write(block)
	st, err := h.(interface{ MarshalBinary() ([]byte, error) }).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	const magic = 4 // "sha\x03"
	var out [8]uint32
	for i := range out {
		out[i] = binary.BigEndian.Uint32(st[magic+4*i:])
	}
	return out
}

func TestSha256CompressionCountAndValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 3; iter++ {
		block := make([]byte, 64)
		for i := range block {
			block[i] = byte(rng.Uint32())
		}
		cs, ts := testCS(false)
		in := allocBools(cs, msgBits(block))
		out := Sha256Compress(cs, in, Sha256IV())
		requireSatisfied(t, ts)
		// bellperson test_full_block: 25,840 rows besides the 512 input bits.
		if got := cs.NumConstraints() - 512; got != 25840 {
			t.Fatalf("compression: %d rows, want 25840", got)
		}
		want := nativeCompress(t, block)
		for i := range out {
			if out[i].Value() != want[i] {
				t.Fatalf("word %d = %08x, want %08x", i, out[i].Value(), want[i])
			}
			for k := 0; k < 32; k++ {
				if out[i].Bit(k).Value() != (want[i]>>uint(k)&1 == 1) {
					t.Fatalf("word %d bit %d disagrees with the value", i, k)
				}
			}
		}
	}
}

func TestSha256BlankBlockIsFree(t *testing.T) {
	// bellperson test_blank_hash: the padded empty message, all constants.
	bits := make([]Boolean, 512)
	bits[0] = Constant(true)
	cs, _ := testCS(false)
	out := Sha256Compress(cs, bits, Sha256IV())
	if cs.NumConstraints() != 0 || cs.NumAux() != 0 {
		t.Fatalf("constant block: %d rows, %d aux", cs.NumConstraints(), cs.NumAux())
	}
	var digest []Boolean
	for i := range out {
		digest = out[i].AppendBitsBE(digest)
	}
	want, _ := hex.DecodeString("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
	if got := bitsToBytes(digest); !bytes.Equal(got, want) {
		t.Fatalf("blank hash %x", got)
	}
}

func TestSha256HashMatchesNative(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var s Sha256
	for _, n := range []int{0, 1, 32, 55, 56, 63, 64, 65, 119, 128, 200} {
		msg := make([]byte, n)
		for i := range msg {
			msg[i] = byte(rng.Uint32())
		}
		cs, ts := testCS(false)
		in := allocBools(cs, msgBits(msg))
		// Mix in constant bits: every fifth message bit becomes a constant.
		for i := range in {
			if i%5 == 0 {
				in[i] = Constant(in[i].Value())
			}
		}
		out := s.Hash(cs, nil, in)
		requireSatisfied(t, ts)
		want := sha256.Sum256(msg)
		if got := bitsToBytes(out); !bytes.Equal(got, want[:]) {
			t.Fatalf("len %d: %x, want %x", n, got, want)
		}
	}
}

func TestSha256FullHashCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cs, ts := testCS(false)
	in := allocBools(cs, randBits(rng, 512))
	Sha256Hash(cs, in)
	requireSatisfied(t, ts)
	// bellperson test_full_hash: 44,874 rows besides the input bits.
	if got := cs.NumConstraints() - 512; got != 44874 {
		t.Fatalf("full hash: %d rows, want 44874", got)
	}
}

func TestSha256Corruption(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	vals := randBits(rng, 512)
	build := func(cs *r1cs.CS) {
		Sha256Compress(cs, allocBools(cs, vals), Sha256IV())
	}
	// An input bit, the first schedule xor, an addmany result bit (checked
	// only through a MultiEq row), a carry bit, and the last allocation.
	checkCorruptionDetected(t, build, 3, 512, 600, 5000, 20000, -1)
}

func TestMultiEqBatching(t *testing.T) {
	// Two-operand sums use 33 bits each: 7 fit below 254 (231), the 8th
	// forces a flush row after its own 33 result-bit allocations.
	cs, ts := testCS(true)
	var me MultiEq
	x := AllocUInt32(cs, 0xdeadbeef)
	y := AllocUInt32(cs, 0x12345678)
	var z UInt32
	rows := []int{}
	for i := 0; i < 8; i++ {
		z.AddMany(cs, &me, &x, &y)
		rows = append(rows, cs.NumConstraints())
	}
	if me.Pending() != 33 {
		t.Fatalf("pending %d bits, want 33", me.Pending())
	}
	me.Finish(cs)
	requireSatisfied(t, ts)
	if z.Value() != 0xdeadbeef+0x12345678 {
		t.Fatalf("sum %08x", z.Value())
	}
	// 64 input rows, then 33 rows per sum, plus the flush inside the 8th.
	for i, r := range rows {
		want := 64 + 33*(i+1)
		if i == 7 {
			want++
		}
		if r != want {
			t.Errorf("after sum %d: %d rows, want %d", i, r, want)
		}
	}
	if cs.NumConstraints() != 64+33*8+2 {
		t.Fatalf("%d rows", cs.NumConstraints())
	}
	// The flush row: (Σ_k 2^{33k} Σ_i 2^i (x_i + y_i))·(ONE) = (Σ_k 2^{33k} Σ_i 2^i r_ki),
	// k over the first seven sums; its position is right after the 8th sum's bits.
	flush := ts.Rows[64+33*8]
	if len(flush.A) != 64 || len(flush.B) != 1 || len(flush.C) != 7*33 {
		t.Fatalf("flush row has %d/%d/%d terms", len(flush.A), len(flush.B), len(flush.C))
	}
	var sum7 = pow2[0]
	sum7.SetZero()
	for k := 0; k < 7; k++ {
		sum7.Add(&sum7, &pow2[33*k])
	}
	var want = sum7
	want.Mul(&want, &pow2[5]) // bit 5 of x has coefficient 2^5·Σ_k 2^{33k}
	if flush.A[5].Var != x.Bit(5).v || !flush.A[5].Coeff.Equal(&want) {
		t.Errorf("flush A term 5 = %v·%v", flush.A[5].Coeff.String(), flush.A[5].Var)
	}
	last := ts.Rows[len(ts.Rows)-1]
	if len(last.C) != 33 || !last.C[32].Coeff.Equal(&pow2[32]) {
		t.Errorf("final flush C has %d terms", len(last.C))
	}
}

func TestAddManyConstantsAndBitlen(t *testing.T) {
	cs, _ := testCS(false)
	var me MultiEq
	a, b, c := UInt32Constant(0xffffffff), UInt32Constant(2), UInt32Constant(7)
	var z UInt32
	z.AddMany(cs, &me, &a, &b, &c)
	if cs.NumConstraints() != 0 || z.Value() != 8 || !z.Bit(3).IsConstant() {
		t.Fatalf("constant sum: %d rows, value %d", cs.NumConstraints(), z.Value())
	}
	for _, tc := range []struct{ n, bits int }{{2, 33}, {3, 34}, {4, 34}, {5, 35}, {8, 35}, {9, 36}, {10, 36}} {
		cs, ts := testCS(false)
		var me MultiEq
		ops := make([]*UInt32, tc.n)
		var want uint32
		for i := range ops {
			u := AllocUInt32(cs, uint32(0x9e3779b9*(i+1)))
			ops[i] = &u
			want += u.Value()
		}
		before := cs.NumConstraints()
		z.AddMany(cs, &me, ops...)
		if got := cs.NumConstraints() - before; got != tc.bits {
			t.Errorf("%d operands: %d result bits, want %d", tc.n, got, tc.bits)
		}
		me.Finish(cs)
		requireSatisfied(t, ts)
		if z.Value() != want {
			t.Errorf("%d operands: sum %08x, want %08x", tc.n, z.Value(), want)
		}
	}
}

func TestUInt32Relabelling(t *testing.T) {
	u := UInt32Constant(0x80000001)
	var r, s UInt32
	r.Rotr(&u, 1)
	s.Shr(&u, 31)
	if r.Value() != 0xc0000000 || !r.Bit(31).Value() || !r.Bit(30).Value() || r.Bit(0).Value() {
		t.Errorf("rotr %08x", r.Value())
	}
	if s.Value() != 1 || !s.Bit(0).Value() || s.Bit(1).Value() {
		t.Errorf("shr %08x", s.Value())
	}
	bits := u.AppendBitsBE(nil)
	if back := UInt32FromBitsBE(bits); back.Value() != u.Value() || back.Bit(0) != u.Bit(0) {
		t.Errorf("from_bits_be round trip %08x", back.Value())
	}
	if back := UInt32FromBits(u.AppendBits(nil)); back.Value() != u.Value() {
		t.Errorf("from_bits round trip %08x", back.Value())
	}
}

// Steady-state SHA-256 synthesis into a ProvingAssignment allocates
// nothing.
func TestSha256Allocations(t *testing.T) {
	testenv.Short(t, "allocation count needs several compressions")
	const runs = 3
	pa := r1cs.NewProvingAssignment(r1cs.Size{Constraints: 26000 * (runs + 3), Inputs: 1, Aux: 26000 * (runs + 3)})
	cs := r1cs.New(pa)
	rng := rand.New(rand.NewPCG(9, 10))
	in := allocBools(cs, randBits(rng, 512))
	var s Sha256
	state := Sha256IV()
	s.Compress(cs, in, &state) // warm up scratch space
	allocs := testing.AllocsPerRun(runs, func() {
		st := Sha256IV()
		s.Compress(cs, in, &st)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per compression, want 0", allocs)
	}
}
