package filecoin

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestShapes pins REFERENCES §1.1 (filecoin-proofs constants.rs).
func TestShapes(t *testing.T) {
	cases := []struct {
		size                                  SectorSize
		name                                  string
		nodes                                 uint64
		layers                                int
		tree                                  string
		baseTrees, baseLevels, pathLen, treeD int
		partitions, minChallenges, perPart    int
		niPartitions, niMinChallenges, inputs int
		published                             bool
	}{
		{SectorSize2KiB, "2KiB", 1 << 6, 2, "8-0-0", 1, 2, 2, 6, 1, 2, 2, 13, 26, 39, true},
		{SectorSize4KiB, "4KiB", 1 << 7, 2, "8-2-0", 2, 2, 3, 7, 1, 2, 2, 13, 26, 39, false},
		{SectorSize16KiB, "16KiB", 1 << 9, 2, "8-8-0", 8, 2, 3, 9, 1, 2, 2, 13, 26, 39, false},
		{SectorSize32KiB, "32KiB", 1 << 10, 2, "8-8-2", 16, 2, 4, 10, 1, 2, 2, 13, 26, 39, false},
		{SectorSize8MiB, "8MiB", 1 << 18, 2, "8-0-0", 1, 6, 6, 18, 1, 2, 2, 13, 26, 39, true},
		{SectorSize16MiB, "16MiB", 1 << 19, 2, "8-2-0", 2, 6, 7, 19, 1, 2, 2, 13, 26, 39, false},
		{SectorSize512MiB, "512MiB", 1 << 24, 2, "8-0-0", 1, 8, 8, 24, 1, 2, 2, 13, 26, 39, true},
		{SectorSize1GiB, "1GiB", 1 << 25, 2, "8-2-0", 2, 8, 9, 25, 1, 2, 2, 13, 26, 39, false},
		{SectorSize32GiB, "32GiB", 1 << 30, 11, "8-8-0", 8, 9, 10, 30, 10, 176, 18, 126, 2253, 327, true},
		{SectorSize64GiB, "64GiB", 1 << 31, 11, "8-8-2", 16, 9, 11, 31, 10, 176, 18, 126, 2253, 327, true},
	}
	if got := len(SupportedSectorSizes()); got != len(cases) {
		t.Fatalf("SupportedSectorSizes() has %d sizes, want %d", got, len(cases))
	}
	for _, tc := range cases {
		s, err := tc.size.SealSpec()
		if err != nil {
			t.Fatalf("%v: %v", tc.size, err)
		}
		if got := tc.size.String(); got != tc.name {
			t.Errorf("String() = %q, want %q", got, tc.name)
		}
		check := func(what string, got, want any) {
			if got != want {
				t.Errorf("%s: %s = %v, want %v", tc.name, what, got, want)
			}
		}
		check("SectorSize", s.SectorSize(), tc.size)
		check("Nodes", s.Nodes(), tc.nodes)
		check("Layers", s.Layers(), tc.layers)
		check("Tree", s.Tree().String(), tc.tree)
		check("BaseTreeCount", s.BaseTreeCount(), tc.baseTrees)
		check("BaseTreeLevels", s.BaseTreeLevels(), tc.baseLevels)
		check("TreePathLength", s.TreePathLength(), tc.pathLen)
		check("TreeDDepth", s.TreeDDepth(), tc.treeD)
		check("BaseTreeLeaves*count", s.BaseTreeLeaves()*uint64(tc.baseTrees), tc.nodes)
		for _, m := range []ChallengeMode{Interactive, Synthetic} {
			check("Partitions("+m.String()+")", s.Partitions(m), tc.partitions)
			check("MinimumChallenges("+m.String()+")", s.MinimumChallenges(m), tc.minChallenges)
			check("ChallengesPerPartition("+m.String()+")", s.ChallengesPerPartition(m), tc.perPart)
		}
		check("Partitions(ni)", s.Partitions(NonInteractive), tc.niPartitions)
		check("MinimumChallenges(ni)", s.MinimumChallenges(NonInteractive), tc.niMinChallenges)
		// NI-PoRep must reuse the interactive circuit and so its params.
		check("ChallengesPerPartition(ni)", s.ChallengesPerPartition(NonInteractive), tc.perPart)
		check("PublicInputsPerPartition", s.PublicInputsPerPartition(), tc.inputs)
		check("Published", tc.size.Published(), tc.published)
		if s.ChallengesPerPartition(NonInteractive) > MaxChallengesPerPartition {
			t.Errorf("%s: more challenges than the circuit takes", tc.name)
		}
	}
	for _, bad := range []SectorSize{0, 1024, 64 << 20, 128 << 30} {
		if _, err := bad.SealSpec(); !errors.Is(err, ErrUnsupportedSectorSize) {
			t.Errorf("SealSpec(%d) error = %v, want ErrUnsupportedSectorSize", bad, err)
		}
	}
}

// TestPoRepIdentifier pins the identifiers asserted by rust-fil-proofs
// test_public_params_identifier.
func TestPoRepIdentifier(t *testing.T) {
	want := map[SectorSize]string{
		SectorSize32GiB: "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: 1073741824; degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges { layers: 11, max_count: 18 }, tree: merkletree-poseidon_hasher-8-8-0 }",
		SectorSize64GiB: "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: 2147483648; degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges { layers: 11, max_count: 18 }, tree: merkletree-poseidon_hasher-8-8-2 }",
	}
	for size, w := range want {
		s, _ := size.SealSpec()
		if got := s.PoRepIdentifier(); got != w {
			t.Errorf("%v:\n got %s\nwant %s", size, got, w)
		}
	}
}

type manifestEntry struct {
	CID        string `json:"cid"`
	Digest     string `json:"digest"`
	SectorSize uint64 `json:"sector_size"`
}

func readManifest(t *testing.T) map[string]manifestEntry {
	t.Helper()
	raw, err := os.ReadFile("paramcheck/parameters.json")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]manifestEntry{}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// compareNames requires derived (name -> sector size) to equal the manifest
// entries whose name starts with prefix.
func compareNames(t *testing.T, manifest map[string]manifestEntry, prefix string, derived map[string]SectorSize) {
	t.Helper()
	var listed []string
	for name, e := range manifest {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		listed = append(listed, name)
		size, ok := derived[name]
		if !ok {
			t.Errorf("manifest entry not derived: %s", name)
			continue
		}
		if uint64(size) != e.SectorSize {
			t.Errorf("%s: derived for %d bytes, manifest says %d", name, size, e.SectorSize)
		}
	}
	if len(listed) != len(derived) {
		var extra []string
		for name := range derived {
			if _, ok := manifest[name]; !ok {
				extra = append(extra, name)
			}
		}
		sort.Strings(extra)
		t.Errorf("derived %d names, manifest has %d; not in manifest: %v", len(derived), len(listed), extra)
	}
}

// TestPoRepParameterFiles derives every PoRep entry of the official manifest.
func TestPoRepParameterFiles(t *testing.T) {
	derived := map[string]SectorSize{}
	for _, p := range SealProofs() {
		id := p.ParameterSetID()
		derived[id.ParamsFileName()] = p.SectorSize()
		derived[id.VerifyingKeyFileName()] = p.SectorSize()
	}
	if len(derived) != 10 {
		t.Fatalf("20 seal proofs give %d files, want 10 (5 sizes x params/vk)", len(derived))
	}
	compareNames(t, readManifest(t), "v28-stacked-proof-of-replication-", derived)

	const want32 = "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820"
	id := StackedDrg32GiBV1_1.ParameterSetID()
	for got, want := range map[string]string{
		id.ParamsFileName():       want32 + ".params",
		id.VerifyingKeyFileName(): want32 + ".vk",
		id.MetadataFileName():     want32 + ".meta",
	} {
		if got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}

// TestPoStParameterFiles derives every PoSt entry of the official manifest.
func TestPoStParameterFiles(t *testing.T) {
	derived := map[string]SectorSize{}
	for _, p := range PoStProofs() {
		id := p.ParameterSetID()
		derived[id.ParamsFileName()] = p.SectorSize()
		derived[id.VerifyingKeyFileName()] = p.SectorSize()
	}
	if len(derived) != 20 {
		t.Fatalf("15 PoSt proofs give %d files, want 20 (window V1 and V1_2 share)", len(derived))
	}
	compareNames(t, readManifest(t), "v28-proof-of-spacetime-fallback-", derived)
	// Curio cuzk's srs_manager pins these two.
	for p, want := range map[RegisteredPoStProof]string{
		StackedDrgWindow32GiBV1_2: "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.params",
		StackedDrgWinning32GiBV1:  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e.params",
	} {
		if got := p.ParameterSetID().ParamsFileName(); got != want {
			t.Errorf("%v: %s, want %s", p, got, want)
		}
	}
}

func TestPoStProofs(t *testing.T) {
	names := []string{
		"StackedDrgWinning2KiBV1", "StackedDrgWinning8MiBV1", "StackedDrgWinning512MiBV1", "StackedDrgWinning32GiBV1", "StackedDrgWinning64GiBV1",
		"StackedDrgWindow2KiBV1", "StackedDrgWindow8MiBV1", "StackedDrgWindow512MiBV1", "StackedDrgWindow32GiBV1", "StackedDrgWindow64GiBV1",
		"StackedDrgWindow2KiBV1_2", "StackedDrgWindow8MiBV1_2", "StackedDrgWindow512MiBV1_2", "StackedDrgWindow32GiBV1_2", "StackedDrgWindow64GiBV1_2",
	}
	if len(PoStProofs()) != len(names) {
		t.Fatalf("PoStProofs() has %d, want %d", len(PoStProofs()), len(names))
	}
	for id, name := range names {
		p := RegisteredPoStProof(id)
		if p.String() != name {
			t.Errorf("%d: String() = %q, want %q", id, p.String(), name)
		}
		if q, err := ParsePoStProof(name); err != nil || q != p {
			t.Errorf("ParsePoStProof(%q) = %d, %v", name, q, err)
		}
		if q, err := PoStProofFromID(uint64(id)); err != nil || q != p {
			t.Errorf("PoStProofFromID(%d) = %d, %v", id, q, err)
		}
		wantType, wantVersion := WindowPoSt, V1_0_0
		if id < 5 {
			wantType = WinningPoSt
		}
		if id >= 10 {
			wantVersion = V1_2_0
		}
		if p.Type() != wantType || p.APIVersion() != wantVersion {
			t.Errorf("%s: type %v version %v", name, p.Type(), p.APIVersion())
		}
		if p.SectorSize() != sealProofSizes[id%5] {
			t.Errorf("%s: SectorSize() = %v", name, p.SectorSize())
		}
	}
	if got := StackedDrgWindow32GiBV1_2.SectorCount(); got != 2349 {
		t.Errorf("32GiB window sector count %d", got)
	}
	if got := StackedDrgWindow64GiBV1.SectorCount(); got != 2300 {
		t.Errorf("64GiB window sector count %d", got)
	}
	if got := StackedDrgWinning2KiBV1.ChallengeCount(); got != 66 {
		t.Errorf("winning challenge count %d", got)
	}
	for _, bad := range []string{"", "StackedDrgWindow32GiBV1_1", "StackedDrgWinning32GiBV1_2"} {
		if _, err := ParsePoStProof(bad); !errors.Is(err, ErrUnknownPoStProof) {
			t.Errorf("ParsePoStProof(%q) error = %v", bad, err)
		}
	}
	if _, err := PoStProofFromID(15); !errors.Is(err, ErrUnknownPoStProof) {
		t.Errorf("PoStProofFromID(15) error = %v", err)
	}
	if p := RegisteredPoStProof(15); p.Valid() || p.ParameterSetID() != "" || p.Type() != 0 {
		t.Error("invalid PoSt proof reports data")
	}
}

func TestCircuitIDs(t *testing.T) {
	for _, c := range PoRepCircuits() {
		got, err := ParseCircuitID(string(c))
		if err != nil || got != c {
			t.Errorf("ParseCircuitID(%q) = %q, %v", c, got, err)
		}
		s, err := c.SealSpec()
		if err != nil {
			t.Fatal(err)
		}
		back, err := PoRepCircuitID(s.SectorSize())
		if err != nil || back != c {
			t.Errorf("PoRepCircuitID(%v) = %q, %v", s.SectorSize(), back, err)
		}
	}
	for _, bad := range []string{"", "porep-32G", "porep-4k", "wpost-4k", "wpost", "snap-32G", "window-32g", "porep-32g "} {
		if _, err := ParseCircuitID(bad); !errors.Is(err, ErrUnknownCircuit) {
			t.Errorf("ParseCircuitID(%q) error = %v", bad, err)
		}
		if _, err := CircuitID(bad).SealSpec(); !errors.Is(err, ErrUnknownCircuit) {
			t.Errorf("CircuitID(%q).SealSpec() error = %v", bad, err)
		}
		if _, err := CircuitID(bad).ParameterSetID(); !errors.Is(err, ErrUnknownCircuit) {
			t.Errorf("CircuitID(%q).ParameterSetID() error = %v", bad, err)
		}
	}
	if _, err := PoRepCircuitID(SectorSize4KiB); !errors.Is(err, ErrUnknownCircuit) {
		t.Errorf("PoRepCircuitID(4KiB) error = %v", err)
	}
}

func TestCacheDirs(t *testing.T) {
	env := func(kv ...string) LookupEnv {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	cases := []struct {
		lookup         LookupEnv
		params, parent string
	}{
		{nil, "/var/tmp/filecoin-proof-parameters/", "/var/tmp/filecoin-parents"},
		{env(), "/var/tmp/filecoin-proof-parameters/", "/var/tmp/filecoin-parents"},
		{env("FIL_PROOFS_PARAMETER_CACHE", "/srv/params"), "/srv/params", "/var/tmp/filecoin-parents"},
		{env("FIL_PROOFS_PARAMETER_CACHE", ""), "/var/tmp/filecoin-proof-parameters/", "/var/tmp/filecoin-parents"},
		{env("FIL_PROOFS_CACHE_DIR", "/cache/"), "/var/tmp/filecoin-proof-parameters/", "/cache/filecoin-parents"},
		{env("FIL_PROOFS_CACHE_DIR", "/cache/", "FIL_PROOFS_PARENT_CACHE", "/p"), "/var/tmp/filecoin-proof-parameters/", "/p"},
	}
	for i, tc := range cases {
		if got := ParameterCacheDir(tc.lookup); got != tc.params {
			t.Errorf("%d: ParameterCacheDir = %q, want %q", i, got, tc.params)
		}
		if got := ParentCacheDir(tc.lookup); got != tc.parent {
			t.Errorf("%d: ParentCacheDir = %q, want %q", i, got, tc.parent)
		}
	}
}

func TestParamDir(t *testing.T) {
	env := func(k string) (string, bool) {
		if k == ParameterCacheEnv {
			return "/srv/params", true
		}
		return "", false
	}
	cases := []struct {
		configured string
		lookup     LookupEnv
		want       string
	}{
		{"/cfg", env, "/cfg"},
		{"/cfg", nil, "/cfg"},
		{"", env, "/srv/params"},
		{"  ", env, "/srv/params"},
		{"", nil, DefaultParameterCacheDir},
	}
	for _, tc := range cases {
		if got := ParamDir(tc.configured, tc.lookup); got != tc.want {
			t.Errorf("ParamDir(%q) = %q, want %q", tc.configured, got, tc.want)
		}
	}
}

func TestProverID(t *testing.T) {
	cases := []struct {
		miner uint64
		want  []byte
	}{
		{0, nil},
		{1, []byte{0x01}},
		{127, []byte{0x7f}},
		{128, []byte{0x80, 0x01}},
		{1000, []byte{0xe8, 0x07}},
		{1234567, []byte{0x87, 0xad, 0x4b}},
		{^uint64(0), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
	}
	for _, tc := range cases {
		var want [32]byte
		copy(want[:], tc.want)
		if got := ProverID(tc.miner); got != want {
			t.Errorf("ProverID(%d) = %x, want %x", tc.miner, got, want)
		}
	}
}

func TestAPIVersionParse(t *testing.T) {
	for _, v := range []APIVersion{V1_0_0, V1_1_0, V1_2_0} {
		for _, s := range []string{v.String(), "V" + strings.ReplaceAll(v.String(), ".", "_")} {
			got, err := ParseAPIVersion(s)
			if err != nil || got != v {
				t.Errorf("ParseAPIVersion(%q) = %v, %v", s, got, err)
			}
		}
	}
	for _, bad := range []string{"", "1.3.0", "1.0", "v1_0_0"} {
		if _, err := ParseAPIVersion(bad); !errors.Is(err, ErrUnknownAPIVersion) {
			t.Errorf("ParseAPIVersion(%q) error = %v", bad, err)
		}
	}
	if APIVersion(0).Valid() || !(V1_0_0 < V1_1_0 && V1_1_0 < V1_2_0) {
		t.Error("api version zero value or ordering broken")
	}
	for _, f := range []APIFeature{FeatureSyntheticPoRep, FeatureNonInteractivePoRep} {
		if got, err := ParseAPIFeature(f.String()); err != nil || got != f {
			t.Errorf("ParseAPIFeature(%q) = %v, %v", f.String(), got, err)
		}
	}
	if _, err := ParseAPIFeature("synthetic"); !errors.Is(err, ErrUnknownAPIFeature) {
		t.Errorf("ParseAPIFeature error = %v", err)
	}
}

// The cache is found by its configured name, its default and a link to
// it; another directory, even inside it, is not the cache.
func TestIsParameterCache(t *testing.T) {
	cache := t.TempDir()
	env := func(k string) (string, bool) {
		if k == ParameterCacheEnv {
			return cache, true
		}
		return "", false
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(cache, link); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]bool{
		cache: true, cache + "/": true, link: true, DefaultParameterCacheDir: true,
		filepath.Join(cache, "sub"): false, t.TempDir(): false,
	} {
		if got := IsParameterCache(dir, env); got != want {
			t.Errorf("%s: %v, want %v", dir, got, want)
		}
	}
	if IsParameterCache(cache, nil) {
		t.Error("without the environment the configured cache is just a directory")
	}
}
