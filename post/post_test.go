package post

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/sectordir"
)

const curioDir = "../testdata/curio-32gib-window-post/"

type curioPub struct {
	Randomness []byte
	Proofs     []struct{ PoStProof int64 }
	Challenged []struct {
		SealProof    int64
		SectorNumber uint64
		SealedCID    map[string]string
	} `json:"ChallengedSectors"`
	Prover uint64
}

// sealedCommR extracts comm_r from a fil-commitment-sealed CID v1
// (multibase 'b' base32, codec 0xf102, multihash 0xb401, 32 bytes).
func sealedCommR(t *testing.T, cid string) [32]byte {
	t.Helper()
	if !strings.HasPrefix(cid, "b") {
		t.Fatalf("cid %q is not base32", cid)
	}
	raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(cid[1:]))
	if err != nil {
		t.Fatal(err)
	}
	var fields [4]uint64
	for i := range fields {
		v, n := binary.Uvarint(raw)
		if n <= 0 {
			t.Fatal("bad varint in cid")
		}
		fields[i], raw = v, raw[n:]
	}
	if fields != [4]uint64{1, 0xf102, 0xb401, 32} || len(raw) != 32 {
		t.Fatalf("cid header %x, %d digest bytes", fields, len(raw))
	}
	return [32]byte(raw)
}

func loadCurio(t *testing.T) ([]byte, curioPub) {
	t.Helper()
	data, err := os.ReadFile(curioDir + "post.vproof")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(curioDir + "postpub.json")
	if err != nil {
		t.Fatal(err)
	}
	var pub curioPub
	if err := json.Unmarshal(raw, &pub); err != nil {
		t.Fatal(err)
	}
	if len(pub.Challenged) != 1 || len(pub.Randomness) != 32 || len(pub.Proofs) != 1 {
		t.Fatalf("unexpected postpub.json: %+v", pub)
	}
	return data, pub
}

func frLE(b [32]byte) fr.Element {
	e, err := fr.LittleEndian.Element(&b)
	if err != nil {
		panic(err)
	}
	return e
}

// TestCurioWindowPoSt: the real 32 GiB vanilla proof decodes, re-encodes to
// the same bytes and verifies natively against postpub.json; any change to
// the public data or the proof is rejected with the matching sentinel.
func TestCurioWindowPoSt(t *testing.T) {
	data, pub := loadCurio(t)
	if len(data) != 24960 {
		t.Fatalf("%d bytes", len(data))
	}
	// PoStProof 8 is StackedDrgWindow32GiBV1; with one sector at index 0
	// the V1 and V1_2 challenges coincide, so both must accept it.
	p := filecoin.RegisteredPoStProof(pub.Proofs[0].PoStProof)
	if p != filecoin.StackedDrgWindow32GiBV1 {
		t.Fatalf("PoStProof %v", p)
	}
	v, err := DecodeVanillaProof(data, p)
	if err != nil {
		t.Fatal(err)
	}
	if v.SectorID != pub.Challenged[0].SectorNumber || len(v.Sectors) != 1 || len(v.Sectors[0].InclusionProofs) != 10 {
		t.Fatalf("sector %d, %d sector proofs", v.SectorID, len(v.Sectors))
	}
	commR := frLE(sealedCommR(t, pub.Challenged[0].SealedCID["/"]))
	if v.CommR != commR {
		t.Fatal("comm_r in the proof differs from the sealed CID")
	}
	if got := sectordir.CommR(v.Sectors[0].CommC, v.Sectors[0].CommRLast); got != commR {
		t.Fatal("Poseidon2(comm_c, comm_r_last) differs from the sealed CID")
	}
	enc, err := v.Encode(p)
	if err != nil || !bytes.Equal(enc, data) {
		t.Fatalf("re-encoding differs (%v)", err)
	}
	// Every leaf is the challenge derived for randomness 0, sector 1.
	randomness := [32]byte(pub.Randomness)
	want, err := VanillaChallenges(p, randomness, v.SectorID, 0)
	if err != nil {
		t.Fatal(err)
	}
	for j, ip := range v.Sectors[0].InclusionProofs {
		if ip.LeafIndex() != want[j] {
			t.Fatalf("inclusion proof %d opens %d, challenge %d", j, ip.LeafIndex(), want[j])
		}
	}
	// prover 1000 is only used for sector selection (winning) and the
	// circuit's prover_id; it must be a canonical element.
	if err := CheckRandomness(filecoin.ProverID(pub.Prover)); err != nil {
		t.Fatal(err)
	}

	verify := func(p filecoin.RegisteredPoStProof, randomness [32]byte, mutate func(v *VanillaProof)) error {
		t.Helper()
		v, err := DecodeVanillaProof(data, p)
		if err != nil {
			t.Fatal(err)
		}
		if mutate != nil {
			mutate(v)
		}
		pt, err := NewWindowPartition(p, randomness, []*VanillaProof{v}, 0)
		if err != nil {
			return err
		}
		return pt.Verify(context.Background(), 2)
	}
	for _, p := range []filecoin.RegisteredPoStProof{filecoin.StackedDrgWindow32GiBV1, filecoin.StackedDrgWindow32GiBV1_2} {
		if err := verify(p, randomness, nil); err != nil {
			t.Fatalf("%v: %v", p, err)
		}
	}
	one := fr.One()
	other := randomness
	other[0] = 1
	cases := []struct {
		name       string
		randomness [32]byte
		mutate     func(v *VanillaProof)
		want       error
	}{
		{"comm_r", randomness, func(v *VanillaProof) { v.CommR.Add(&v.CommR, &one) }, ErrCommR},
		{"comm_c", randomness, func(v *VanillaProof) { v.Sectors[0].CommC.Add(&v.Sectors[0].CommC, &one) }, ErrCommR},
		{"comm_r_last field", randomness, func(v *VanillaProof) { v.Sectors[0].CommRLast.Add(&v.Sectors[0].CommRLast, &one) }, ErrCommRLast},
		{"root of proof 3", randomness, func(v *VanillaProof) { r := &v.Sectors[0].InclusionProofs[3].Root; r.Add(r, &one) }, ErrCommRLast},
		{"leaf of proof 5", randomness, func(v *VanillaProof) { l := &v.Sectors[0].InclusionProofs[5].Leaf; l.Add(l, &one) }, ErrMerklePath},
		{"sibling", randomness, func(v *VanillaProof) { h := &v.Sectors[0].InclusionProofs[9].Path[4].Hashes[2]; h.Add(h, &one) }, ErrMerklePath},
		{"path index", randomness, func(v *VanillaProof) { e := &v.Sectors[0].InclusionProofs[0].Path[0]; e.Index = (e.Index + 1) % 8 }, ErrMerklePath},
		{"sector id", randomness, func(v *VanillaProof) { v.SectorID = 2 }, ErrChallenge},
		{"randomness", other, nil, ErrChallenge},
		{"missing proof", randomness, func(v *VanillaProof) {
			v.Sectors[0].InclusionProofs = v.Sectors[0].InclusionProofs[:9]
		}, ErrChallengeCount},
		{"swapped proofs", randomness, func(v *VanillaProof) {
			ips := v.Sectors[0].InclusionProofs
			ips[1], ips[2] = ips[2], ips[1]
		}, ErrChallenge},
	}
	for _, c := range cases {
		err := verify(filecoin.StackedDrgWindow32GiBV1_2, c.randomness, c.mutate)
		if !errors.Is(err, c.want) || !errors.Is(err, ErrInvalidProof) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
	// Wrong registered proof: a 2 KiB or 64 GiB layout cannot decode it.
	for _, p := range []filecoin.RegisteredPoStProof{filecoin.StackedDrgWindow2KiBV1_2, filecoin.StackedDrgWindow64GiBV1_2, filecoin.StackedDrgWinning512MiBV1} {
		if _, err := DecodeVanillaProof(data, p); !errors.Is(err, ErrDecode) {
			t.Errorf("%v: decoded a 32 GiB proof: %v", p, err)
		}
	}
	// A winning 32 GiB proof has 66 challenges.
	if _, err := NewWinningPartition(filecoin.StackedDrgWinning32GiBV1, randomness, []*VanillaProof{v}); !errors.Is(err, ErrChallengeCount) {
		t.Errorf("winning from a window proof: %v", err)
	}
	// Public inputs of the full 2,349-sector partition: 25,839 + ONE.
	pt, err := NewWindowPartition(filecoin.StackedDrgWindow32GiBV1_2, randomness, []*VanillaProof{v}, 0)
	if err != nil {
		t.Fatal(err)
	}
	in, err := pt.PublicInputs()
	if err != nil || len(in)+1 != 25840 {
		t.Fatalf("%d inputs, %v", len(in), err)
	}
	if in[0] != commR || in[1].Uint64() != want[0] || in[10].Uint64() != want[9] || in[11] != commR || in[len(in)-1].Uint64() != want[9] {
		t.Fatal("public inputs are not comm_r then the 10 challenges, repeated")
	}
}

// testSector builds a random tree_r_last for p's sector size.
func testSector(t testing.TB, rng *rand.Rand, p filecoin.RegisteredPoStProof) (*merkle.PoseidonTree, fr.Element) {
	t.Helper()
	shape, err := TreeShape(p.SectorSize())
	if err != nil {
		t.Fatal(err)
	}
	leaves := make([]fr.Element, p.SectorSize().Nodes())
	for i := range leaves {
		leaves[i].SetUint64(rng.Uint64())
	}
	tree, err := merkle.BuildPoseidon(shape, leaves, 1)
	if err != nil {
		t.Fatal(err)
	}
	var commC fr.Element
	commC.SetUint64(rng.Uint64())
	return tree, commC
}

func randomness(rng *rand.Rand) [32]byte {
	var r [32]byte
	for i := range r {
		r[i] = byte(rng.Uint32())
	}
	r[31] &= 0x3f
	return r
}

// TestWindowPadding: a 2 KiB window partition with one sector is padded to
// two by repeating it; its inputs and challenges follow upstream's rule.
func TestWindowPadding(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	r := randomness(rng)
	for _, p := range []filecoin.RegisteredPoStProof{filecoin.StackedDrgWindow2KiBV1, filecoin.StackedDrgWindow2KiBV1_2} {
		tree, commC := testSector(t, rng, p)
		trees := []*merkle.PoseidonTree{tree}
		tree2, commC2 := testSector(t, rng, p)
		trees = append(trees, tree2)
		for _, k := range []int{0, 3} {
			var vs []*VanillaProof
			for i, id := range []uint64{7, 9} {
				cc := []fr.Element{commC, commC2}[i]
				v, err := GenerateVanillaProof(p, r, id, k*2+i, trees[i], cc)
				if err != nil {
					t.Fatal(err)
				}
				enc, err := v.Encode(p)
				if err != nil {
					t.Fatal(err)
				}
				// 2 KiB: 8+32+8 + 8 + 10*(4+64+8+2*(8+224+8)) + 64
				if len(enc) != 8+32+8+8+10*(4+64+8+2*240)+64 {
					t.Fatalf("%d bytes", len(enc))
				}
				back, err := DecodeVanillaProof(enc, p)
				if err != nil {
					t.Fatal(err)
				}
				vs = append(vs, back)
			}
			pt, err := NewWindowPartition(p, r, vs, k)
			if err != nil {
				t.Fatal(err)
			}
			if err := pt.Verify(context.Background(), 1); err != nil {
				t.Fatalf("%v k=%d: %v", p, k, err)
			}
			in, err := pt.PublicInputs()
			if err != nil || len(in)+1 != 23 {
				t.Fatalf("%d inputs %v", len(in), err)
			}
			// One sector: padded with itself, inputs repeated.
			pt1, err := NewWindowPartition(p, r, vs[:1], k)
			if err != nil {
				t.Fatal(err)
			}
			if pt1.Real != 1 || len(pt1.Sectors) != 2 || pt1.Sectors[1] != pt1.Sectors[0] {
				t.Fatal("not padded")
			}
			if err := pt1.Verify(context.Background(), 2); err != nil {
				t.Fatal(err)
			}
			in1, _ := pt1.PublicInputs()
			for i := range 11 {
				if in1[i] != in[i] || in1[11+i] != in[i] {
					t.Fatal("padded inputs do not repeat sector 0")
				}
			}
			// Sector order matters before V1_2 (and at k != 0): swapping the
			// sectors must break V1 and keep V1_2 valid.
			sw, _ := NewWindowPartition(p, r, []*VanillaProof{vs[1], vs[0]}, k)
			err = sw.Verify(context.Background(), 1)
			if p.APIVersion() == filecoin.V1_2_0 {
				if err != nil {
					t.Errorf("%v: swapped sectors rejected: %v", p, err)
				}
			} else if !errors.Is(err, ErrChallenge) {
				t.Errorf("%v: swapped sectors: %v", p, err)
			}
		}
		if _, err := NewWindowPartition(p, r, nil, 0); !errors.Is(err, ErrSectorCount) {
			t.Errorf("empty partition: %v", err)
		}
		v, _ := GenerateVanillaProof(p, r, 1, 0, tree, commC)
		if _, err := NewWindowPartition(p, r, []*VanillaProof{v, v, v}, 0); !errors.Is(err, ErrSectorCount) {
			t.Errorf("3 sectors: %v", err)
		}
		if _, err := NewWindowPartition(p, r, []*VanillaProof{v, v}, 0); !errors.Is(err, ErrDuplicateSector) {
			t.Errorf("duplicate: %v", err)
		}
	}
}

// TestWinning: 66 challenges of one sector unrolled into 66 one-challenge
// sectors; 132 public inputs (+ ONE = 133).
func TestWinning(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := filecoin.StackedDrgWinning2KiBV1
	tree, commC := testSector(t, rng, p)
	r := randomness(rng)
	v, err := GenerateVanillaProof(p, r, 42, 0, tree, commC)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Sectors[0].InclusionProofs) != 66 {
		t.Fatal("not 66 challenges")
	}
	enc, _ := v.Encode(p)
	back, err := DecodeVanillaProof(enc, p)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := NewPartition(p, r, []*VanillaProof{back}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(pt.Sectors) != 66 || len(pt.Proofs[65].InclusionProofs) != 1 {
		t.Fatal("not unrolled")
	}
	if err := pt.Verify(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	in, err := pt.PublicInputs()
	if err != nil || len(in)+1 != 133 {
		t.Fatalf("%d inputs %v", len(in), err)
	}
	// The inputs verify_winning_post computes from public values alone.
	in2, err := PublicInputs(p, r, WinningPublicSectors(p, PublicSector{ID: 42, CommR: v.CommR}), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if in[i] != in2[i] {
			t.Fatalf("input %d differs", i)
		}
	}
	for i := range 66 {
		if in[2*i] != v.CommR || in[2*i+1].Uint64() != v.Sectors[0].InclusionProofs[i].LeafIndex() {
			t.Fatalf("input pair %d", i)
		}
	}
	back.Sectors[0].InclusionProofs[10], back.Sectors[0].InclusionProofs[11] = back.Sectors[0].InclusionProofs[11], back.Sectors[0].InclusionProofs[10]
	pt, _ = NewPartition(p, r, []*VanillaProof{back}, 0)
	if err := pt.Verify(context.Background(), 1); !errors.Is(err, ErrChallenge) || !strings.Contains(err.Error(), "sectors[10]") {
		t.Errorf("swapped challenges: %v", err)
	}
	if _, err := NewPartition(p, r, []*VanillaProof{back}, 1); !errors.Is(err, ErrPartition) {
		t.Errorf("winning partition 1: %v", err)
	}
	if _, err := NewWindowPartition(p, r, []*VanillaProof{back}, 0); !errors.Is(err, ErrRegisteredProof) {
		t.Errorf("window from winning proof: %v", err)
	}
}

func TestChallengeRules(t *testing.T) {
	if ChallengeIndex(filecoin.V1_0_0, 3, 10, 4) != 34 || ChallengeIndex(filecoin.V1_1_0, 3, 10, 4) != 34 || ChallengeIndex(filecoin.V1_2_0, 3, 10, 4) != 4 {
		t.Fatal("get_challenge_index")
	}
	var r [32]byte
	r[31] = 0x80
	if _, err := VanillaChallenges(filecoin.StackedDrgWindow2KiBV1, r, 1, 0); !errors.Is(err, ErrRandomness) {
		t.Errorf("non-canonical randomness: %v", err)
	}
	var zero [32]byte
	idx, err := WinningSectorChallenges(filecoin.StackedDrgWinning32GiBV1, zero, filecoin.ProverID(1000), 1)
	if err != nil || len(idx) != 1 || idx[0] != 0 {
		t.Fatalf("%v %v", idx, err)
	}
	if _, err := WinningSectorChallenges(filecoin.StackedDrgWinning32GiBV1, zero, zero, 0); !errors.Is(err, ErrSectorSet) {
		t.Errorf("empty set: %v", err)
	}
	if _, err := WinningSectorChallenges(filecoin.StackedDrgWindow32GiBV1, zero, zero, 5); !errors.Is(err, ErrRegisteredProof) {
		t.Errorf("window: %v", err)
	}
}

func TestDecodeVanillaProofsAndCheckSectors(t *testing.T) {
	data, pub := loadCurio(t)
	p := filecoin.StackedDrgWindow32GiBV1_2
	bad := bytes.Clone(data)
	bad = bad[:len(bad)-1]
	_, err := DecodeVanillaProofs([][]byte{data, bad}, p)
	var de *DecodeError
	if !errors.Is(err, ErrTruncated) || !errors.As(err, &de) || !strings.HasPrefix(err.Error(), "vanilla_proofs[1]: ") {
		t.Fatalf("got %v", err)
	}
	vs, err := DecodeVanillaProofs([][]byte{data}, p)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := NewWindowPartition(p, [32]byte(pub.Randomness), vs, 0)
	if err != nil {
		t.Fatal(err)
	}
	commR := frLE(sealedCommR(t, pub.Challenged[0].SealedCID["/"]))
	if err := pt.CheckSectors([]PublicSector{{ID: 1, CommR: commR}}); err != nil {
		t.Fatal(err)
	}
	one := fr.One()
	var other fr.Element
	other.Add(&commR, &one)
	for _, want := range [][]PublicSector{
		{{ID: 2, CommR: commR}},
		{{ID: 1, CommR: other}},
		{{ID: 1, CommR: commR}, {ID: 2, CommR: commR}},
	} {
		if err := pt.CheckSectors(want); !errors.Is(err, ErrSectorMismatch) {
			t.Errorf("%v: %v", want, err)
		}
	}
}

// TestWinningSectorChallenges recomputes generate_sector_challenge with
// crypto/sha256 directly for a few set sizes.
func TestWinningSectorChallenges(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	r, prover := randomness(rng), filecoin.ProverID(1000)
	for _, size := range []uint64{1, 2, 7, 1000, 1 << 40} {
		got, err := WinningSectorChallenges(filecoin.StackedDrgWinning2KiBV1, r, prover, size)
		if err != nil || len(got) != 1 {
			t.Fatalf("%v %v", got, err)
		}
		h := sha256.New()
		h.Write(prover[:])
		h.Write(r[:])
		h.Write(make([]byte, 8)) // n = 0 as usize LE
		want := binary.LittleEndian.Uint64(h.Sum(nil)[:8]) % size
		if got[0] != want {
			t.Errorf("size %d: %d, want %d", size, got[0], want)
		}
	}
}
