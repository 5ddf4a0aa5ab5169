package oneshot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/procmem"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/prover/gpu"
)

// An invalid request and a failed self-check are ErrInvalid and read as
// the engine's reason alone; a job that failed otherwise is not.
func TestOutcome(t *testing.T) {
	bad := fmt.Errorf("%w: randomness is 5 bytes", engine.ErrInvalidRequest)
	self := fmt.Errorf("partition 0: %w", engine.ErrSelfCheck)
	oom := errors.New("out of memory")
	for _, tc := range []struct {
		name    string
		res     engine.Result
		err     error
		invalid bool
		text    string
	}{
		{"invalid request", engine.Result{}, bad, true, bad.Error()},
		{"refused", engine.Result{}, oom, false, oom.Error()},
		{"self-check", engine.Result{State: engine.StateFailed, Err: self}, nil, true, self.Error()},
		{"failed", engine.Result{State: engine.StateFailed, Err: oom}, nil, false, "job " + engine.StateFailed.String() + ": out of memory"},
	} {
		got := outcome(tc.res, tc.err)
		if got == nil || errors.Is(got, ErrInvalid) != tc.invalid || got.Error() != tc.text {
			t.Errorf("%s: %v (invalid %v), want %q (invalid %v)", tc.name, got, errors.Is(got, ErrInvalid), tc.text, tc.invalid)
		}
	}
	if err := outcome(engine.Result{State: engine.StateCompleted}, nil); err != nil {
		t.Errorf("completed: %v", err)
	}
	if !errors.Is(outcome(engine.Result{}, bad), engine.ErrInvalidRequest) {
		t.Error("the engine's sentinel is lost")
	}
}

// A plain C1 is wrapped in Curio's envelope for the engine; one already
// wrapped goes as it is.
func TestC2(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "rustref", "seal", "2KiB", "c1.json"))
	if err != nil {
		t.Fatal(err)
	}
	job, err := C2(raw)
	if err != nil {
		t.Fatal(err)
	}
	o, w, err := c1.ParseAny(job.Request.VanillaProof)
	if err != nil || w == nil {
		t.Fatalf("the request's C1 is not wrapped: %v", err)
	}
	if job.Request.Kind != proofkind.PoRep || job.Request.RegisteredProof != uint64(o.RegisteredProof) ||
		job.Circuit != o.RegisteredProof.CircuitID() || job.Name != o.RegisteredProof.String() {
		t.Fatalf("%+v", job)
	}
	again, err := C2(job.Request.VanillaProof)
	if err != nil || string(again.Request.VanillaProof) != string(job.Request.VanillaProof) {
		t.Fatalf("a wrapped C1 changed: %v", err)
	}
	if _, err := C2([]byte("{}")); err == nil {
		t.Fatal("an empty object is a C1")
	}
	if k, ok := job.Partition(); ok {
		t.Fatalf("C2 proves partition %d alone", k)
	}
}

// C2Partition keeps C2's request (partition_index untouched: Curio's 0
// means every partition) and proves the one partition through the
// planner; a partition the C1 lacks is refused with its count.
func TestC2Partition(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "rustref", "seal", "2KiB", "c1.json"))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := C2(raw)
	if err != nil {
		t.Fatal(err)
	}
	job, err := C2Partition(raw, 0)
	if err != nil {
		t.Fatal(err)
	}
	if k, ok := job.Partition(); !ok || k != 0 || job.Request.PartitionIndex != 0 || string(job.Request.VanillaProof) != string(whole.Request.VanillaProof) {
		t.Fatalf("partition %d (%v), request %+v", k, ok, job.Request)
	}
	for _, k := range []int{1, -1} {
		_, err := C2Partition(raw, k)
		if !errors.Is(err, porep.ErrPartition) || !strings.Contains(err.Error(), "has 1 partition(s)") {
			t.Errorf("partition %d: %v", k, err)
		}
	}
}

// GPU in a build without CUDA is an error before anything is loaded,
// never a silent CPU proof.
func TestGPUWithoutCUDA(t *testing.T) {
	if gpu.Built {
		t.Skip("built with CUDA")
	}
	job := Job{Request: &engine.Request{Kind: proofkind.PoRep}}
	if _, err := Prove(context.Background(), job, Options{GPU: true, ParamsDir: t.TempDir()}); !errors.Is(err, gpu.ErrNoCUDA) {
		t.Fatalf("got %v, want gpu.ErrNoCUDA", err)
	}
}

// PoSt jobs take their kind from the registered proof.
func TestPoStAndUpdate(t *testing.T) {
	for _, p := range filecoin.PoStProofs() {
		job := PoSt(p, []byte{1}, 2, 3, nil)
		want := proofkind.WindowPoSt
		if p.Type() == filecoin.WinningPoSt {
			want = proofkind.WinningPoSt
		}
		r := job.Request
		if r.Kind != want || r.PartitionIndex != 2 || r.MinerID != 3 || r.SectorSize != uint64(p.SectorSize()) || job.Circuit != p.CircuitID() {
			t.Errorf("%v: %+v", p, job)
		}
	}
	p := filecoin.UpdateProofs()[0]
	job := Update(p, [32]byte{1}, [32]byte{2}, [32]byte{3}, nil)
	if r := job.Request; r.Kind != proofkind.SnapDeals || r.CommROld[0] != 1 || r.CommRNew[0] != 2 || r.CommDNew[0] != 3 || len(r.CommDNew) != 32 {
		t.Errorf("%+v", r)
	}
}

// A request the engine refuses is ErrInvalid, and the stage report is
// written (with its .partial) all the same, its table to Stderr.
func TestProveInvalid(t *testing.T) {
	report := filepath.Join(t.TempDir(), "stages.json")
	var stderr strings.Builder
	job := PoSt(filecoin.PoStProofs()[0], []byte{1, 2, 3, 4, 5}, 0, 0, nil)
	_, err := Prove(context.Background(), job, Options{ParamsDir: t.TempDir(), Workers: 1, StageReport: report, Stderr: &stderr})
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("got %v, want ErrInvalid", err)
	}
	var got struct{ Stages []procmem.Stage }
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &got); err != nil || len(got.Stages) == 0 || got.Stages[0].Name != "plan and parameters" {
		t.Fatalf("stage report %s: %v", b, err)
	}
	if _, err := os.Stat(report + ".partial"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "plan and parameters") {
		t.Fatalf("no stage table on stderr: %q", stderr.String())
	}
}

func TestWriteStageReport(t *testing.T) {
	var b strings.Builder
	path := filepath.Join(t.TempDir(), "r.json")
	stages := []procmem.Stage{{Name: "p0 synthesis", Wall: 1500 * time.Millisecond, PeakAnon: 3 << 29}}
	if err := writeStageReport(path, &b, stages); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "p0 synthesis") || !strings.Contains(b.String(), "1.5s") || !strings.Contains(b.String(), "1.50") {
		t.Fatalf("table %q", b.String())
	}
	if err := writeStageReport(filepath.Join(path, "no", "dir"), &b, stages); err == nil {
		t.Fatal("writing under a file succeeded")
	}
}

// FixedRandomness reads r and s as little-endian field elements and names
// the one that is not canonical.
func TestFixedRandomness(t *testing.T) {
	r, s := [32]byte{0: 5}, [32]byte{0: 7, 1: 1}
	got, err := FixedRandomness(r, s)
	if err != nil {
		t.Fatal(err)
	}
	var wantR, wantS fr.Element
	wantR.SetUint64(5)
	wantS.SetUint64(7 + 256)
	if !got.R.Equal(&wantR) || !got.S.Equal(&wantS) {
		t.Errorf("r, s = %v, %v; want 5, 263", got.R.String(), got.S.String())
	}
	notCanonical := [32]byte{31: 0xff}
	if _, err := FixedRandomness(notCanonical, s); err == nil || !strings.HasPrefix(err.Error(), "r: ") {
		t.Errorf("r not canonical: %v", err)
	}
	if _, err := FixedRandomness(r, notCanonical); err == nil || !strings.HasPrefix(err.Error(), "s: ") {
		t.Errorf("s not canonical: %v", err)
	}
}
