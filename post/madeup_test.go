package post

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/merkle"
)

func madeUp(t *testing.T, p MadeUpParams) *MadeUp {
	t.Helper()
	m, err := GenerateMadeUp(context.Background(), p, 2)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkMadeUp checks a partition's entries independently of the
// generator's own check: decoded, laid out and verified as the daemon
// does, and the public inputs the verifier derives from the public values
// alone equal the partition's.
func checkMadeUp(t *testing.T, m *MadeUp, k int) *Partition {
	t.Helper()
	p := m.Params.Proof
	vs, err := DecodeVanillaProofs(m.Partitions[k].Entries, p)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := NewPartition(p, m.Params.Randomness, vs, k)
	if err != nil {
		t.Fatal(err)
	}
	if err := pt.Verify(context.Background(), 2); err != nil {
		t.Fatalf("partition %d: %v", k, err)
	}
	fromPartition, err := pt.PublicInputs()
	if err != nil {
		t.Fatal(err)
	}
	pub := Public{Proof: p, Randomness: m.Params.Randomness, Sectors: m.Partitions[k].Sectors, Partition: k}
	if p.Type() == filecoin.WinningPoSt {
		pub.Sectors = pub.Sectors[:1]
	}
	fromPublic, err := pub.Inputs()
	if err != nil {
		t.Fatal(err)
	}
	if len(fromPublic) != 1 || !slicesEqual(fromPublic[0], fromPartition) {
		t.Fatalf("partition %d: the verifier's public inputs differ from the partition's", k)
	}
	return pt
}

func slicesEqual(a, b []fr.Element) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Generated 2 KiB and 8 MiB inputs of both kinds pass the native check;
// WindowPoSt with more sectors than a partition holds is split as
// upstream splits it, each partition checked with its own index.
func TestMadeUpVerifies(t *testing.T) {
	for _, c := range []struct {
		proof      filecoin.RegisteredPoStProof
		sectors    int
		partitions int
	}{
		{filecoin.RegisteredPoStProof(10), 2, 1}, // window 2 KiB V1_2, a full partition
		{filecoin.RegisteredPoStProof(10), 5, 3}, // three partitions, the last padded
		{filecoin.RegisteredPoStProof(5), 3, 2},  // V1: the sector index enters the challenges
		{filecoin.RegisteredPoStProof(11), 1, 1}, // window 8 MiB
		{filecoin.RegisteredPoStProof(0), 7, 1},  // winning 2 KiB, drawn from 7
		{filecoin.RegisteredPoStProof(1), 1, 1},  // winning 8 MiB
	} {
		m := madeUp(t, MadeUpParams{Proof: c.proof, MinerID: 1000, Randomness: DefaultRandomness(), Sectors: c.sectors, FirstSector: 1})
		if len(m.Partitions) != c.partitions {
			t.Fatalf("%v, %d sectors: %d partitions, want %d", c.proof, c.sectors, len(m.Partitions), c.partitions)
		}
		for k := range m.Partitions {
			checkMadeUp(t, m, k)
		}
		if c.proof.Type() == filecoin.WinningPoSt {
			if m.WinningIndex == nil || *m.WinningIndex >= uint64(c.sectors) || m.Public().Sectors[0].ID != 1+*m.WinningIndex {
				t.Fatalf("%v: winning index %v of %d", c.proof, m.WinningIndex, c.sectors)
			}
		} else if got := len(m.Public().Sectors); got != c.sectors {
			t.Fatalf("%v: %d public sectors, want %d", c.proof, got, c.sectors)
		}
	}
}

// Every kind of damage to a made-up input is caught by the native check,
// naming what is wrong.
func TestMadeUpTampered(t *testing.T) {
	p := filecoin.RegisteredPoStProof(10)
	m := madeUp(t, MadeUpParams{Proof: p, MinerID: 1000, Randomness: DefaultRandomness(), Sectors: 2, FirstSector: 1})
	one := fr.One()
	for _, c := range []struct {
		name   string
		change func(v []*VanillaProof, rnd *[32]byte)
		want   error
	}{
		{"comm_r", func(v []*VanillaProof, _ *[32]byte) { v[1].CommR.Add(&v[1].CommR, &one) }, ErrCommR},
		{"comm_c", func(v []*VanillaProof, _ *[32]byte) { v[0].Sectors[0].CommC.Add(&v[0].Sectors[0].CommC, &one) }, ErrCommR},
		{"comm_r_last", func(v []*VanillaProof, _ *[32]byte) {
			v[0].Sectors[0].CommRLast.Add(&v[0].Sectors[0].CommRLast, &one)
		}, ErrCommRLast},
		{"leaf", func(v []*VanillaProof, _ *[32]byte) {
			ip := v[0].Sectors[0].InclusionProofs[3]
			ip.Leaf.Add(&ip.Leaf, &one)
		}, ErrMerklePath},
		{"path hash", func(v []*VanillaProof, _ *[32]byte) {
			h := &v[1].Sectors[0].InclusionProofs[9].Path[0].Hashes[2]
			h.Add(h, &one)
		}, ErrMerklePath},
		{"path index", func(v []*VanillaProof, _ *[32]byte) {
			pe := &v[0].Sectors[0].InclusionProofs[0].Path[0]
			pe.Index = (pe.Index + 1) % (len(pe.Hashes) + 1)
		}, ErrMerklePath},
		{"proofs swapped", func(v []*VanillaProof, _ *[32]byte) {
			ips := v[0].Sectors[0].InclusionProofs
			ips[0], ips[1] = ips[1], ips[0]
		}, ErrChallenge},
		{"sector id", func(v []*VanillaProof, _ *[32]byte) { v[0].SectorID = 7 }, ErrChallenge},
		{"randomness", func(_ []*VanillaProof, rnd *[32]byte) { rnd[0] ^= 1 }, ErrChallenge},
		{"inclusion proof dropped", func(v []*VanillaProof, _ *[32]byte) {
			v[0].Sectors[0].InclusionProofs = v[0].Sectors[0].InclusionProofs[:9]
		}, ErrChallengeCount},
	} {
		vs, err := DecodeVanillaProofs(m.Partitions[0].Entries, p)
		if err != nil {
			t.Fatal(err)
		}
		rnd := m.Params.Randomness
		c.change(vs, &rnd)
		// Through the encoding, as the daemon would receive it.
		entries := make([][]byte, len(vs))
		for i, v := range vs {
			if entries[i], err = v.Encode(p); err != nil {
				t.Fatal(err)
			}
		}
		err = checkEntries(context.Background(), p, rnd, entries, m.Partitions[0].Sectors, 0, 2)
		if !errors.Is(err, c.want) {
			t.Errorf("%s changed: %v, want %v", c.name, err, c.want)
		}
	}
}

// skeleton is everything of a vanilla proof but the hash values: ids,
// counts, variants (path arities), indices and the encoded length.
type skeleton struct {
	SectorID uint64
	Len      int
	Sectors  []sectorSkeleton
}

type sectorSkeleton struct {
	Leaves []uint64
	Paths  [][]pathSkeleton
}

type pathSkeleton struct{ Index, Hashes int }

func skeletonOf(t *testing.T, raw []byte, p filecoin.RegisteredPoStProof) skeleton {
	t.Helper()
	v, err := DecodeVanillaProof(raw, p)
	if err != nil {
		t.Fatal(err)
	}
	s := skeleton{SectorID: v.SectorID, Len: len(raw)}
	for _, sp := range v.Sectors {
		var ss sectorSkeleton
		for _, ip := range sp.InclusionProofs {
			ss.Leaves = append(ss.Leaves, ip.LeafIndex())
			var path []pathSkeleton
			for _, pe := range ip.Path {
				path = append(path, pathSkeleton{pe.Index, len(pe.Hashes)})
			}
			ss.Paths = append(ss.Paths, path)
		}
		s.Sectors = append(s.Sectors, ss)
	}
	return s
}

func compareSkeletons(t *testing.T, what string, got, want skeleton) {
	t.Helper()
	if got.SectorID != want.SectorID || got.Len != want.Len || len(got.Sectors) != len(want.Sectors) {
		t.Fatalf("%s: sector %d, %d bytes, %d sector proofs; the real one: sector %d, %d bytes, %d", what,
			got.SectorID, got.Len, len(got.Sectors), want.SectorID, want.Len, len(want.Sectors))
	}
	for i := range want.Sectors {
		g, w := got.Sectors[i], want.Sectors[i]
		if len(g.Leaves) != len(w.Leaves) {
			t.Fatalf("%s: sectors[%d]: %d inclusion proofs, the real one %d", what, i, len(g.Leaves), len(w.Leaves))
		}
		for j := range w.Leaves {
			if g.Leaves[j] != w.Leaves[j] {
				t.Errorf("%s: sectors[%d].inclusion_proofs[%d] opens leaf %d, the real one %d", what, i, j, g.Leaves[j], w.Leaves[j])
			}
			if len(g.Paths[j]) != len(w.Paths[j]) {
				t.Fatalf("%s: sectors[%d].inclusion_proofs[%d]: path of %d, the real one %d", what, i, j, len(g.Paths[j]), len(w.Paths[j]))
			}
			for l := range w.Paths[j] {
				if g.Paths[j][l] != w.Paths[j][l] {
					t.Errorf("%s: sectors[%d].inclusion_proofs[%d].path[%d] = %+v, the real one %+v", what, i, j, l, g.Paths[j][l], w.Paths[j][l])
				}
			}
		}
	}
}

// A made-up input has the skeleton of the real vanilla proofs it stands
// for: given the same registered proof, randomness, miner and sector
// numbers, every id, count, variant, path index and byte length equals the
// real sector's (the rustref 2 KiB sectors sealed by rust-fil-proofs, and
// the 32 GiB sector of Curio's WindowPoSt in testdata); only hash values
// differ.
func TestMadeUpSkeletonMatchesReal(t *testing.T) {
	rustPoSt := filepath.Join(golden.Dir(), "post", "2KiB")
	for _, kind := range []string{"window", "winning"} {
		v, rnd, real := golden.ReadPoStVanilla(t, filepath.Join(rustPoSt, kind+".json"))
		p := filecoin.RegisteredPoStProof(v.RegisteredProof)
		// The rustref sector set is sectors 1 and 2 (window proves both,
		// winning draws one of them).
		m := madeUp(t, MadeUpParams{Proof: p, MinerID: 1000, Randomness: rnd, Sectors: 2, FirstSector: 1})
		got := m.Partitions[0].Entries
		if len(got) != len(real) {
			t.Fatalf("%s: %d entries, the real one %d", kind, len(got), len(real))
		}
		for i := range real {
			compareSkeletons(t, kind, skeletonOf(t, got[i], p), skeletonOf(t, real[i], p))
		}
	}

	raw, pub := loadCurio(t)
	p := filecoin.RegisteredPoStProof(pub.Proofs[0].PoStProof)
	var rnd [32]byte
	copy(rnd[:], pub.Randomness)
	m := madeUp(t, MadeUpParams{Proof: p, MinerID: pub.Prover, Randomness: rnd, Sectors: 1, FirstSector: pub.Challenged[0].SectorNumber})
	compareSkeletons(t, "32 GiB window", skeletonOf(t, m.Partitions[0].Entries[0], p), skeletonOf(t, raw, p))
	if len(m.Partitions[0].Entries[0]) != 24960 {
		t.Fatalf("32 GiB made-up vanilla proof: %d bytes", len(m.Partitions[0].Entries[0]))
	}
}

// 64 GiB (tree 8-8-2) and a full 32 GiB WindowPoSt partition are made as
// cheaply: sparse trees cost hashes per challenge, not per leaf.
func TestMadeUpFullSizeShapes(t *testing.T) {
	for _, c := range []struct {
		proof filecoin.RegisteredPoStProof
		shape merkle.Shape
	}{{filecoin.RegisteredPoStProof(14), merkle.ShapeTop2}, {filecoin.RegisteredPoStProof(4), merkle.ShapeTop2}, {filecoin.RegisteredPoStProof(3), merkle.ShapeSub8}} {
		m := madeUp(t, MadeUpParams{Proof: c.proof, MinerID: 1000, Randomness: DefaultRandomness(), Sectors: 3, FirstSector: 1})
		pt := checkMadeUp(t, m, 0)
		if got := pt.Proofs[0].InclusionProofs[0]; len(got.Path) != len(mustArities(t, c.shape, c.proof.SectorSize())) {
			t.Fatalf("%v: path of %d", c.proof, len(got.Path))
		}
	}
}

func mustArities(t *testing.T, s merkle.Shape, size filecoin.SectorSize) []int {
	t.Helper()
	a, err := s.Arities(int(size.Nodes()))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestMadeUpBadParams(t *testing.T) {
	ok := MadeUpParams{Proof: filecoin.RegisteredPoStProof(10), MinerID: 1000, Randomness: DefaultRandomness(), Sectors: 1, FirstSector: 1}
	var high [32]byte
	for i := range high {
		high[i] = 0xff
	}
	for _, c := range []struct {
		name   string
		change func(*MadeUpParams)
		want   error
	}{
		{"no sectors", func(p *MadeUpParams) { p.Sectors = 0 }, ErrSectors},
		{"ids overflow", func(p *MadeUpParams) { p.FirstSector = ^uint64(0) }, ErrSectors},
		{"randomness", func(p *MadeUpParams) { p.Randomness = high }, ErrRandomness},
		{"proof", func(p *MadeUpParams) { p.Proof = 99 }, ErrRegisteredProof},
	} {
		p := ok
		c.change(&p)
		if _, err := GenerateMadeUp(context.Background(), p, 1); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// WriteFiles writes what prove-post and verify-post read, every vanilla
// file marked as made without sealing.
func TestMadeUpFiles(t *testing.T) {
	m := madeUp(t, MadeUpParams{Proof: filecoin.RegisteredPoStProof(10), MinerID: 1000, Randomness: DefaultRandomness(), Sectors: 3, FirstSector: 5})
	dir := t.TempDir()
	f, err := m.WriteFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Vanilla) != 2 || len(f.Markers) != 2 || filepath.Base(f.Vanilla[1]) != "vanilla-p1.json" || filepath.Base(f.Public) != "public.json" {
		t.Fatalf("files %+v", f)
	}
	for k, path := range f.PartitionPublic {
		pub, err := ReadPublicFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if pub.PartitionIndex != k || pub.MadeWithoutSealing != MadeUpProvenance || pub.VanillaProofs != filepath.Base(f.Vanilla[k]) {
			t.Fatalf("%s: %+v", path, pub)
		}
		if b, err := os.ReadFile(f.Markers[k]); err != nil || !strings.HasPrefix(string(b), MadeUpProvenance) {
			t.Fatalf("marker %s: %q %v", f.Markers[k], b, err)
		}
	}
	whole, err := ReadPublicFile(f.Public)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Sectors) != 3 || whole.Sectors[0].SectorID != 5 || whole.PartitionIndex != 0 {
		t.Fatalf("whole public file: %+v", whole)
	}
}
