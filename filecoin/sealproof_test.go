package filecoin

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// sealProofTable pins every id, name, size, version and feature against
// rust-filecoin-proofs-api src/registry.rs and go-state-types.
var sealProofTable = []struct {
	id      int64
	name    string
	size    SectorSize
	version APIVersion
	feature APIFeature
	mode    ChallengeMode
}{
	{0, "StackedDrg2KiBV1", 2048, V1_0_0, 0, Interactive},
	{1, "StackedDrg8MiBV1", 8 << 20, V1_0_0, 0, Interactive},
	{2, "StackedDrg512MiBV1", 512 << 20, V1_0_0, 0, Interactive},
	{3, "StackedDrg32GiBV1", 32 << 30, V1_0_0, 0, Interactive},
	{4, "StackedDrg64GiBV1", 64 << 30, V1_0_0, 0, Interactive},
	{5, "StackedDrg2KiBV1_1", 2048, V1_1_0, 0, Interactive},
	{6, "StackedDrg8MiBV1_1", 8 << 20, V1_1_0, 0, Interactive},
	{7, "StackedDrg512MiBV1_1", 512 << 20, V1_1_0, 0, Interactive},
	{8, "StackedDrg32GiBV1_1", 32 << 30, V1_1_0, 0, Interactive},
	{9, "StackedDrg64GiBV1_1", 64 << 30, V1_1_0, 0, Interactive},
	{10, "StackedDrg2KiBV1_1_Feat_SyntheticPoRep", 2048, V1_2_0, FeatureSyntheticPoRep, Synthetic},
	{11, "StackedDrg8MiBV1_1_Feat_SyntheticPoRep", 8 << 20, V1_2_0, FeatureSyntheticPoRep, Synthetic},
	{12, "StackedDrg512MiBV1_1_Feat_SyntheticPoRep", 512 << 20, V1_2_0, FeatureSyntheticPoRep, Synthetic},
	{13, "StackedDrg32GiBV1_1_Feat_SyntheticPoRep", 32 << 30, V1_2_0, FeatureSyntheticPoRep, Synthetic},
	{14, "StackedDrg64GiBV1_1_Feat_SyntheticPoRep", 64 << 30, V1_2_0, FeatureSyntheticPoRep, Synthetic},
	{15, "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", 2048, V1_2_0, FeatureNonInteractivePoRep, NonInteractive},
	{16, "StackedDrg8MiBV1_2_Feat_NonInteractivePoRep", 8 << 20, V1_2_0, FeatureNonInteractivePoRep, NonInteractive},
	{17, "StackedDrg512MiBV1_2_Feat_NonInteractivePoRep", 512 << 20, V1_2_0, FeatureNonInteractivePoRep, NonInteractive},
	{18, "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep", 32 << 30, V1_2_0, FeatureNonInteractivePoRep, NonInteractive},
	{19, "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep", 64 << 30, V1_2_0, FeatureNonInteractivePoRep, NonInteractive},
}

func TestSealProofTable(t *testing.T) {
	if got := len(SealProofs()); got != len(sealProofTable) {
		t.Fatalf("SealProofs() has %d entries, want %d", got, len(sealProofTable))
	}
	for _, tc := range sealProofTable {
		p := RegisteredSealProof(tc.id)
		if !p.Valid() {
			t.Fatalf("%d: not valid", tc.id)
		}
		if got := p.String(); got != tc.name {
			t.Errorf("%d: String() = %q, want %q", tc.id, got, tc.name)
		}
		byName, err := ParseSealProof(tc.name)
		if err != nil || byName != p {
			t.Errorf("ParseSealProof(%q) = %d, %v; want %d", tc.name, byName, err, tc.id)
		}
		byID, err := SealProofFromID(uint64(tc.id))
		if err != nil || byID != p {
			t.Errorf("SealProofFromID(%d) = %d, %v", tc.id, byID, err)
		}
		if got := p.SectorSize(); got != tc.size {
			t.Errorf("%s: SectorSize() = %d, want %d", tc.name, got, tc.size)
		}
		if got := p.APIVersion(); got != tc.version {
			t.Errorf("%s: APIVersion() = %v, want %v", tc.name, got, tc.version)
		}
		if got := p.ChallengeMode(); got != tc.mode {
			t.Errorf("%s: ChallengeMode() = %v, want %v", tc.name, got, tc.mode)
		}
		feats := p.Features()
		switch {
		case tc.feature == 0 && feats != nil:
			t.Errorf("%s: Features() = %v, want none", tc.name, feats)
		case tc.feature != 0 && (len(feats) != 1 || feats[0] != tc.feature):
			t.Errorf("%s: Features() = %v, want [%v]", tc.name, feats, tc.feature)
		}
		for _, f := range []APIFeature{FeatureSyntheticPoRep, FeatureNonInteractivePoRep} {
			if got := p.HasFeature(f); got != (f == tc.feature) {
				t.Errorf("%s: HasFeature(%v) = %v", tc.name, f, got)
			}
		}
		if tc.feature != 0 && tc.version < tc.feature.FirstSupportedVersion() {
			t.Errorf("%s: version %v predates feature %v", tc.name, tc.version, tc.feature)
		}
		wantKey := "StackedDrg" + tc.size.String() + "V1"
		if got := p.VanillaProofKey(); got != wantKey {
			t.Errorf("%s: VanillaProofKey() = %q, want %q", tc.name, got, wantKey)
		}
		pid := p.PoRepID()
		if pid[0] != byte(tc.id) || strings.Trim(string(pid[1:]), "\x00") != "" {
			t.Errorf("%s: PoRepID() = %x", tc.name, pid)
		}
	}
}

func TestSealProofRejects(t *testing.T) {
	for _, name := range []string{
		"", "StackedDrg32GiBV1_2", "stackeddrg32gibv1_1", "StackedDrg32GiBV1_1 ",
		"StackedDrg32GiBV1_2_Feat_NiPoRep", // go-state-types spelling, not a serde name
		"StackedDrg4KiBV1", "RegisteredSealProof_StackedDrg32GiBV1_1",
	} {
		_, err := ParseSealProof(name)
		if !errors.Is(err, ErrUnknownSealProof) {
			t.Errorf("ParseSealProof(%q) error = %v, want ErrUnknownSealProof", name, err)
		} else if !strings.Contains(err.Error(), "\""+name+"\"") {
			t.Errorf("ParseSealProof(%q) error %q does not quote the name", name, err)
		}
	}
	for _, id := range []uint64{20, 21, 1 << 40, ^uint64(0)} {
		if _, err := SealProofFromID(id); !errors.Is(err, ErrUnknownSealProof) {
			t.Errorf("SealProofFromID(%d) error = %v, want ErrUnknownSealProof", id, err)
		}
	}
	for _, p := range []RegisteredSealProof{-1, 20} {
		if p.Valid() || p.SectorSize() != 0 || p.APIVersion() != 0 || p.CircuitID() != "" ||
			p.ParameterSetID() != "" || p.Partitions() != 0 || p.VanillaProofKey() != "" {
			t.Errorf("invalid proof %d reports data", p)
		}
		if got, want := p.String(), "RegisteredSealProof("; !strings.HasPrefix(got, want) {
			t.Errorf("String() of invalid = %q", got)
		}
		if _, err := p.MarshalText(); !errors.Is(err, ErrUnknownSealProof) {
			t.Errorf("MarshalText(%d) error = %v", p, err)
		}
	}
}

func TestSealProofJSON(t *testing.T) {
	type wrap struct {
		P RegisteredSealProof `json:"registered_proof"`
	}
	b, err := json.Marshal(wrap{StackedDrg32GiBV1_1})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"registered_proof":"StackedDrg32GiBV1_1"}`; string(b) != want {
		t.Fatalf("Marshal = %s, want %s", b, want)
	}
	var w wrap
	if err := json.Unmarshal([]byte(`{"registered_proof":"StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"}`), &w); err != nil {
		t.Fatal(err)
	}
	if w.P != StackedDrg2KiBV1_2_Feat_NonInteractivePoRep {
		t.Fatalf("Unmarshal = %v", w.P)
	}
	if err := json.Unmarshal([]byte(`{"registered_proof":"StackedDrg2KiBV9"}`), &w); !errors.Is(err, ErrUnknownSealProof) {
		t.Fatalf("Unmarshal of unknown name error = %v", err)
	}
}

// TestPoRepIDVectors checks porep ids against testdata/upstream/test_vectors.json
// (fil-proofs-tooling gen_graph_cache).
func TestPoRepIDVectors(t *testing.T) {
	raw, err := os.ReadFile("../testdata/upstream/test_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var tv struct {
		IDs struct {
			IDs map[string]uint64 `json:"ids"`
		} `json:"porep_ids_by_registered_proof"`
	}
	if err := json.Unmarshal(raw, &tv); err != nil {
		t.Fatal(err)
	}
	if len(tv.IDs.IDs) != 10 {
		t.Fatalf("test vectors list %d ids, want 10", len(tv.IDs.IDs))
	}
	for name, id := range tv.IDs.IDs {
		p, err := ParseSealProof(name)
		if err != nil {
			t.Fatal(err)
		}
		if uint64(p) != id {
			t.Errorf("%s: id %d, vectors say %d", name, p, id)
		}
		var want [32]byte
		want[0] = byte(id)
		if got := p.PoRepID(); got != want {
			t.Errorf("%s: PoRepID() = %x, want %x", name, got, want)
		}
	}
}

func TestSealProofPartitions(t *testing.T) {
	cases := []struct {
		p                                    RegisteredSealProof
		partitions, perPartition, minimumAll int
	}{
		{StackedDrg2KiBV1, 1, 2, 2},
		{StackedDrg512MiBV1_1, 1, 2, 2},
		{StackedDrg32GiBV1, 10, 18, 176},
		{StackedDrg64GiBV1_1, 10, 18, 176},
		{StackedDrg32GiBV1_1_Feat_SyntheticPoRep, 10, 18, 176},
		{StackedDrg2KiBV1_1_Feat_SyntheticPoRep, 1, 2, 2},
		{StackedDrg2KiBV1_2_Feat_NonInteractivePoRep, 13, 2, 26},
		{StackedDrg8MiBV1_2_Feat_NonInteractivePoRep, 13, 2, 26},
		{StackedDrg32GiBV1_2_Feat_NonInteractivePoRep, 126, 18, 2253},
		{StackedDrg64GiBV1_2_Feat_NonInteractivePoRep, 126, 18, 2253},
	}
	for _, tc := range cases {
		if got := tc.p.Partitions(); got != tc.partitions {
			t.Errorf("%v: Partitions() = %d, want %d", tc.p, got, tc.partitions)
		}
		if got := tc.p.ChallengesPerPartition(); got != tc.perPartition {
			t.Errorf("%v: ChallengesPerPartition() = %d, want %d", tc.p, got, tc.perPartition)
		}
		if got := tc.p.MinimumChallenges(); got != tc.minimumAll {
			t.Errorf("%v: MinimumChallenges() = %d, want %d", tc.p, got, tc.minimumAll)
		}
	}
}

func TestSealProofCircuitIDs(t *testing.T) {
	want := map[SectorSize]CircuitID{
		SectorSize2KiB: "porep-2k", SectorSize8MiB: "porep-8m", SectorSize512MiB: "porep-512m",
		SectorSize32GiB: "porep-32g", SectorSize64GiB: "porep-64g",
	}
	for _, p := range SealProofs() {
		c := p.CircuitID()
		if c != want[p.SectorSize()] {
			t.Errorf("%v: CircuitID() = %q, want %q", p, c, want[p.SectorSize()])
		}
		size, err := c.SectorSize()
		if err != nil || size != p.SectorSize() {
			t.Errorf("%q.SectorSize() = %v, %v", c, size, err)
		}
		id, err := c.ParameterSetID()
		if err != nil || id != p.ParameterSetID() {
			t.Errorf("%q.ParameterSetID() = %q, %v; proof says %q", c, id, err, p.ParameterSetID())
		}
	}
}

// Every registered proof is found from its porep_id and its size, and
// only from those: another size, another nonce or a stray byte finds none.
func TestSealProofOfPoRepID(t *testing.T) {
	for _, p := range SealProofs() {
		id := p.PoRepID()
		if got, ok := SealProofOfPoRepID(id, p.SectorSize()); !ok || got != p {
			t.Errorf("%v: got %v, %v", p, got, ok)
		}
		other := SectorSize2KiB
		if p.SectorSize() == other {
			other = SectorSize8MiB
		}
		if got, ok := SealProofOfPoRepID(id, other); ok {
			t.Errorf("%v as %v sectors: found %v", p, other, got)
		}
		for _, i := range []int{8, 31} {
			bad := id
			bad[i] ^= 1
			if got, ok := SealProofOfPoRepID(bad, p.SectorSize()); ok {
				t.Errorf("%v with byte %d changed: found %v", p, i, got)
			}
		}
	}
	var unknown [32]byte
	unknown[0] = 0xff
	if _, ok := SealProofOfPoRepID(unknown, SectorSize2KiB); ok {
		t.Error("an unknown id found a proof")
	}
}
