package srs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"

	"github.com/cuzk-dev/cuzk/budget"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/filecoin/paramcheck"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/r1cs"
	"github.com/cuzk-dev/cuzk/srs"
)

// paramDir holds the parameters of test-k8 and test-k10 only, linked from the
// machine's cache (testkit.RunWithTestParams).
var paramDir string

func TestMain(m *testing.M) { os.Exit(testkit.RunWithTestParams(m, &paramDir, 8, 10)) }

func paramsPath(k int) string { return filepath.Join(paramDir, testkind.FileBase(k)+".params") }

func newManager(t *testing.T, loc srs.Locator, total int64, minIdle time.Duration) (*srs.Manager, *budget.Budget, *testkit.SyncBuffer) {
	t.Helper()
	var logs testkit.SyncBuffer
	b := budget.New(total)
	m := srs.NewManager(srs.Options{
		Locator: loc, Budget: b, MinIdle: minIdle, Residency: srs.ResidencyResident, // the budget's rules for decoded sets
		Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	return m, b, &logs
}

func TestShapeMatchesLoadedParams(t *testing.T) {
	for _, k := range []int{8, 10} {
		s, err := srs.ReadSizes(paramsPath(k))
		if err != nil {
			t.Fatal(err)
		}
		p, err := groth16.LoadParamsFile(paramsPath(k), groth16.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Domain != 1<<k || s.Domain != len(p.H)+1 || s.Aux != len(p.L) || s.Inputs != len(p.VK.IC) ||
			s.A != len(p.A) || s.B != len(p.BG1) || s.Inputs != testkind.Inputs+1 {
			t.Fatalf("k=%d: shape %+v disagrees with the params", k, s)
		}
		if s.ParamsBytes() != p.MemorySize() {
			t.Fatalf("ParamsBytes %d, MemorySize %d", s.ParamsBytes(), p.MemorySize())
		}
		if s.FileLen != p.EncodedSize() {
			t.Fatalf("FileLen %d, EncodedSize %d", s.FileLen, p.EncodedSize())
		}
	}
}

// TestProvingHintAvoidsRegrowth: synthesis into an assignment sized by the
// hint fills the domain without reallocating, and its footprint is within
// the working-set estimate.
func TestProvingHintAvoidsRegrowth(t *testing.T) {
	s, err := srs.ReadSizes(paramsPath(10))
	if err != nil {
		t.Fatal(err)
	}
	pa := r1cs.NewProvingAssignment(s.ProvingHint())
	a0 := &pa.A[:1][0]
	cs, err := r1cs.Synthesize(testkind.Circuit(10), pa)
	if err != nil {
		t.Fatal(err)
	}
	cs.AppendInputRows()
	if len(pa.A) != s.Domain || cap(pa.A) != s.Domain || &pa.A[0] != a0 {
		t.Fatalf("a has len %d cap %d (domain %d), reallocated %v", len(pa.A), cap(pa.A), s.Domain, &pa.A[0] != a0)
	}
	if got, est := pa.Bytes(), s.ABCBytes()+s.WitnessBytes(); got > est {
		t.Fatalf("assignment holds %d bytes, estimate %d", got, est)
	}
}

func TestReadShapeRejects(t *testing.T) {
	if _, err := srs.ReadSizes(filepath.Join(paramDir, "nope.params")); !errors.Is(err, srs.ErrParamsNotFound) {
		t.Fatalf("missing: %v", err)
	}
	data, err := os.ReadFile(paramsPath(8))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"truncated": data[:len(data)-1],
		"trailing":  append(append([]byte(nil), data...), 0),
		"header":    data[:100],
	} {
		p := filepath.Join(t.TempDir(), name+".params")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := srs.ReadSizes(p); !errors.Is(err, groth16.ErrParamsFormat) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestFilecoinLocatorNamesOfficialFiles: every circuit id (PoRep, WindowPoSt,
// WinningPoSt, SnapDeals) maps to a file listed in the official parameters
// manifest.
func TestFilecoinLocatorNamesOfficialFiles(t *testing.T) {
	raw, err := os.ReadFile("../filecoin/paramcheck/parameters.json")
	if err != nil {
		t.Fatal(err)
	}
	var manifest map[string]json.RawMessage
	if err := json.Unmarshal(raw, &manifest); err != nil {
		t.Fatal(err)
	}
	loc := srs.FilecoinLocator("/params")
	for _, id := range filecoin.Circuits() {
		f, err := loc.Locate(string(id))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{f.Params, f.VK} {
			if _, ok := manifest[filepath.Base(p)]; !ok || filepath.Dir(p) != "/params" {
				t.Errorf("%s: %s is not an official file name", id, p)
			}
		}
		if !f.Official {
			t.Errorf("%s not marked official", id)
		}
	}
	if _, err := loc.Locate("porep-3g"); !errors.Is(err, srs.ErrUnknownCircuit) {
		t.Fatal(err)
	}
	chain := srs.Chain(loc, testkind.Locator(paramDir))
	if f, err := chain.Locate("test-k8"); err != nil || f.Official {
		t.Fatalf("chain: %+v %v", f, err)
	}
	if _, err := chain.Locate("nonsense"); !errors.Is(err, srs.ErrUnknownCircuit) {
		t.Fatal(err)
	}
}

// TestTestParamsKnownBeforeLoad: the status says test parameters as soon
// as their sizes are read (the engine reads them before it loads), not
// only once they are hot.
func TestTestParamsKnownBeforeLoad(t *testing.T) {
	m, _, _ := newManager(t, testkind.Locator(paramDir), 1<<30, time.Hour)
	if _, err := m.Sizes("test-k10"); err != nil {
		t.Fatal(err)
	}
	if st := m.Status(); len(st) != 1 || st[0].Tier == srs.TierHot || !st[0].Test {
		t.Fatalf("status after Sizes, before any load: %+v", st)
	}
}

func TestLoadOnceWarnsAndPins(t *testing.T) {
	m, b, logs := newManager(t, testkind.Locator(paramDir), 1<<30, time.Hour)
	ctx := context.Background()
	var wg sync.WaitGroup
	leases := make([]*srs.Lease, 4)
	for i := range leases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := m.Acquire(ctx, "test-k10", 0, 1000)
			if err != nil {
				t.Error(err)
				return
			}
			leases[i] = l
		}()
	}
	wg.Wait()
	st := m.Status()
	if len(st) != 1 || st[0].Tier != srs.TierHot || st[0].Refs != 4 || st[0].Loads != 1 || !st[0].Test {
		t.Fatalf("status %+v", st)
	}
	if n := strings.Count(logs.String(), "LOADING INSECURE TEST PARAMETERS"); n != 1 {
		t.Fatalf("%d test-parameter warnings, want 1:\n%s", n, logs)
	}
	if !strings.Contains(logs.String(), "subgroup_checks=false") {
		t.Error("marked test parameters (generated here) were loaded with subgroup checks")
	}
	shape, _ := m.Sizes("test-k10")
	if b.Used() != shape.ParamsBytes()+4000 {
		t.Fatalf("used %d, want params %d + 4×1000", b.Used(), shape.ParamsBytes())
	}
	for _, l := range leases {
		if l.Params == nil || l.Verifier == nil {
			t.Fatal("lease without params or verifier")
		}
		l.Mem.Close()
		l.Release()
		l.Release() // idempotent
	}
	if st := m.Status(); st[0].Refs != 0 {
		t.Fatalf("refs %d after release", st[0].Refs)
	}
	if b.Used() != shape.ParamsBytes() || m.HotBytes() != shape.ParamsBytes() {
		t.Fatalf("used %d hot %d", b.Used(), m.HotBytes())
	}
	m.Close()
	if b.Used() != 0 {
		t.Fatalf("used %d after Close", b.Used())
	}
}

func TestVerifyingKeyMismatch(t *testing.T) {
	dir := t.TempDir()
	for _, ext := range []string{".params", ".params" + filecoin.TestMarkerSuffix} {
		b, err := os.ReadFile(filepath.Join(paramDir, testkind.FileBase(10)+ext))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, testkind.FileBase(10)+ext), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The vk of another circuit.
	b, err := os.ReadFile(filepath.Join(paramDir, testkind.FileBase(8)+".vk"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, testkind.FileBase(10)+".vk"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	m, bud, _ := newManager(t, testkind.Locator(dir), 1<<30, 0)
	if _, err := m.Acquire(context.Background(), "test-k10", 0, 10); !errors.Is(err, srs.ErrVKMismatch) {
		t.Fatalf("err = %v", err)
	}
	if bud.Used() != 0 {
		t.Fatalf("failed load leaked %d bytes", bud.Used())
	}
	if st := m.Status(); st[0].Tier != srs.TierCold {
		t.Fatalf("tier %s after a failed load", st[0].Tier)
	}
}

func TestTrustParamsSkipsSubgroupChecks(t *testing.T) {
	// Unmarked files under no official name: checked unless TrustParams.
	dir := t.TempDir()
	for _, ext := range []string{".params", ".vk"} {
		b, err := os.ReadFile(filepath.Join(paramDir, testkind.FileBase(8)+ext))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "custom"+ext), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	custom := srs.LocatorFunc(func(id string) (srs.Files, error) {
		return srs.Files{Params: filepath.Join(dir, "custom.params"), VK: filepath.Join(dir, "custom.vk")}, nil
	})
	for _, trust := range []bool{false, true} {
		var logs testkit.SyncBuffer
		m := srs.NewManager(srs.Options{Locator: custom, Budget: budget.New(1 << 30), TrustParams: trust,
			Log: slog.New(slog.NewTextHandler(&logs, nil))})
		if _, _, err := m.Preload(context.Background(), "x", 0); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("subgroup_checks=%v", !trust); !strings.Contains(logs.String(), want) {
			t.Fatalf("trust=%v: logs lack %s:\n%s", trust, want, logs.String())
		}
	}
}

// nonSubgroupG1 finds a point on E(Fp) outside the r-torsion: the curve
// check passes it, only a subgroup check catches it.
func nonSubgroupG1(t *testing.T) bls.G1Affine {
	t.Helper()
	for i := uint64(1); i < 1000; i++ {
		var f fp.Element
		f.SetUint64(i)
		j := bls.GeneratePointNotInG1(f)
		var p bls.G1Affine
		p.FromJacobian(&j)
		if p.IsOnCurve() && !p.IsInSubGroup() {
			return p
		}
	}
	t.Fatal("no point outside the subgroup found")
	return bls.G1Affine{}
}

// An official name is no evidence of official contents: an unmarked file
// under one is hashed against the manifest (once; a restart reads the
// record beside it) and decoded unchecked only when the digest is the
// manifest's; with another digest every point is subgroup-checked, so a
// point off the subgroup is caught; trust_params skips both.
func TestOfficialNameProvenance(t *testing.T) {
	dir := t.TempDir()
	const name = "v28-test"
	files := srs.Files{Params: filepath.Join(dir, name+".params"), VK: filepath.Join(dir, name+".vk"), Official: true}
	vk, err := os.ReadFile(filepath.Join(paramDir, testkind.FileBase(8)+".vk"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files.VK, vk, 0o644); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(paramsPath(8))
	if err != nil {
		t.Fatal(err)
	}
	p, err := groth16.DecodeParams(good, groth16.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.L[3] = nonSubgroupG1(t)
	var bad bytes.Buffer
	if _, err := p.WriteTo(&bad); err != nil {
		t.Fatal(err)
	}
	digest, err := paramcheck.Digest(context.Background(), bytes.NewReader(good), nil)
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := paramcheck.ParseManifest([]byte(fmt.Sprintf(`{%q: {"cid": "x", "digest": %q, "sector_size": 2048}}`, name+".params", digest)))
	if err != nil {
		t.Fatal(err)
	}
	loc := srs.LocatorFunc(func(string) (srs.Files, error) { return files, nil })
	// load starts a manager (a daemon start) over the file holding data
	// and returns its error and log.
	load := func(trust bool) (string, error) {
		t.Helper()
		var logs testkit.SyncBuffer
		log := slog.New(slog.NewTextHandler(&logs, nil))
		m := srs.NewManager(srs.Options{Locator: loc, Budget: budget.New(1 << 30), TrustParams: trust,
			Verifier: paramcheck.NewVerifier(manifest, log), Log: log})
		defer m.Close()
		_, _, err := m.Preload(context.Background(), "x", 0)
		return logs.String(), err
	}
	// Each write moves the mtime on by a second, whatever the file
	// system's timestamp granularity (good and bad are the same size).
	mtime := time.Now()
	write := func(data []byte) {
		t.Helper()
		if err := os.WriteFile(files.Params, data, 0o644); err != nil {
			t.Fatal(err)
		}
		mtime = mtime.Add(time.Second)
		if err := os.Chtimes(files.Params, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	for _, step := range []struct {
		name  string
		data  []byte
		trust bool
		want  string // in the "loading parameters" line
		fail  error
	}{
		{"official digest", good, false, `provenance="digest-verified (new)" subgroup_checks=false`, nil},
		{"restart", nil, false, `provenance="digest-verified (cached)" subgroup_checks=false`, nil},
		{"another digest, bad point", bad.Bytes(), false, `provenance="subgroup-checked (official name, not the official digest)" subgroup_checks=true`, groth16.ErrNotInSubgroup},
		{"restart, bad point", nil, false, `provenance="subgroup-checked (official name, not the official digest)" subgroup_checks=true`, groth16.ErrNotInSubgroup},
		{"trusted, bad point", nil, true, `provenance="trusted (trust_params)" subgroup_checks=false`, nil},
	} {
		if step.data != nil {
			write(step.data)
		}
		logs, err := load(step.trust)
		switch {
		case step.fail == nil && err != nil:
			t.Fatalf("%s: %v", step.name, err)
		case step.fail != nil && (!errors.Is(err, step.fail) || !errors.Is(err, srs.ErrParamsUnusable) || !strings.Contains(err.Error(), files.Params)):
			t.Fatalf("%s: err %v, want %v naming %s", step.name, err, step.fail, files.Params)
		}
		if !strings.Contains(logs, step.want) {
			t.Fatalf("%s: logs lack %s:\n%s", step.name, step.want, logs)
		}
		hashed := strings.Contains(logs, "parameter file hashed")
		if cached := strings.Contains(step.want, "cached") || step.name == "restart, bad point" || step.trust; hashed == cached {
			t.Fatalf("%s: hashed=%v:\n%s", step.name, hashed, logs)
		}
		t.Logf("%s: %v", step.name, err)
	}
}

// TestNoHoldAndWait: two circuits whose parameters do not fit together.
// A caller waiting for memory holds nothing, so the second circuit loads as
// soon as the first's idle set becomes evictable.
func TestNoHoldAndWait(t *testing.T) {
	s8, _ := srs.ReadSizes(paramsPath(8))
	s10, _ := srs.ReadSizes(paramsPath(10))
	total := s10.ParamsBytes() + 100
	m, b, _ := newManager(t, testkind.Locator(paramDir), total, 50*time.Millisecond)
	l8, err := m.Acquire(context.Background(), "test-k8", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *srs.Lease)
	go func() {
		l, err := m.Acquire(context.Background(), "test-k10", 0, 100)
		if err != nil {
			t.Error(err)
		}
		got <- l
	}()
	select {
	case <-got:
		t.Fatal("k10 loaded while k8 was pinned")
	case <-time.After(100 * time.Millisecond):
	}
	if b.Used() != s8.ParamsBytes()+100 {
		t.Fatalf("waiter holds memory: used %d", b.Used())
	}
	l8.Mem.Close()
	l8.Release()
	var l10 *srs.Lease
	select {
	case l10 = <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("k10 never loaded")
	}
	if b.Used() != s10.ParamsBytes()+100 {
		t.Fatalf("used %d", b.Used())
	}
	l10.Mem.Close()
	l10.Release()
}

// TestWaiterKeepsTheParamsItWaitsFor: a caller whose parameters are hot
// but idle, waiting for working memory, must not have the evictor drop
// those very parameters to make room (and then load them again).
func TestWaiterKeepsTheParamsItWaitsFor(t *testing.T) {
	s8, _ := srs.ReadSizes(paramsPath(8))
	m, b, _ := newManager(t, testkind.Locator(paramDir), s8.ParamsBytes()+1000, 0)
	if _, _, err := m.Preload(context.Background(), "test-k8", 0); err != nil {
		t.Fatal(err)
	}
	other, ok := b.TryAcquire(500) // someone else's working set
	if !ok {
		t.Fatal("no room for the other reservation")
	}
	got := make(chan *srs.Lease, 1)
	go func() {
		l, err := m.Acquire(context.Background(), "test-k8", 0, 600)
		if err != nil {
			t.Error(err)
		}
		got <- l
	}()
	waitFor := time.Now().Add(5 * time.Second)
	for b.Waiting() != 1 && time.Now().Before(waitFor) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // the waiter has asked the evictor
	st := m.Status()
	if st[0].Tier != srs.TierHot {
		t.Errorf("while its user waits for memory, test-k8 is %s", st[0].Tier)
	}
	other.Close()
	l := <-got
	if l == nil {
		t.FailNow()
	}
	if st := m.Status(); st[0].Loads != 1 {
		t.Fatalf("test-k8 loaded %d times, want 1", st[0].Loads)
	}
	l.Mem.Close()
	l.Release()
	if b.Used() != s8.ParamsBytes() {
		t.Fatalf("used %d", b.Used())
	}
}

// TestLoadHooksAndMapped: OnLoad sees each load with its files, OnEvict
// each eviction with the same parameters; mapped parameters (as GPU lanes
// use: supraseal holds its own copy) cost the budget their verifying key
// only and show their file as mapped memory; an OnLoad error fails the
// load and frees its memory.
func TestLoadHooksAndMapped(t *testing.T) {
	b := budget.New(1 << 30)
	var loaded, evicted []string
	var last *groth16.Params
	fail := false
	m := srs.NewManager(srs.Options{
		Locator: testkind.Locator(paramDir), Budget: b, Residency: srs.ResidencyMapped,
		OnLoad: func(id string, p *groth16.Params, f srs.Files) error {
			if fail {
				return errors.New("backend refuses")
			}
			loaded = append(loaded, id+" "+filepath.Base(f.Params))
			last = p
			return nil
		},
		OnEvict: func(id string, p *groth16.Params, f srs.Files) {
			if p != last {
				t.Errorf("evicted %s with other parameters than loaded", id)
			}
			evicted = append(evicted, id+" "+filepath.Base(f.Params))
		},
	})
	id := testkind.CircuitID(8)
	s, err := m.Sizes(id)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Mapped || s.ParamsBytes() >= s.DecodedBytes()/10 || s.FileBytes() != s.FileLen {
		t.Fatalf("mapped sizes: %+v, %d bytes (decoded %d)", s, s.ParamsBytes(), s.DecodedBytes())
	}
	if _, _, err := m.Preload(context.Background(), id, 0); err != nil {
		t.Fatal(err)
	}
	if b.Used() != s.ParamsBytes() || m.HotBytes() != s.ParamsBytes() || m.MappedBytes() != s.FileLen || !last.Mapped() {
		t.Fatalf("budget holds %d, hot %d, mapped %d: want the verifying key (%d) and the file (%d)", b.Used(), m.HotBytes(), m.MappedBytes(), s.ParamsBytes(), s.FileLen)
	}
	if _, _, err := m.Evict(id); err != nil {
		t.Fatal(err)
	}
	want := id + " " + testkind.FileBase(8) + ".params"
	if len(loaded) != 1 || loaded[0] != want || len(evicted) != 1 || evicted[0] != want {
		t.Fatalf("loads %v, evictions %v; want one each of %q", loaded, evicted, want)
	}
	fail = true
	if _, _, err := m.Preload(context.Background(), id, 0); err == nil || !strings.Contains(err.Error(), "backend refuses") {
		t.Fatalf("load with a failing OnLoad: %v", err)
	}
	if b.Used() != 0 {
		t.Fatalf("budget holds %d after a failed load", b.Used())
	}
}

// TestAutoResidency: auto decodes a parameter set when it fits in the
// budget beside one partition's working set and maps it otherwise;
// resident and mapped are what they say whatever the budget.
func TestAutoResidency(t *testing.T) {
	id := testkind.CircuitID(10)
	probe, err := srs.ReadSizes(paramsPath(10))
	if err != nil {
		t.Fatal(err)
	}
	fits := probe.ParamsBytes() + probe.WorkingSet()
	for _, tc := range []struct {
		res    srs.Residency
		total  int64
		mapped bool
	}{
		{srs.ResidencyAuto, fits, false},
		{srs.ResidencyAuto, fits - 1, true},
		{srs.ResidencyResident, fits / 2, false},
		{srs.ResidencyMapped, 1 << 40, true},
	} {
		m := srs.NewManager(srs.Options{Locator: testkind.Locator(paramDir), Budget: budget.New(tc.total), Residency: tc.res})
		s, err := m.Sizes(id)
		if err != nil {
			t.Fatal(err)
		}
		if s.Mapped != tc.mapped {
			t.Errorf("%s with a budget of %d: mapped %v, want %v", tc.res, tc.total, s.Mapped, tc.mapped)
		}
	}
	for _, bad := range []string{"hot", "MAPPED"} {
		if _, err := srs.ParseResidency(bad); err == nil {
			t.Errorf("residency %q accepted", bad)
		}
	}
}
