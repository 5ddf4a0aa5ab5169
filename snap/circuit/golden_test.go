package circuit

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/r1cs"
)

func frHex(e fr.Element) string {
	var b [32]byte
	fr.LittleEndian.PutElement(&b, e)
	return hex.EncodeToString(b[:])
}

func hexFr(t testing.TB, s string) fr.Element {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		t.Fatalf("bad commitment %q", s)
	}
	return frLE(t, [32]byte(b))
}

// updateFile is testdata/rustref/update/<size>/update.json.
type updateFile struct {
	SectorSize  uint64 `json:"sector_size"`
	CommROld    string `json:"comm_r_old"`
	CommRNew    string `json:"comm_r_new"`
	CommDNew    string `json:"comm_d_new"`
	H           int    `json:"h"`
	VProofsFile string `json:"vproofs_file"`
}

// circuitFromVanilla is EmptySectorUpdateCompound::circuit for partition k
// of a vanilla PartitionProof: circuit::PrivateInputs::new takes the roots
// from the first challenge's proofs.
func circuitFromVanilla(t testing.TB, p Params, k int, u *updateFile, vp *binPartitionProof) *EmptySectorUpdate {
	t.Helper()
	pub, err := NewPublicInputs(p, k, u.H, hexFr(t, u.CommROld), hexFr(t, u.CommDNew), hexFr(t, u.CommRNew))
	if err != nil {
		t.Fatal(err)
	}
	if len(vp.challenges) == 0 {
		t.Fatal("no challenge proofs")
	}
	priv := PrivateInputs{
		CommC:    frLE(t, vp.commC),
		RootROld: frLE(t, vp.challenges[0].rOld.root),
		RootRNew: frLE(t, vp.challenges[0].rNew.root),
	}
	for _, l := range vp.apexLeafs {
		priv.ApexLeafs = append(priv.ApexLeafs, frLE(t, l))
	}
	sibs := func(m *binMerkleProof) [][]fr.Element {
		var out [][]fr.Element
		for _, e := range m.path {
			var lvl []fr.Element
			for _, h := range e.hashes {
				lvl = append(lvl, frLE(t, h))
			}
			out = append(out, lvl)
		}
		return out
	}
	for i := range vp.challenges {
		c := &vp.challenges[i]
		priv.Challenges = append(priv.Challenges, ChallengeProof{
			LeafROld: frLE(t, c.rOld.leaf), PathROld: sibs(&c.rOld),
			LeafDNew: frLE(t, c.dNew.leaf), PathDNew: sibs(&c.dNew),
			LeafRNew: frLE(t, c.rNew.leaf), PathRNew: sibs(&c.rNew),
		})
	}
	circ, err := New(p, pub, priv)
	if err != nil {
		t.Fatal(err)
	}
	return circ
}

func loadUpdate(t *testing.T, size string) (*updateFile, []*binPartitionProof) {
	t.Helper()
	dir := filepath.Join(golden.Dir(), "update", size)
	raw, err := os.ReadFile(filepath.Join(dir, "update.json"))
	if err != nil {
		t.Fatalf("%v (the golden's vanilla inputs must be committed with it)", err)
	}
	var u updateFile
	if err := json.Unmarshal(raw, &u); err != nil {
		t.Fatal(err)
	}
	name := u.VProofsFile
	if name == "" {
		name = "vproofs.json"
	}
	raw, err = os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	var vps []string
	if err := json.Unmarshal(raw, &vps); err != nil {
		t.Fatal(err)
	}
	var out []*binPartitionProof
	for k, s := range vps {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		p, err := decodePartitionProof(b)
		if err != nil {
			t.Fatalf("partition %d: %v", k, err)
		}
		out = append(out, p)
	}
	return &u, out
}

// The EmptySectorUpdate circuits built from the vanilla partition proofs
// rust-fil-proofs made (tools/rustref snap-encode: a CC sector updated with
// new data) must be the real EmptySectorUpdateCircuit's rows, inputs and
// witness, partition by partition. 8 MiB partition 3 (both partition bits
// set) runs by default; partitions 0..2 (10 M rows each into a recorder) run
// with -tags heavy (golden_heavy_test.go).
func TestGoldenUpdate(t *testing.T) {
	t.Run("update_2KiB_p0", func(t *testing.T) { compareUpdateGolden(t, "2KiB", 0) })
	t.Run("update_8MiB_p3", func(t *testing.T) {
		if testing.Short() {
			t.Skip("10 M rows into a recorder")
		}
		compareUpdateGolden(t, "8MiB", 3)
	})
}

func compareUpdateGolden(t *testing.T, size string, k int) {
	t.Helper()
	g := golden.Require(t, fmt.Sprintf("update_%s_p%d", size, k))
	u, vps := loadUpdate(t, size)
	p := mustParams(t, u.SectorSize)
	if len(vps) != p.Partitions {
		t.Fatalf("%d partition proofs, want %d", len(vps), p.Partitions)
	}
	c := circuitFromVanilla(t, p, k, u, vps[k])
	rec := r1cs.NewRecorder()
	if _, err := r1cs.Synthesize(c, rec); err != nil {
		t.Fatal(err)
	}
	golden.Compare(t, g, rec.Digest())
	want := c.Public.Vector()
	if len(g.PublicInputs) != len(want) {
		t.Fatalf("golden has %d public inputs, circuit %d", len(g.PublicInputs), len(want))
	}
	for i := range want {
		if frHex(want[i]) != g.PublicInputs[i] {
			t.Errorf("public input %d: %s, rust %s", i, frHex(want[i]), g.PublicInputs[i])
		}
	}
}
