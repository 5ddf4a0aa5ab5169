package filecoin

import (
	"errors"
	"testing"
)

// TestUpdateProofs pins storage-proofs-update/src/constants.rs and the
// proofs-api registry for the five registered update proofs.
func TestUpdateProofs(t *testing.T) {
	cases := []struct {
		name                         string
		size                         SectorSize
		tree                         string
		partitions, challenges, h    int
		hSelect                      uint64
		apex, cBits, pBits, apexBits int
	}{
		{"StackedDrg2KiBV1", SectorSize2KiB, "8-0-0", 1, 10, 1, 1, 8, 6, 0, 3},
		{"StackedDrg8MiBV1", SectorSize8MiB, "8-0-0", 4, 10, 10, 8, 128, 18, 2, 7},
		{"StackedDrg512MiBV1", SectorSize512MiB, "8-0-0", 16, 86, 10, 8, 128, 24, 4, 7},
		{"StackedDrg32GiBV1", SectorSize32GiB, "8-8-0", 16, 86, 10, 8, 128, 30, 4, 7},
		{"StackedDrg64GiBV1", SectorSize64GiB, "8-8-2", 16, 86, 10, 8, 128, 31, 4, 7},
	}
	if len(UpdateProofs()) != len(cases) {
		t.Fatalf("%d update proofs", len(UpdateProofs()))
	}
	for id, c := range cases {
		p := RegisteredUpdateProof(id)
		check := func(what string, got, want any) {
			if got != want {
				t.Errorf("%s: %s = %v, want %v", c.name, what, got, want)
			}
		}
		check("String", p.String(), c.name)
		check("SectorSize", p.SectorSize(), c.size)
		check("TreeShape", p.TreeShape().String(), c.tree)
		check("Partitions", p.Partitions(), c.partitions)
		check("ChallengeCount", p.ChallengeCount(), c.challenges)
		check("H", p.H(), c.h)
		check("HSelect", p.HSelect(), c.hSelect)
		check("ApexLeafCount", p.ApexLeafCount(), c.apex)
		check("ChallengeBits", p.ChallengeBits(), c.cBits)
		check("PartitionBits", p.PartitionBits(), c.pBits)
		check("ApexLeafBits", p.ApexLeafBits(), c.apexBits)
		check("APIVersion", p.APIVersion(), V1_1_0)
		check("PublicInputCount+ONE", p.PublicInputCount()+1, 5)
		for _, name := range []string{c.name, "StackedDrg" + c.size.String() + "UpdateV1"} {
			if q, err := ParseUpdateProof(name); err != nil || q != p {
				t.Errorf("ParseUpdateProof(%q) = %v, %v", name, q, err)
			}
		}
		if q, err := UpdateProofFromID(uint64(id)); err != nil || q != p {
			t.Errorf("UpdateProofFromID(%d) = %v, %v", id, q, err)
		}
		if q, err := UpdateProofForSize(c.size); err != nil || q != p {
			t.Errorf("UpdateProofForSize(%v) = %v, %v", c.size, q, err)
		}
	}
	if _, err := UpdateProofFromID(5); !errors.Is(err, ErrUnknownUpdateProof) {
		t.Errorf("id 5: %v", err)
	}
	if _, err := ParseUpdateProof("StackedDrg32GiBV1_1"); !errors.Is(err, ErrUnknownUpdateProof) {
		t.Errorf("bad name: %v", err)
	}
	if _, err := UpdateProofForSize(SectorSize4KiB); !errors.Is(err, ErrUnknownUpdateProof) {
		t.Errorf("4KiB: %v", err)
	}
	if p := RegisteredUpdateProof(-1); p.Valid() || p.ParameterSetID() != "" || p.Partitions() != 0 {
		t.Error("invalid update proof reports data")
	}
}

// TestUpdateParameterFiles derives every EmptySectorUpdate entry of the
// official manifest (the EmptySectorUpdate-Poseidon ones are not Curio's).
func TestUpdateParameterFiles(t *testing.T) {
	derived := map[string]SectorSize{}
	for _, p := range UpdateProofs() {
		id := p.ParameterSetID()
		derived[id.ParamsFileName()] = p.SectorSize()
		derived[id.VerifyingKeyFileName()] = p.SectorSize()
	}
	if len(derived) != 10 {
		t.Fatalf("%d files, want 10", len(derived))
	}
	compareNames(t, readManifest(t), "v28-empty-sector-update-merkletree-", derived)
	const want32 = "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params"
	if got := StackedDrg32GiBUpdateV1.ParameterSetID().ParamsFileName(); got != want32 {
		t.Errorf("32GiB update: %s", got)
	}
}

// TestPoStCircuitShape pins the circuit sector/challenge counts and the
// public input counts of REFERENCES-POST-SNAP §4 (23, 133, 25,840 with ONE).
func TestPoStCircuitShape(t *testing.T) {
	cases := []struct {
		p                       RegisteredPoStProof
		sectors, challenges, in int
		tree                    string
	}{
		{StackedDrgWindow2KiBV1_2, 2, 10, 23, "8-0-0"},
		{StackedDrgWindow8MiBV1, 2, 10, 23, "8-0-0"},
		{StackedDrgWindow512MiBV1_2, 2, 10, 23, "8-0-0"},
		{StackedDrgWindow32GiBV1_2, 2349, 10, 25840, "8-8-0"},
		{StackedDrgWindow64GiBV1_2, 2300, 10, 25301, "8-8-2"},
		{StackedDrgWinning2KiBV1, 66, 1, 133, "8-0-0"},
		{StackedDrgWinning32GiBV1, 66, 1, 133, "8-8-0"},
		{StackedDrgWinning64GiBV1, 66, 1, 133, "8-8-2"},
	}
	for _, c := range cases {
		if got := c.p.CircuitSectorCount(); got != c.sectors {
			t.Errorf("%v: CircuitSectorCount %d, want %d", c.p, got, c.sectors)
		}
		if got := c.p.CircuitChallengeCount(); got != c.challenges {
			t.Errorf("%v: CircuitChallengeCount %d, want %d", c.p, got, c.challenges)
		}
		if got := c.p.PublicInputCount() + 1; got != c.in {
			t.Errorf("%v: inputs with ONE %d, want %d", c.p, got, c.in)
		}
		if got := c.p.TreeShape().String(); got != c.tree {
			t.Errorf("%v: tree %s, want %s", c.p, got, c.tree)
		}
	}
}
