package filecoin

import (
	"errors"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/proofkind"
)

// TestAllCircuitIDs pins the id of every kind and size (Curio's cuzk names
// the 32 GiB ones "wpost-32g", "winning-32g", "snap-32g") and the
// round trips between ids, kinds, sizes and registered proofs.
func TestAllCircuitIDs(t *testing.T) {
	want := map[proofkind.Kind][]CircuitID{
		proofkind.PoRep:       {"porep-2k", "porep-8m", "porep-512m", "porep-32g", "porep-64g"},
		proofkind.WindowPoSt:  {"wpost-2k", "wpost-8m", "wpost-512m", "wpost-32g", "wpost-64g"},
		proofkind.WinningPoSt: {"winning-2k", "winning-8m", "winning-512m", "winning-32g", "winning-64g"},
		proofkind.SnapDeals:   {"snap-2k", "snap-8m", "snap-512m", "snap-32g", "snap-64g"},
	}
	all := Circuits()
	if len(all) != 20 {
		t.Fatalf("Circuits() has %d ids, want 20", len(all))
	}
	i := 0
	for _, k := range Kinds() {
		if got, err := ParseKind(k.String()); err != nil || got != k {
			t.Errorf("ParseKind(%q) = %v, %v", k.String(), got, err)
		}
		for j, size := range PublishedSectorSizes() {
			c := want[k][j]
			if all[i] != c {
				t.Errorf("Circuits()[%d] = %q, want %q", i, all[i], c)
			}
			i++
			if got, err := ParseCircuitID(string(c)); err != nil || got != c {
				t.Errorf("ParseCircuitID(%q) = %q, %v", c, got, err)
			}
			if got, err := CircuitIDFor(k, size); err != nil || got != c {
				t.Errorf("CircuitIDFor(%v, %v) = %q, %v", k, size, got, err)
			}
			if c.Kind() != k {
				t.Errorf("%q.Kind() = %v", c, c.Kind())
			}
			if s, err := c.SectorSize(); err != nil || s != size {
				t.Errorf("%q.SectorSize() = %v, %v", c, s, err)
			}
			if _, err := c.SealSpec(); err != nil {
				t.Errorf("%q.SealSpec(): %v", c, err)
			}
			id, err := c.ParameterSetID()
			if err != nil {
				t.Fatalf("%q.ParameterSetID(): %v", c, err)
			}
			var fromProof ParameterSetID
			switch k {
			case proofkind.PoRep:
				p, err := c.SealProof()
				if err != nil || p.CircuitID() != c {
					t.Errorf("%q.SealProof() = %v, %v", c, p, err)
				}
				fromProof = p.ParameterSetID()
			case proofkind.WindowPoSt, proofkind.WinningPoSt:
				p, err := c.PoStProof()
				if err != nil || p.CircuitID() != c {
					t.Errorf("%q.PoStProof() = %v, %v", c, p, err)
				}
				fromProof = p.ParameterSetID()
			case proofkind.SnapDeals:
				p, err := c.UpdateProof()
				if err != nil || p.CircuitID() != c {
					t.Errorf("%q.UpdateProof() = %v, %v", c, p, err)
				}
				fromProof = p.ParameterSetID()
			}
			if id != fromProof {
				t.Errorf("%q: parameter set %s, its proof's is %s", c, id, fromProof)
			}
		}
	}
	// Every registered proof names the circuit of its kind and size; window
	// V1 and V1_2 share one.
	for _, p := range PoStProofs() {
		k := proofkind.WindowPoSt
		if p.Type() == WinningPoSt {
			k = proofkind.WinningPoSt
		}
		if c, _ := CircuitIDFor(k, p.SectorSize()); p.CircuitID() != c {
			t.Errorf("%v.CircuitID() = %q, want %q", p, p.CircuitID(), c)
		}
	}
	for _, p := range UpdateProofs() {
		if c, _ := CircuitIDFor(proofkind.SnapDeals, p.SectorSize()); p.CircuitID() != c {
			t.Errorf("%v.CircuitID() = %q", p, p.CircuitID())
		}
	}
	if RegisteredPoStProof(15).CircuitID() != "" || RegisteredUpdateProof(5).CircuitID() != "" {
		t.Error("invalid proofs name a circuit")
	}
	// Asking a circuit for another kind's proof is an error.
	if _, err := CircuitWindowPoSt2K.UpdateProof(); !errors.Is(err, ErrUnknownCircuit) {
		t.Errorf("wpost-2k UpdateProof: %v", err)
	}
	if _, err := CircuitUpdate2K.PoStProof(); !errors.Is(err, ErrUnknownCircuit) {
		t.Errorf("snap-2k PoStProof: %v", err)
	}
	if _, err := CircuitPoRep2K.PoStProof(); !errors.Is(err, ErrUnknownCircuit) {
		t.Errorf("porep-2k PoStProof: %v", err)
	}
	if _, err := CircuitWinningPoSt2K.SealProof(); !errors.Is(err, ErrUnknownCircuit) {
		t.Errorf("winning-2k SealProof: %v", err)
	}
	if _, err := CircuitIDFor(proofkind.SnapDeals, SectorSize4KiB); !errors.Is(err, ErrUnknownCircuit) {
		t.Errorf("snap at 4 KiB: %v", err)
	}
	if _, err := CircuitIDFor(0, SectorSize2KiB); !errors.Is(err, ErrUnknownCircuit) {
		t.Errorf("kind 0: %v", err)
	}
	for _, alias := range []string{"wpost", "WINDOW-POST", "winning", "update", "snap-deals"} {
		if _, err := ParseKind(alias); err != nil {
			t.Errorf("ParseKind(%q): %v", alias, err)
		}
	}
	for _, bad := range []string{"post", "test"} {
		if _, err := ParseKind(bad); !errors.Is(err, ErrUnknownCircuit) {
			t.Errorf("ParseKind(%s): %v", bad, err)
		}
	}
	if _, err := CircuitIDFor(proofkind.Test, SectorSize2KiB); !errors.Is(err, ErrUnknownCircuit) {
		t.Errorf("test kind: %v", err)
	}
}

// TestCircuitParameterFiles: the parameter and verifying key names of
// every circuit id, derived, are exactly the official manifest's entries
// (less the EmptySectorUpdate-Poseidon circuit, which Curio never
// proves), each for the circuit's sector size. The srs locator finds
// parameters by these names.
func TestCircuitParameterFiles(t *testing.T) {
	derived := map[string]SectorSize{}
	for _, c := range Circuits() {
		id, err := c.ParameterSetID()
		if err != nil {
			t.Fatal(err)
		}
		size, _ := c.SectorSize()
		for _, name := range []string{id.ParamsFileName(), id.VerifyingKeyFileName()} {
			if _, dup := derived[name]; dup {
				t.Errorf("%q: %s named twice", c, name)
			}
			derived[name] = size
		}
	}
	manifest := readManifest(t)
	for name := range manifest {
		if strings.HasPrefix(name, "v28-empty-sector-update-poseidon-") {
			delete(manifest, name)
		}
	}
	compareNames(t, manifest, "v28-", derived)
	if len(derived) != 40 {
		t.Errorf("%d names, want 40", len(derived))
	}
	// The 32 GiB names Curio's cuzk pins (srs_manager.rs).
	for c, want := range map[CircuitID]string{
		CircuitPoRep32G:       "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820",
		CircuitWindowPoSt32G:  "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc",
		CircuitWinningPoSt32G: "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e",
		CircuitUpdate32G:      "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18",
		CircuitUpdate64G:      "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7",
	} {
		id, _ := c.ParameterSetID()
		if got := id.ParamsFileName(); got != want+".params" {
			t.Errorf("%q: %s, want %s.params", c, got, want)
		}
	}
}
