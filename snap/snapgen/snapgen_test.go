package snapgen

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/snap"
)

func generate(t *testing.T, p filecoin.RegisteredUpdateProof) *Result {
	t.Helper()
	r, err := Generate(context.Background(), DefaultParams(p), 2)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func decode(t *testing.T, r *Result) []*snap.PartitionProof {
	t.Helper()
	pps, err := snap.DecodePartitionProofs(r.VanillaProofs, r.Params.Proof)
	if err != nil {
		t.Fatal(err)
	}
	return pps
}

// A generated update passes the native vanilla check of every partition
// at every size, 32 and 64 GiB included (the tree shapes 8-8-0 and 8-8-2
// no update made here from a sector has). Generate checks it too; this
// test does not rely on that.
func TestGeneratedPassesVanillaCheck(t *testing.T) {
	for _, p := range filecoin.UpdateProofs() {
		t.Run(p.SectorSize().String(), func(t *testing.T) {
			if p.SectorSize() >= filecoin.SectorSize512MiB {
				testenv.Short(t, "512 MiB and up take seconds each")
			}
			r := generate(t, p)
			if got, want := len(r.VanillaProofs), p.Partitions(); got != want {
				t.Fatalf("%d partition proofs, want %d", got, want)
			}
			if err := snap.VerifyAll(context.Background(), r.Public, decode(t, r)); err != nil {
				t.Fatal(err)
			}
			if want := PeriodFor(p); r.Params.Period != want || RangeNodes(p)%want != 0 {
				t.Fatalf("period %d, want %d dividing %d", r.Params.Period, want, RangeNodes(p))
			}
			// Cheap because the trees are: at most 2^h ranges of one period.
			if limit := 2 * (int(p.Nodes()) / RangeNodes(p)) * r.Params.Period; r.Kept > limit {
				t.Fatalf("tree_r_new keeps %d nodes, more than %d", r.Kept, limit)
			}
			if p.SectorSize() == filecoin.SectorSize32GiB {
				sameAsProvenGolden(t, r)
			}
		})
	}
}

// Any change to what a proof or its public values commit to is caught:
// the generator is not producing something the check waves through.
func TestGeneratedTamperedFails(t *testing.T) {
	p := filecoin.UpdateProofs()[1] // 8 MiB: 4 partitions, h = 10
	r := generate(t, p)
	if err := snap.VerifyAll(context.Background(), r.Public, decode(t, r)); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		tamper func(pub *snap.Public, pps []*snap.PartitionProof)
		want   error
	}{
		"comm_r_new":  {func(pub *snap.Public, _ []*snap.PartitionProof) { pub.CommRNew.SetUint64(5) }, snap.ErrCommRNew},
		"comm_r_old":  {func(pub *snap.Public, _ []*snap.PartitionProof) { pub.CommROld.SetUint64(5) }, snap.ErrCommROld},
		"comm_d_new":  {func(pub *snap.Public, _ []*snap.PartitionProof) { pub.CommDNew[0] ^= 1 }, snap.ErrCommD},
		"comm_c":      {func(_ *snap.Public, pps []*snap.PartitionProof) { pps[2].CommC.SetUint64(5) }, snap.ErrCommROld},
		"old replica": {func(_ *snap.Public, pps []*snap.PartitionProof) { pps[1].ChallengeProofs[3].ROld.Leaf.SetUint64(5) }, snap.ErrMerklePath},
		"new data":    {func(_ *snap.Public, pps []*snap.PartitionProof) { pps[1].ChallengeProofs[4].DNew.Leaf[0] ^= 1 }, snap.ErrMerklePath},
		"new replica": {func(_ *snap.Public, pps []*snap.PartitionProof) { pps[3].ChallengeProofs[9].RNew.Leaf.SetUint64(5) }, snap.ErrMerklePath},
		"tree_r_new path": {func(_ *snap.Public, pps []*snap.PartitionProof) {
			pps[0].ChallengeProofs[0].RNew.Path[2].Hashes[1].SetUint64(5)
		}, snap.ErrMerklePath},
		// Every apex leaf: above the period the row is one value repeated,
		// and upstream's vanilla check only asks that each path sibling be
		// in its apex row (the circuit hashes the apex tree).
		"apex leaves": {func(_ *snap.Public, pps []*snap.PartitionProof) {
			for i := range pps[0].ApexLeafs {
				pps[0].ApexLeafs[i][3] ^= 1
			}
		}, snap.ErrApex},
		"challenge": {func(_ *snap.Public, pps []*snap.PartitionProof) {
			pps[2].ChallengeProofs[1] = pps[2].ChallengeProofs[2]
		}, snap.ErrChallenge},
		"partition order": {func(_ *snap.Public, pps []*snap.PartitionProof) { pps[0], pps[1] = pps[1], pps[0] }, snap.ErrChallenge},
	} {
		t.Run(name, func(t *testing.T) {
			pub, pps := r.Public, decode(t, r)
			c.tamper(&pub, pps)
			err := snap.VerifyAll(context.Background(), pub, pps)
			if err == nil {
				t.Fatal("tampered update accepted")
			}
			if !strings.Contains(name, "comm") && !errors.Is(err, c.want) {
				t.Fatalf("%v, want %v", err, c.want)
			}
		})
	}
}

// The generated update has the shape of one rust-fil-proofs made from a
// sealed CC sector (testdata/rustref/update, rustref snap-encode), field
// by field: the same number of partition proofs, each of the same bincode
// length, and the JSON of the decoded proofs, with every scalar replaced
// by its kind, the same tree (apex leaves, challenges, path lengths and
// arities, leaf indices' positions). update.json has every field the
// readers need, of the same JSON kind as upstream's.
func TestGeneratedShapeMatchesRust(t *testing.T) {
	for _, p := range []filecoin.RegisteredUpdateProof{filecoin.UpdateProofs()[0], filecoin.UpdateProofs()[1]} {
		t.Run(p.SectorSize().String(), func(t *testing.T) {
			dir := filepath.Join("..", "..", "testdata", "rustref", "update", p.SectorSize().String())
			var real []string
			readJSON(t, filepath.Join(dir, "vproofs.json"), &real)
			r := generate(t, p)
			if len(real) != len(r.VanillaProofs) {
				t.Fatalf("%d partition proofs, upstream %d", len(r.VanillaProofs), len(real))
			}
			realBytes := make([][]byte, len(real))
			for k, s := range real {
				var err error
				if realBytes[k], err = base64.StdEncoding.DecodeString(s); err != nil {
					t.Fatal(err)
				}
				if len(realBytes[k]) != len(r.VanillaProofs[k]) {
					t.Fatalf("partition %d: %d bytes, upstream %d", k, len(r.VanillaProofs[k]), len(realBytes[k]))
				}
			}
			want, err := snap.DecodePartitionProofs(realBytes, p)
			if err != nil {
				t.Fatal(err)
			}
			got := decode(t, r)
			for k := range got {
				g, w := skeleton(t, got[k]), skeleton(t, want[k])
				if g != w {
					i := 0
					for i < len(g) && i < len(w) && g[i] == w[i] {
						i++
					}
					t.Fatalf("partition %d: shape differs at character %d:\n got …%s\nwant …%s", k, i, clip(g, i), clip(w, i))
				}
			}

			out := t.TempDir()
			if _, err := WriteFiles(out, r); err != nil {
				t.Fatal(err)
			}
			var gen, up map[string]any
			readJSON(t, filepath.Join(out, snap.UpdateFileName), &gen)
			readJSON(t, filepath.Join(dir, snap.UpdateFileName), &up)
			for _, k := range []string{"registered_proof", "registered_proof_api", "sector_size", "sector_number", "miner_id",
				"comm_r_old", "comm_r_new", "comm_d_new", "comm_c", "comm_r_last_new", "partitions", "vproofs_file"} {
				if _, ok := gen[k]; !ok {
					t.Errorf("update.json has no %s", k)
				}
			}
			for k, v := range gen {
				if k == "made_without_sealing" || k == "new_data" {
					continue
				}
				u, ok := up[k]
				if !ok {
					t.Errorf("update.json's %s is not upstream's", k)
				} else if reflect.TypeOf(u) != reflect.TypeOf(v) {
					t.Errorf("update.json's %s is %T, upstream's %T", k, v, u)
				}
			}
			if gen["made_without_sealing"] != Provenance {
				t.Errorf("made_without_sealing %v", gen["made_without_sealing"])
			}
		})
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func clip(s string, i int) string { return s[max(0, i-80):min(len(s), i+80)] }

// skeleton is the JSON of v with every number replaced by "n", every
// string by "s" and null kept: what is left is its shape.
func skeleton(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&x); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			b.WriteByte('{')
			for _, k := range keys {
				b.WriteString(k + ":")
				walk(x[k])
				b.WriteByte(',')
			}
			b.WriteByte('}')
		case []any:
			b.WriteByte('[')
			for _, e := range x {
				walk(e)
				b.WriteByte(',')
			}
			b.WriteByte(']')
		case json.Number:
			b.WriteByte('n')
		case string:
			b.WriteByte('s')
		case nil:
			b.WriteString("null")
		default:
			fmt.Fprintf(&b, "%T", x)
		}
	}
	walk(x)
	return b.String()
}

// The same parameters give the same bytes; another sector another update.
func TestGenerateDeterministic(t *testing.T) {
	p := filecoin.UpdateProofs()[0]
	a, b := generate(t, p), generate(t, p)
	if !reflect.DeepEqual(a.VanillaProofs, b.VanillaProofs) || a.Public != b.Public {
		t.Fatal("two runs differ")
	}
	q := DefaultParams(p)
	q.Sector = 2
	c, err := Generate(context.Background(), q, 1)
	if err != nil {
		t.Fatal(err)
	}
	if c.Public.CommROld == a.Public.CommROld || c.Public.CommRNew == a.Public.CommRNew {
		t.Fatal("sector 2 has sector 1's commitments")
	}
	if c.Public.CommDNew != a.Public.CommDNew {
		t.Fatal("the same data gives another comm_d_new")
	}
}

func TestGenerateRefusesBadPeriod(t *testing.T) {
	for _, period := range []int{2, 12, 1 << 20} {
		q := DefaultParams(filecoin.UpdateProofs()[1])
		q.Period = period
		if _, err := Generate(context.Background(), q, 1); err == nil {
			t.Errorf("period %d accepted", period)
		}
	}
	if _, err := Generate(context.Background(), DefaultParams(filecoin.RegisteredUpdateProof(9)), 1); !errors.Is(err, snap.ErrRegisteredProof) {
		t.Errorf("update proof 9: %v", err)
	}
}

// provenGolden is the 32 GiB update whose partition 0 was proven and
// accepted by rust-fil-proofs (cmd/cuzk TestFullSizeSnapPartitionGolden).
const provenGolden = "../../testdata/fullsize/snap-update-32GiB-partition0/update.json"

// sameAsProvenGolden: the generator still makes the update the golden
// proof was made for (its public values; the vanilla proofs follow from
// them), so scripts/fullsize-snap.sh redoes that run.
func sameAsProvenGolden(t *testing.T, r *Result) {
	t.Helper()
	b, err := os.ReadFile(provenGolden)
	if err != nil {
		t.Fatal(err)
	}
	var want snap.UpdateFile
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	got := r.UpdateFile()
	if got.CommROld != want.CommROld || got.CommRNew != want.CommRNew || got.CommDNew != want.CommDNew {
		t.Fatalf("the generator's 32 GiB update (comm_r_old %s, comm_r_new %s, comm_d_new %s) is not the proven golden's (%s, %s, %s)",
			got.CommROld, got.CommRNew, got.CommDNew, want.CommROld, want.CommRNew, want.CommDNew)
	}
}
