package graph

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"math/bits"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/internal/testenv"
)

func mustGraph(t testing.TB, nodes uint64, porepID [32]byte, v filecoin.APIVersion) *Graph {
	t.Helper()
	g, err := New(nodes, porepID, v)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestPolkaVectors checks the 2 KiB sector of testdata/polka-2kib-porep
// (porep_id all zero, api 1.2.0), whose Groth16 proof verifies with inputs
// built from exactly these parents.
func TestPolkaVectors(t *testing.T) {
	var pub struct {
		Config struct {
			Nodes      uint64 `json:"nodes"`
			PoRepID    string `json:"porep_id_hex"`
			APIVersion string `json:"api_version"`
		} `json:"porep_config"`
		Derived struct {
			DRGSeed     string    `json:"drg_seed_28_hex"`
			FeistelKeys [4]uint64 `json:"feistel_keys_u64"`
			Challenges  []struct {
				Challenge  uint32   `json:"challenge"`
				DRGParents []uint32 `json:"drg_parents"`
				ExpParents []uint32 `json:"exp_parents"`
			} `json:"challenges"`
		} `json:"derived"`
	}
	golden.ReadJSON(t, "../../testdata/polka-2kib-porep/public.json", &pub)

	var porepID [32]byte
	if b, err := hex.DecodeString(pub.Config.PoRepID); err != nil || copy(porepID[:], b) != 32 {
		t.Fatalf("bad porep_id %q", pub.Config.PoRepID)
	}
	v, err := filecoin.ParseAPIVersion(pub.Config.APIVersion)
	if err != nil {
		t.Fatal(err)
	}
	g := mustGraph(t, pub.Config.Nodes, porepID, v)

	seed := g.DRGSeed()
	if got := hex.EncodeToString(seed[:]); got != pub.Derived.DRGSeed {
		t.Errorf("DRGSeed = %s, want %s", got, pub.Derived.DRGSeed)
	}
	if got := g.FeistelKeys(); got != pub.Derived.FeistelKeys {
		t.Errorf("FeistelKeys = %v, want %v", got, pub.Derived.FeistelKeys)
	}
	if len(pub.Derived.Challenges) == 0 {
		t.Fatal("no challenges in public.json")
	}
	for _, c := range pub.Derived.Challenges {
		var p [Degree]uint32
		g.Parents(c.Challenge, p[:])
		want := append(append([]uint32(nil), c.DRGParents...), c.ExpParents...)
		if len(want) != Degree {
			t.Fatalf("challenge %d: vector has %d parents", c.Challenge, len(want))
		}
		for i := range want {
			if p[i] != want[i] {
				t.Errorf("challenge %d: parents %v, want %v", c.Challenge, p, want)
				break
			}
		}
	}
}

type parentCacheEntry struct {
	SectorSize uint64 `json:"sector_size"`
	Digest     string `json:"digest"`
}

// TestParentCacheNames derives every entry name of the official
// parent_cache.json from the registered proofs that seal with it.
func TestParentCacheNames(t *testing.T) {
	manifest := map[string]parentCacheEntry{}
	golden.ReadJSON(t, "../../testdata/upstream/parent_cache.json", &manifest)
	if len(manifest) != 10 {
		t.Fatalf("manifest has %d entries, want 10", len(manifest))
	}
	found := map[string]bool{}
	for _, p := range filecoin.SealProofs()[:10] { // V1 and V1_1: the graphs the manifest lists
		g, err := ForSealProof(p)
		if err != nil {
			t.Fatal(err)
		}
		id := g.ParentCacheID()
		e, ok := manifest[id]
		if !ok {
			t.Errorf("%v: parent cache %s not in manifest", p, id)
			continue
		}
		if e.SectorSize != uint64(p.SectorSize()) {
			t.Errorf("%v: manifest says %d bytes", p, e.SectorSize)
		}
		found[id] = true
		if g.ParentCacheFileName() != id+".cache" {
			t.Errorf("file name %s", g.ParentCacheFileName())
		}
	}
	if len(found) != len(manifest) {
		t.Errorf("derived %d of %d manifest names", len(found), len(manifest))
	}
}

// TestParentCacheDigests regenerates official parent caches and compares
// their sha256 with parent_cache.json (2 KiB always, 8 MiB without -short).
func TestParentCacheDigests(t *testing.T) {
	manifest := map[string]parentCacheEntry{}
	golden.ReadJSON(t, "../../testdata/upstream/parent_cache.json", &manifest)
	var vectors struct {
		Digests struct {
			Cases []struct {
				SectorSize uint64 `json:"sector_size"`
				Nodes      uint64 `json:"nodes"`
				APIVersion string `json:"api_version"`
				Digest     string `json:"digest"`
			} `json:"cross_checked (an independent Go graph re-implementation reproduces these digests exactly)"`
		} `json:"parent_cache_digests"`
	}
	golden.ReadJSON(t, "../../testdata/upstream/test_vectors.json", &vectors)
	if len(vectors.Digests.Cases) != 4 {
		t.Fatalf("test_vectors.json lists %d digests, want 4", len(vectors.Digests.Cases))
	}
	want := map[string]string{}
	for _, c := range vectors.Digests.Cases {
		want[c.Digest] = c.APIVersion
	}

	for _, p := range []filecoin.RegisteredSealProof{
		filecoin.StackedDrg2KiBV1, filecoin.StackedDrg2KiBV1_1,
		filecoin.StackedDrg8MiBV1, filecoin.StackedDrg8MiBV1_1,
	} {
		t.Run(p.String(), func(t *testing.T) {
			if p.SectorSize() > filecoin.SectorSize2KiB {
				testenv.Short(t, "the 8 MiB parent cache")
			}
			g, err := ForSealProof(p)
			if err != nil {
				t.Fatal(err)
			}
			e, ok := manifest[g.ParentCacheID()]
			if !ok {
				t.Fatalf("no manifest entry %s", g.ParentCacheID())
			}
			if v, ok := want[e.Digest]; !ok || v != p.APIVersion().String() && v != "V"+underscored(p.APIVersion()) {
				t.Fatalf("manifest digest %s not cross-listed in test_vectors.json for %v", e.Digest, p.APIVersion())
			}
			file := cacheFile(t, g)
			if got := sha256.Sum256(file); hex.EncodeToString(got[:]) != e.Digest {
				t.Errorf("digest %x, want %s", got, e.Digest)
			}
			if uint64(len(file)) != g.ParentCacheSize() {
				t.Errorf("%d bytes, want %d", len(file), g.ParentCacheSize())
			}
		})
	}
}

func underscored(v filecoin.APIVersion) string {
	b := []byte(v.String())
	for i := range b {
		if b[i] == '.' {
			b[i] = '_'
		}
	}
	return string(b)
}

// TestPredecessorSlot checks upstream graph_bucket: every DRG parent
// precedes the node, none is the node itself, and node-1 sits in slot 5
// (1.0.0) or slot 0 (1.1.0, 1.2.0); nodes 0 and 1 have zero parents.
func TestPredecessorSlot(t *testing.T) {
	for _, tc := range []struct {
		v    filecoin.APIVersion
		id   byte
		slot int
	}{{filecoin.V1_0_0, 0, 5}, {filecoin.V1_1_0, 5, 0}, {filecoin.V1_2_0, 5, 0}} {
		for _, nodes := range []uint64{4, 8, 16, 32, 256, 2048} {
			g := mustGraph(t, nodes, [32]byte{tc.id}, tc.v)
			var p [BaseDegree]uint32
			for node := range uint32(nodes) {
				g.BaseParents(node, p[:])
				if node < 2 {
					if p != [BaseDegree]uint32{} {
						t.Fatalf("node %d: parents %v, want zeros", node, p)
					}
					continue
				}
				if p[tc.slot] != node-1 {
					t.Fatalf("%v nodes=%d node=%d: parents %v, predecessor not in slot %d", tc.v, nodes, node, p, tc.slot)
				}
				for _, q := range p {
					if q >= node {
						t.Fatalf("%v node %d: parent %d does not precede it", tc.v, node, q)
					}
				}
			}
		}
	}
}

// TestAPIVersionsAgree: 1.1.0 and 1.2.0 give the same graph; 1.0.0 differs
// only by the predecessor slot for small graphs (the expander narrowing
// differs only from 2^29 nodes on).
func TestAPIVersionsAgree(t *testing.T) {
	id := [32]byte{7}
	g10 := mustGraph(t, 1024, id, filecoin.V1_0_0)
	g11 := mustGraph(t, 1024, id, filecoin.V1_1_0)
	g12 := mustGraph(t, 1024, id, filecoin.V1_2_0)
	var a, b, c [Degree]uint32
	for node := range uint32(1024) {
		g10.Parents(node, a[:])
		g11.Parents(node, b[:])
		g12.Parents(node, c[:])
		if b != c {
			t.Fatalf("node %d: 1.1.0 %v != 1.2.0 %v", node, b, c)
		}
		rotated := a
		copy(rotated[1:BaseDegree], a[:BaseDegree-1])
		rotated[0] = a[BaseDegree-1]
		if rotated != b {
			t.Fatalf("node %d: 1.0.0 %v is not 1.1.0 %v with the predecessor moved", node, a, b)
		}
	}
}

// TestExpanderNarrowing: for 2^31 nodes (64 GiB) the 1.0.0 narrowing keeps
// every expander parent below 2^29 (upstream's "pathology"), 1.1.0 does not.
func TestExpanderNarrowing(t *testing.T) {
	const nodes = 1 << 31
	id := [32]byte{4}
	g10 := mustGraph(t, nodes, id, filecoin.V1_0_0)
	g11 := mustGraph(t, nodes, id, filecoin.V1_1_0)
	var p10, p11 [ExpansionDegree]uint32
	sawHigh := false
	for node := range uint32(200) {
		g10.ExpanderParents(node, p10[:])
		g11.ExpanderParents(node, p11[:])
		for i := range p10 {
			if p10[i] >= 1<<29 {
				t.Fatalf("1.0.0 node %d: parent %d >= 2^29", node, p10[i])
			}
			if p10[i] != p11[i]&(1<<29-1) {
				t.Fatalf("node %d slot %d: 1.0.0 %d is not 1.1.0 %d narrowed", node, i, p10[i], p11[i])
			}
			sawHigh = sawHigh || p11[i] >= nodes/2
		}
	}
	if !sawHigh {
		t.Error("1.1.0 never produced a parent in the upper half")
	}
}

// TestSmallGraphs covers the 8- and 32-node sectors of upstream's stacked
// circuit tests: all parents in range, expander parents a permutation image.
func TestSmallGraphs(t *testing.T) {
	for _, nodes := range []uint64{2, 8, 32, 64} {
		g := mustGraph(t, nodes, [32]byte{1}, filecoin.V1_2_0)
		cache, err := g.ParentCache(context.Background(), 2)
		if err != nil {
			t.Fatal(err)
		}
		count := make([]int, nodes)
		for i, p := range cache {
			if uint64(p) >= nodes {
				t.Fatalf("nodes=%d: entry %d = %d out of range", nodes, i, p)
			}
			if i%Degree >= BaseDegree {
				count[p]++
			}
		}
		// The expander edges form a permutation of node*8+i, so every node is
		// an expander parent exactly 8 times.
		for n, c := range count {
			if c != ExpansionDegree {
				t.Fatalf("nodes=%d: node %d is an expander parent %d times", nodes, n, c)
			}
		}
	}
}

// cacheFile is g's parent cache file as upstream writes it: every node's
// parents, u32 little-endian.
func cacheFile(t *testing.T, g *Graph) []byte {
	t.Helper()
	parents, err := g.ParentCache(context.Background(), 4)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 0, len(parents)*4)
	for _, p := range parents {
		out = binary.LittleEndian.AppendUint32(out, p)
	}
	return out
}

// TestParentCacheLayouts: Parents, ParentsRange and ParentCache agree for
// any worker count.
func TestParentCacheLayouts(t *testing.T) {
	g := mustGraph(t, 1000, [32]byte{9}, filecoin.V1_1_0)
	want := make([]uint32, 1000*Degree)
	for node := range uint32(1000) {
		g.Parents(node, want[node*Degree:])
	}
	ranged := make([]uint32, 10*Degree)
	g.ParentsRange(500, ranged)
	for i := range ranged {
		if ranged[i] != want[500*Degree+i] {
			t.Fatalf("ParentsRange entry %d differs", i)
		}
	}
	for _, workers := range []int{0, 1, 3, 1000} {
		mem, err := g.ParentCache(context.Background(), workers)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range want {
			if mem[i] != p {
				t.Fatalf("workers=%d: ParentCache entry %d = %d, want %d", workers, i, mem[i], p)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.ParentCache(ctx, 2); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled ParentCache error = %v", err)
	}
}

func TestNewRejects(t *testing.T) {
	for _, n := range []uint64{0, 1, math.MaxUint32 + 1, 1 << 40} {
		if _, err := New(n, [32]byte{}, filecoin.V1_1_0); !errors.Is(err, ErrNodeCount) {
			t.Errorf("New(%d) error = %v, want ErrNodeCount", n, err)
		}
	}
	for _, v := range []filecoin.APIVersion{0, 4} {
		if _, err := New(64, [32]byte{}, v); !errors.Is(err, ErrAPIVersion) {
			t.Errorf("New(version %d) error = %v, want ErrAPIVersion", v, err)
		}
	}
	if _, err := ForSealProof(20); !errors.Is(err, filecoin.ErrUnknownSealProof) {
		t.Errorf("ForSealProof(20) error = %v", err)
	}
	g := mustGraph(t, 64, [32]byte{}, filecoin.V1_1_0)
	if err := g.CheckNode(64); !errors.Is(err, ErrNodeOutOfRange) {
		t.Errorf("CheckNode(64) error = %v", err)
	}
	if err := g.CheckNode(63); err != nil {
		t.Errorf("CheckNode(63) error = %v", err)
	}
	for name, f := range map[string]func(){
		"node out of range": func() { g.Parents(64, make([]uint32, Degree)) },
		"short dst":         func() { g.Parents(3, make([]uint32, Degree-1)) },
		"ragged range":      func() { g.ParentsRange(0, make([]uint32, Degree+1)) },
		"range past end":    func() { g.ParentsRange(60, make([]uint32, 5*Degree)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestForSealProof(t *testing.T) {
	for _, p := range filecoin.SealProofs() {
		g, err := ForSealProof(p)
		if err != nil {
			t.Fatal(err)
		}
		if g.Nodes() != p.SectorSize().Nodes() || g.PoRepID() != p.PoRepID() || g.APIVersion() != p.APIVersion() {
			t.Errorf("%v: graph %d nodes, porep_id %x, version %v", p, g.Nodes(), g.PoRepID(), g.APIVersion())
		}
	}
}

// TestBucketCountMatchesFloat: the integer ceil(log2(m)) used for n_buckets
// equals upstream's f64 computation for every metagraph size that occurs
// around the powers of two up to 64 GiB sectors.
func TestBucketCountMatchesFloat(t *testing.T) {
	check := func(m uint64) {
		if m < 2 {
			return
		}
		want := uint64(math.Ceil(math.Log2(float64(m))))
		if got := uint64(bits.Len64(m - 1)); got != want {
			t.Fatalf("m=%d: integer %d, float %d", m, got, want)
		}
	}
	for k := uint(1); k <= 36; k++ {
		for d := uint64(0); d < 64; d++ {
			check(1<<k + d)
			check(1<<k - d)
		}
	}
	for m := uint64(2); m < 1<<16; m++ {
		check(m)
	}
}
