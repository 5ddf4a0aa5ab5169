package srs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cuzk-dev/cuzk/budget"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/filecoin/paramcheck"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/bytesize"
	"github.com/cuzk-dev/cuzk/internal/regfile"
)

// ErrInUse is returned when the parameters cannot be evicted because a job holds them.
var ErrInUse = errors.New("parameters are in use")

// ErrLoadTimeout is wrapped (with ErrParamsUnusable) by the error of a
// load that did not finish within Options.LoadTimeout.
var ErrLoadTimeout = errors.New("parameter load timed out")

// ErrLoadAbandoned is wrapped (with ErrParamsUnusable) by the error of a
// load that Evict stopped waiting for.
var ErrLoadAbandoned = errors.New("parameter load abandoned")

// DefaultLoadTimeout is what Options.LoadTimeout = 0 means. Loading a
// 32 GiB set (47–61 GB) means hashing it once (minutes on a loaded core)
// and decoding it, with subgroup checks where its provenance is unknown
// (about as long again): an hour is several times the slowest load seen,
// and still ends a load that hangs on a dead mount the same day.
const DefaultLoadTimeout = time.Hour

// headerTimeout bounds the wait for a parameter file's header (a few
// hundred bytes, read at Submit): longer than a disk takes to spin up,
// short enough that a Submit on a hung mount answers within a minute.
const headerTimeout = time.Minute

// ErrVKMismatch is returned when the .vk file is not the verifying key inside the .params
// file, so proofs made with the parameters would not verify on chain.
var ErrVKMismatch = errors.New("verifying key file does not match the parameters")

// Tier says where a parameter set is.
type Tier string

// Tiers, see the package documentation.
const (
	TierHot     Tier = "hot"
	TierLoading Tier = "loading"
	TierWarm    Tier = "warm"
	TierCold    Tier = "cold"
)

// Options configure a Manager.
type Options struct {
	Locator Locator
	Budget  *budget.Budget
	// MinIdle is how long an unused parameter set stays resident before the
	// budget's evictor may drop it (memory.eviction_min_idle).
	MinIdle time.Duration
	// TrustParams decodes proving keys without subgroup checks and
	// without checking official names against the manifest digest, as
	// rust-fil-proofs loads parameter files. The verifying key is always
	// fully checked; with the engine's self-check on, a proof made from a
	// bad proving key is rejected before it is returned, so skipping the
	// (costly: about as much again as the decode) checks costs no safety.
	TrustParams bool
	// CheckParams checks every point even where the file's provenance is
	// known (a verified official digest, marked test parameters); it
	// overrides TrustParams. For files of unknown history (`cuzk prove-c2
	// --check-params`).
	CheckParams bool
	// Verifier checks files under official names against the official
	// manifest's digests (once per path, size and mtime; see
	// paramcheck.Verifier). nil: one over paramcheck.Official().
	Verifier *paramcheck.Verifier
	// DecodeWorkers bounds the goroutines decoding a file (0: GOMAXPROCS).
	DecodeWorkers int
	Log           *slog.Logger
	// OnLoad, when set, is told of every parameter set that became
	// resident, with the files it was read from (the CUDA backend needs
	// the .params path behind each *groth16.Params). An error fails the
	// load. It runs without the manager's lock.
	OnLoad func(id string, p *groth16.Params, f Files) error
	// OnEvict, when set, is told of every resident set that was dropped
	// (so a backend can free its own copy). It runs without the lock.
	OnEvict func(id string, p *groth16.Params, f Files)
	// Residency says how parameters are made ready to prove with:
	// decoded into memory (ResidencyResident), or mapped and read by the
	// prover as it consumes them (ResidencyMapped), or, by default
	// (ResidencyAuto), decoded when the decoded set and one partition's
	// working set fit in the budget together, else mapped.
	Residency Residency
	// KeepC makes partitions keep their c vector (Sizes.KeepC): the CUDA
	// backend takes it.
	KeepC bool
	// LoadTimeout bounds a load (digest check, decode or mapping, the
	// verifying key, OnLoad): one still running then fails every job
	// waiting for it with ErrLoadTimeout and leaves the entry as it was
	// before, so the next Acquire starts again. The load itself cannot be
	// interrupted inside a system call; it is left to finish, and what it
	// made is dropped. 0: DefaultLoadTimeout; negative: no bound.
	LoadTimeout time.Duration
}

// Residency is how a parameter set is held (Options.Residency).
type Residency string

// Residencies.
const (
	ResidencyAuto     Residency = "auto"
	ResidencyResident Residency = "resident"
	ResidencyMapped   Residency = "mapped"
)

// ParseResidency parses a residency name ("" is auto).
func ParseResidency(s string) (Residency, error) {
	switch r := Residency(s); r {
	case "", ResidencyAuto:
		return ResidencyAuto, nil
	case ResidencyResident, ResidencyMapped:
		return r, nil
	}
	return "", fmt.Errorf("srs: unknown residency %q (auto, resident or mapped)", s)
}

// Manager owns the resident parameter sets. It is safe for concurrent use.
type Manager struct {
	opt Options
	log *slog.Logger

	mu      sync.Mutex
	entries map[string]*entry
}

type entry struct {
	id    string
	files Files
	sizes *Sizes // nil until read

	tier     Tier
	params   *groth16.Params
	res      *budget.Reservation // the params' bytes while hot
	refs     int
	lastUsed time.Time
	load     *loadOp // the load under way (TierLoading only)
	sizing   *sizeOp // the header read under way
	pvk      *groth16.PreparedVerifyingKey
	test     bool
	loads    int
	lastLoad time.Duration
}

// loadOp is one load of an entry. Its fields are written under
// Manager.mu before done is closed, and read after.
type loadOp struct {
	prev    Tier          // the entry's tier before the load
	done    chan struct{} // closed when the load has ended, however
	abandon chan struct{} // closed by Evict: the loader stops waiting
	err     error         // why it failed, for the callers that waited for it; nil: try again
}

// sizeOp is one read of an entry's header, shared by every caller that
// asks meanwhile; s and err are set before done is closed.
type sizeOp struct {
	done chan struct{}
	s    Sizes
	err  error
}

// NewManager returns a manager over opt.Locator whose memory comes from
// opt.Budget, and installs its evictor in the budget.
func NewManager(opt Options) *Manager {
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	if opt.Verifier == nil {
		opt.Verifier = paramcheck.NewVerifier(paramcheck.Official(), opt.Log)
	}
	m := &Manager{opt: opt, log: opt.Log, entries: map[string]*entry{}}
	opt.Budget.SetEvictor(m.evictIdle)
	return m
}

// entryLocked returns the entry of id, creating a cold one if the locator
// knows the id.
func (m *Manager) entryLocked(id string) (*entry, error) {
	if e, ok := m.entries[id]; ok {
		return e, nil
	}
	f, err := m.opt.Locator.Locate(id)
	if err != nil {
		return nil, err
	}
	e := &entry{id: id, files: f, tier: TierCold}
	m.entries[id] = e
	return e, nil
}

// Sizes returns the sizes of id's parameters, reading the file header the
// first time. A missing file is an error wrapping ErrParamsNotFound and is
// looked for again on the next call.
func (m *Manager) Sizes(id string) (Sizes, error) {
	m.mu.Lock()
	e, err := m.entryLocked(id)
	if err != nil {
		m.mu.Unlock()
		return Sizes{}, err
	}
	if e.sizes != nil {
		s := *e.sizes
		m.mu.Unlock()
		return s, nil
	}
	// One read per entry at a time: on a hung mount every caller would
	// otherwise leave a goroutine blocked in open(2).
	op := e.sizing
	if op == nil {
		op = &sizeOp{done: make(chan struct{})}
		e.sizing = op
		go m.readSizes(e, op)
	}
	m.mu.Unlock()
	wait := headerTimeout
	if lt := m.loadTimeout(); lt > 0 {
		wait = min(wait, lt)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-op.done:
		return op.s, op.err
	case <-timer.C:
		return Sizes{}, fmt.Errorf("circuit %s: %w: %s: %w: the header was not read within %v",
			id, ErrParamsUnusable, e.files.Params, ErrLoadTimeout, wait)
	}
}

// readSizes reads e's header for op. A read that never returns keeps op
// in e.sizing, so later callers wait on it instead of starting another.
func (m *Manager) readSizes(e *entry, op *sizeOp) {
	path := e.files.Params
	s, err := ReadSizes(path)
	if err == nil {
		s.KeepC = m.opt.KeepC
		s.Mapped = m.mapped(s)
	} else {
		err = fmt.Errorf("circuit %s: %w", e.id, err)
	}
	// The marker says test parameters before they load (the status would
	// show an official name meanwhile); load reads it again, and decides.
	_, merr := os.Stat(path + filecoin.TestMarkerSuffix)
	m.mu.Lock()
	if err == nil && e.sizes == nil {
		e.sizes = &s
		if e.tier != TierHot {
			e.test = merr == nil
		}
	}
	if err == nil {
		s = *e.sizes
	}
	op.s, op.err = s, err
	e.sizing = nil
	m.mu.Unlock()
	close(op.done)
}

// loadTimeout is Options.LoadTimeout with its default; <= 0: no bound.
func (m *Manager) loadTimeout() time.Duration {
	if m.opt.LoadTimeout == 0 {
		return DefaultLoadTimeout
	}
	return m.opt.LoadTimeout
}

// mapped decides the residency of a parameter set of sizes s.
func (m *Manager) mapped(s Sizes) bool {
	switch m.opt.Residency {
	case ResidencyMapped:
		return true
	case ResidencyResident:
		return false
	}
	resident := s
	resident.Mapped = false
	return resident.ParamsBytes()+resident.WorkingSet() > m.opt.Budget.Total()
}

// Lease is a pinned, hot parameter set plus the extra memory its holder
// asked for. Release unpins the parameters; the holder gives the memory
// back itself, in steps as a partition's buffers are freed
// (ReleaseMemory), and the rest with the parameters (Close).
type Lease struct {
	Params   *groth16.Params
	Verifier *groth16.PreparedVerifyingKey
	Sizes    Sizes
	Mem      *budget.Reservation
	// Files are the files the parameters came from (errors about a
	// circuit that does not fit them name Files.Params).
	Files Files
	// Loaded is the time this call spent loading the parameters or waiting
	// for another call's load; zero when they were hot.
	Loaded time.Duration

	m    *Manager
	e    *entry
	once sync.Once
}

// ReleaseMemory gives n bytes of the memory the lease holds back to the
// budget, as its holder's working set shrinks.
func (l *Lease) ReleaseMemory(n int64) { l.Mem.Release(n) }

// Close gives back the memory the lease still holds and unpins the
// parameters. It is idempotent.
func (l *Lease) Close() {
	l.Mem.Close()
	l.Release()
}

// Release unpins the parameters. It is idempotent.
func (l *Lease) Release() {
	l.once.Do(func() {
		l.m.mu.Lock()
		l.e.refs--
		l.e.lastUsed = time.Now()
		idle := l.e.refs == 0
		l.m.mu.Unlock()
		if idle {
			l.m.opt.Budget.Poke()
		}
	})
}

// Acquire makes id's parameters hot and pins them, and reserves extra bytes
// of working memory with them, at priority prio. When the parameters are
// not hot, their bytes and extra are reserved in one request, and no
// reservation or pin is held while waiting for memory, so two callers can
// never hold memory while each waits for the other's.
func (m *Manager) Acquire(ctx context.Context, id string, prio int, extra int64) (*Lease, error) {
	sizes, err := m.Sizes(id)
	if err != nil {
		return nil, err
	}
	var loaded time.Duration
	for {
		m.mu.Lock()
		e, err := m.entryLocked(id)
		if err != nil {
			m.mu.Unlock()
			return nil, err
		}
		switch e.tier {
		case TierHot:
			m.mu.Unlock()
			// Not pinned while waiting: a head waiter of another circuit may
			// need these parameters evicted to make progress. The keep tag
			// only stops our own wait from evicting them.
			res, err := m.opt.Budget.AcquireKeeping(ctx, extra, prio, id)
			if err != nil {
				return nil, fmt.Errorf("circuit %s: working memory: %w", id, err)
			}
			m.mu.Lock()
			if e.tier == TierHot {
				return m.pinLocked(e, sizes, res, loaded), nil
			}
			// Evicted while we waited for memory: start over.
			m.mu.Unlock()
			res.Close()
			continue
		case TierLoading:
			op := e.load
			m.mu.Unlock()
			t := time.Now()
			select {
			case <-op.done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			loaded += time.Since(t)
			if op.err != nil {
				return nil, op.err
			}
			continue
		}
		// Cold or warm: reserve parameters and working memory together.
		m.mu.Unlock()
		pb := sizes.ParamsBytes()
		res, err := m.opt.Budget.AcquireKeeping(ctx, pb+extra, prio, id)
		if err != nil {
			return nil, fmt.Errorf("circuit %s: parameters (%s) and working memory (%s): %w",
				id, bytesize.Format(pb), bytesize.Format(extra), err)
		}
		m.mu.Lock()
		switch e.tier {
		case TierHot:
			res.Release(pb)
			return m.pinLocked(e, sizes, res, loaded), nil
		case TierLoading:
			// Someone else loads: wait holding only our working memory,
			// which the load does not need.
			res.Release(pb)
			op := e.load
			m.mu.Unlock()
			t := time.Now()
			select {
			case <-op.done:
			case <-ctx.Done():
				res.Close()
				return nil, ctx.Err()
			}
			loaded += time.Since(t)
			if op.err != nil {
				res.Close()
				return nil, op.err
			}
			m.mu.Lock()
			if e.tier == TierHot {
				return m.pinLocked(e, sizes, res, loaded), nil
			}
			m.mu.Unlock()
			res.Close()
			continue
		}
		op := &loadOp{prev: e.tier, done: make(chan struct{}), abandon: make(chan struct{})}
		e.tier = TierLoading
		e.load = op
		files, pvk := e.files, e.pvk
		m.mu.Unlock()

		t := time.Now()
		r := m.runLoad(ctx, id, files, pvk, sizes.Mapped, op)
		d := time.Since(t)
		loaded += d

		m.mu.Lock()
		if e.load != op {
			// Evict abandoned this load and told its waiters.
			m.mu.Unlock()
			res.Close()
			if r.err == nil {
				m.discard(id, r, files)
			}
			return nil, fmt.Errorf("circuit %s: %w: %s: %w: EvictSRS was called while it loaded", id, ErrParamsUnusable, files.Params, ErrLoadAbandoned)
		}
		e.load = nil
		if r.err != nil {
			e.tier = op.prev
			// Waiters share a failure of the file; a load cut short by
			// its own caller leaving says nothing about the file, so they
			// try again.
			if ctx.Err() == nil || errors.Is(r.err, ErrLoadTimeout) {
				op.err = r.err
			}
			close(op.done)
			m.mu.Unlock()
			res.Close()
			return nil, r.err
		}
		close(op.done)
		p, pvk, test := r.p, r.pvk, r.test
		e.params, e.pvk, e.test = p, pvk, test
		e.res = res.Split(min(pb, res.Remaining()))
		e.tier = TierHot
		e.loads++
		e.lastLoad = d
		return m.pinLocked(e, sizes, res, loaded), nil
	}
}

// loadResult is what a load made, or why it failed.
type loadResult struct {
	p    *groth16.Params
	pvk  *groth16.PreparedVerifyingKey
	test bool
	err  error
}

// runLoad loads id's parameters (load, then OnLoad) in a goroutine of its
// own and waits for it at most loadTimeout, or until Evict abandons op. A
// load given up on is left to end by itself (a read blocked on a dead
// mount cannot be interrupted); what it made then is dropped.
func (m *Manager) runLoad(ctx context.Context, id string, files Files, pvk *groth16.PreparedVerifyingKey, mapped bool, op *loadOp) loadResult {
	// Canceled when the load is given up on, which ends a digest check
	// early; the decode does not look at it.
	lctx, cancel := context.WithCancel(ctx)
	ch := make(chan loadResult, 1)
	start := time.Now()
	go func() {
		p, pvk, test, err := m.load(lctx, id, files, pvk, mapped)
		if err == nil && m.opt.OnLoad != nil {
			if err = m.opt.OnLoad(id, p, files); err != nil {
				p.Close()
				err = fmt.Errorf("circuit %s: %w", id, err)
			}
		}
		ch <- loadResult{p: p, pvk: pvk, test: test, err: err}
	}()
	var expired <-chan time.Time
	timeout := m.loadTimeout()
	if timeout > 0 {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		expired = timer.C
	}
	var r loadResult
	select {
	case r = <-ch:
		cancel()
		return r
	case <-expired:
		r.err = fmt.Errorf("circuit %s: %w: %s: %w after %v (srs.load_timeout); the next job tries again",
			id, ErrParamsUnusable, files.Params, ErrLoadTimeout, timeout)
		m.log.Error("parameter load timed out; failing the jobs waiting for it", "circuit", id, "params", files.Params, "timeout", timeout)
	case <-op.abandon:
		r.err = ErrLoadAbandoned
	}
	cancel()
	go func() {
		late := <-ch
		if late.err == nil {
			m.discard(id, late, files)
		}
		m.log.Warn("a parameter load given up on has ended; its result is dropped", "circuit", id, "after", time.Since(start).Round(time.Millisecond), "err", late.err)
	}()
	return r
}

// discard drops what a load given up on made.
func (m *Manager) discard(id string, r loadResult, files Files) {
	if m.opt.OnEvict != nil && m.opt.OnLoad != nil {
		m.opt.OnEvict(id, r.p, files)
	}
	if err := r.p.Close(); err != nil {
		m.log.Warn("unmapping parameters", "circuit", id, "err", err)
	}
}

// pinLocked pins e and unlocks m.mu.
func (m *Manager) pinLocked(e *entry, s Sizes, res *budget.Reservation, loaded time.Duration) *Lease {
	e.refs++
	e.lastUsed = time.Now()
	l := &Lease{Params: e.params, Verifier: e.pvk, Sizes: s, Mem: res, Files: e.files, Loaded: loaded, m: m, e: e}
	m.mu.Unlock()
	return l
}

// load decodes the parameter file and prepares (or reuses) the verifying
// key. It runs without the lock; ctx bounds the digest check only.
func (m *Manager) load(ctx context.Context, id string, f Files, pvk *groth16.PreparedVerifyingKey, mapped bool) (*groth16.Params, *groth16.PreparedVerifyingKey, bool, error) {
	marker := f.Params + filecoin.TestMarkerSuffix
	test := false
	// A marker is a line of text; anything but a small regular file is
	// no marker (and a FIFO must not block the load).
	if b, _, err := regfile.ReadFile(marker, 64<<10); err == nil {
		test = true
		note := strings.Join(strings.Fields(string(b)), " ")
		if len(note) > 300 {
			note = note[:300] + "…"
		}
		m.log.Warn("LOADING INSECURE TEST PARAMETERS: their toxic waste is known, proofs made with them are forgeable and worthless on chain",
			"circuit", id, "params", f.Params, "marker", marker, "note", note)
	}
	checks, how, err := m.provenance(ctx, id, f, test)
	if err != nil {
		return nil, nil, false, err
	}
	m.log.Info("loading parameters", "circuit", id, "params", f.Params, "provenance", how, "subgroup_checks", checks, "mapped", mapped)
	t := time.Now()
	var p *groth16.Params
	if mapped {
		// Without checks only the header and the verifying key are read:
		// each point is still decoded (curve check included) as the
		// prover reads it.
		p, err = groth16.MapParamsFile(f.Params, groth16.MapOptions{Verify: checks, SubgroupChecks: checks, Workers: m.opt.DecodeWorkers})
	} else {
		p, err = groth16.LoadParamsFile(f.Params, groth16.LoadOptions{SubgroupChecks: checks, Workers: m.opt.DecodeWorkers})
	}
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, false, fmt.Errorf("circuit %s: %w", id, notFound(f.Params))
		}
		return nil, nil, false, fmt.Errorf("circuit %s: loading parameters: %w", id, unusable(f.Params, err))
	}
	if pvk == nil {
		vk := p.VK
		if f.VK != "" {
			fileVK, err := groth16.ReadVerifyingKeyFile(f.VK)
			switch {
			case err == nil:
				if !bytes.Equal(fileVK.Bytes(), p.VK.Bytes()) {
					p.Close()
					return nil, nil, false, fmt.Errorf("circuit %s: %w", id, unusable(f.VK, fmt.Errorf("%w (%s)", ErrVKMismatch, f.Params)))
				}
				vk = fileVK
			case errors.Is(err, os.ErrNotExist):
				m.log.Debug("no verifying key file; self-check uses the key inside the parameters", "circuit", id, "vk", f.VK)
			default:
				p.Close()
				return nil, nil, false, fmt.Errorf("circuit %s: %w", id, unusable(f.VK, err))
			}
		}
		if pvk, err = groth16.Prepare(vk); err != nil {
			p.Close()
			return nil, nil, false, fmt.Errorf("circuit %s: verifying key: %w", id, unusable(f.Params, err))
		}
	}
	m.log.Info("parameters loaded", "circuit", id, "bytes", p.MemorySize(), "mapped_bytes", mappedBytes(p), "duration", time.Since(t), "test", test)
	return p, pvk, test, nil
}

// Provenances, as the "loading parameters" line names them.
const (
	provChecked        = "subgroup-checked"
	provCheckForced    = "subgroup-checked (check_params)"
	provWrongDigest    = "subgroup-checked (official name, not the official digest)"
	provNotListed      = "subgroup-checked (official name missing from the manifest)"
	provDigestNew      = "digest-verified (new)"
	provDigestCached   = "digest-verified (cached)"
	provTrusted        = "trusted (trust_params)"
	provTestParameters = "trusted (insecure test parameters made by this machine)"
)

// provenance decides whether the proving key's points are subgroup-checked
// as they are decoded, and says why. Subgroup checks cost minutes per 10^7
// points, so they are skipped where the file's contents are known: a file
// under an official name whose digest is the official manifest's (hashed
// once, then recorded by path, size and mtime: paramcheck.Verifier), and
// test parameters this machine's cuzk generated (marker). An official name
// alone proves nothing, so a file under one with another digest is
// checked. TrustParams skips both the digest and the checks, as
// rust-fil-proofs does; CheckParams forces the checks. A bad point in a
// proving key could only make proofs fail, and failing proofs never leave
// the self-check; the verifying key is always checked in full.
func (m *Manager) provenance(ctx context.Context, id string, f Files, test bool) (checks bool, how string, err error) {
	switch {
	case m.opt.CheckParams:
		return true, provCheckForced, nil
	case m.opt.TrustParams:
		return false, provTrusted, nil
	case test:
		return false, provTestParameters, nil
	case !f.Official:
		return true, provChecked, nil
	}
	v, err := m.opt.Verifier.Verify(ctx, f.Params)
	switch {
	case err == nil:
	case errors.Is(err, os.ErrNotExist):
		return false, "", fmt.Errorf("circuit %s: %w", id, notFound(f.Params))
	case ctx.Err() != nil:
		return false, "", fmt.Errorf("circuit %s: checking the digest of %s: %w", id, f.Params, ctx.Err())
	default:
		return false, "", fmt.Errorf("circuit %s: checking the digest: %w", id, unusable(f.Params, err))
	}
	switch v.Outcome {
	case paramcheck.Verified:
		if v.Cached {
			return false, provDigestCached, nil
		}
		return false, provDigestNew, nil
	case paramcheck.WrongDigest:
		m.log.Warn("parameter file under an official name does not have the official digest; checking every point",
			"circuit", id, "params", f.Params, "digest", v.Digest, "official_digest", v.Want)
		return true, provWrongDigest, nil
	}
	return true, provNotListed, nil
}

// evictIdle is the budget's evictor: it drops hot, unpinned entries idle
// for at least MinIdle, least recently used first, until need bytes are
// freed, and says when the next idle entry becomes old enough. It never
// drops keep, the circuit the waiting caller wants to use.
func (m *Manager) evictIdle(need int64, keep string) time.Time {
	now := time.Now()
	m.mu.Lock()
	var cands []*entry
	var retryAt time.Time
	for _, e := range m.entries {
		if e.tier != TierHot || e.refs > 0 || e.id == keep {
			continue
		}
		if ready := e.lastUsed.Add(m.opt.MinIdle); ready.After(now) {
			if retryAt.IsZero() || ready.Before(retryAt) {
				retryAt = ready
			}
			continue
		}
		cands = append(cands, e)
	}
	slices.SortFunc(cands, func(a, b *entry) int { return a.lastUsed.Compare(b.lastUsed) })
	var freed int64
	var drop []evicted
	for _, e := range cands {
		if freed >= need {
			break
		}
		freed += e.res.Remaining()
		drop = append(drop, m.evictLocked(e))
		m.log.Info("evicting idle parameters under memory pressure", "circuit", e.id, "idle", now.Sub(e.lastUsed).Round(time.Millisecond))
	}
	m.mu.Unlock()
	m.closeAll(drop, freed)
	if freed >= need {
		return time.Time{}
	}
	return retryAt
}

// evicted is a parameter set dropped under the lock, to be released
// (closeAll) once m.mu is released.
type evicted struct {
	res    *budget.Reservation
	id     string
	params *groth16.Params
	files  Files
}

// evictLocked turns a hot entry warm and returns what the caller releases
// with closeAll once m.mu is released.
func (m *Manager) evictLocked(e *entry) evicted {
	ev := evicted{res: e.res, id: e.id, params: e.params, files: e.files}
	e.res, e.params = nil, nil
	e.tier = TierWarm
	return ev
}

func (m *Manager) closeAll(evs []evicted, freed int64) {
	for _, ev := range evs {
		if m.opt.OnEvict != nil {
			m.opt.OnEvict(ev.id, ev.params, ev.files)
		}
		if err := ev.params.Close(); err != nil { // unpinned: no prover reads it
			m.log.Warn("unmapping parameters", "circuit", ev.id, "err", err)
		}
		ev.res.Close()
	}
	// Large parameter sets should leave the process's RSS promptly, not at
	// the collector's leisure.
	if freed >= 256<<20 {
		go debug.FreeOSMemory()
	}
}

// Preload makes id's parameters hot without pinning them. already says
// they were hot; d is the load time otherwise.
func (m *Manager) Preload(ctx context.Context, id string, prio int) (already bool, d time.Duration, err error) {
	m.mu.Lock()
	e, err := m.entryLocked(id)
	if err != nil {
		m.mu.Unlock()
		return false, 0, err
	}
	if e.tier == TierHot {
		e.lastUsed = time.Now()
		m.mu.Unlock()
		return true, 0, nil
	}
	m.mu.Unlock()
	t := time.Now()
	l, err := m.Acquire(ctx, id, prio, 0)
	if err != nil {
		return false, 0, err
	}
	l.Close()
	return false, time.Since(t), nil
}

// Evict drops id's parameters now, whatever their idle time. It fails with
// ErrInUse while a job holds them. A load under way is abandoned: the jobs
// waiting for it fail with ErrLoadAbandoned and the next Acquire loads
// again, which is how an operator unsticks a load that hangs before
// Options.LoadTimeout.
func (m *Manager) Evict(id string) (wasLoaded bool, freed int64, err error) {
	m.mu.Lock()
	e, ok := m.entries[id]
	if !ok {
		if _, err := m.opt.Locator.Locate(id); err != nil {
			m.mu.Unlock()
			return false, 0, err
		}
		m.mu.Unlock()
		return false, 0, nil
	}
	switch e.tier {
	case TierLoading:
		op := e.load
		e.load = nil
		e.tier = op.prev
		op.err = fmt.Errorf("circuit %s: %w: %s: %w: EvictSRS was called while it loaded", id, ErrParamsUnusable, e.files.Params, ErrLoadAbandoned)
		close(op.abandon)
		close(op.done)
		m.mu.Unlock()
		m.log.Warn("parameter load abandoned by EvictSRS; the jobs waiting for it fail", "circuit", id)
		return false, 0, nil
	case TierHot:
	default:
		m.mu.Unlock()
		return false, 0, nil
	}
	if e.refs > 0 {
		n := e.refs
		m.mu.Unlock()
		return true, 0, fmt.Errorf("circuit %s: %w by %d partition(s)", id, ErrInUse, n)
	}
	freed = e.res.Remaining()
	r := m.evictLocked(e)
	m.mu.Unlock()
	m.closeAll([]evicted{r}, freed)
	m.log.Info("parameters evicted", "circuit", id, "freed", freed)
	return true, freed, nil
}

// Close evicts every unpinned parameter set (daemon shutdown).
func (m *Manager) Close() {
	m.mu.Lock()
	var rs []evicted
	var freed int64
	for _, e := range m.entries {
		if e.tier == TierHot && e.refs == 0 {
			freed += e.res.Remaining()
			rs = append(rs, m.evictLocked(e))
		}
	}
	m.mu.Unlock()
	m.closeAll(rs, freed)
}

// EntryStatus describes one known parameter set.
type EntryStatus struct {
	CircuitID string        `json:"circuit_id"`
	Tier      Tier          `json:"tier"`
	Bytes     int64         `json:"bytes"` // resident bytes (hot) or decoded size (otherwise, when known)
	Refs      int           `json:"ref_count"`
	IdleFor   time.Duration `json:"idle_ns"`
	Official  bool          `json:"official_name"`
	Test      bool          `json:"insecure_test_params"`
	Loads     int           `json:"loads"`
	LastLoad  time.Duration `json:"last_load_ns"`
	Params    string        `json:"params_file"`
	// Mapped says the set is (or will be) mapped rather than decoded, and
	// MappedBytes is the mapping's size while hot: file-backed memory the
	// kernel may evict, not counted in Bytes.
	Mapped      bool  `json:"mapped"`
	MappedBytes int64 `json:"mapped_bytes"`
}

// Resident says the parameter set is decoded in memory (tier hot).
func (s EntryStatus) Resident() bool { return s.Tier == TierHot }

// Status lists the parameter sets the manager has seen, by circuit id.
func (m *Manager) Status() []EntryStatus {
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]EntryStatus, 0, len(m.entries))
	for _, e := range m.entries {
		s := EntryStatus{CircuitID: e.id, Tier: e.tier, Refs: e.refs, Official: e.files.Official, Test: e.test,
			Loads: e.loads, LastLoad: e.lastLoad, Params: e.files.Params}
		if e.sizes != nil {
			s.Mapped = e.sizes.Mapped
		}
		switch {
		case e.tier == TierHot:
			s.Bytes = e.res.Remaining()
			s.MappedBytes = mappedBytes(e.params)
		case e.sizes != nil:
			s.Bytes = e.sizes.ParamsBytes()
		}
		if !e.lastUsed.IsZero() {
			s.IdleFor = now.Sub(e.lastUsed)
			if e.refs > 0 {
				s.IdleFor = 0
			}
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b EntryStatus) int { return strings.Compare(a.CircuitID, b.CircuitID) })
	return out
}

// mappedBytes is the file-backed size of mapped parameters (0 otherwise).
func mappedBytes(p *groth16.Params) int64 {
	if p == nil || !p.Mapped() {
		return 0
	}
	return p.EncodedSize()
}

// MappedBytes is the file-backed memory of hot mapped parameters: their
// mappings' sizes, which the page cache holds only while memory allows.
func (m *Manager) MappedBytes() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	for _, e := range m.entries {
		if e.tier == TierHot {
			n += mappedBytes(e.params)
		}
	}
	return n
}

// HotBytes is the memory held by resident parameters.
func (m *Manager) HotBytes() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	for _, e := range m.entries {
		if e.tier == TierHot {
			n += e.res.Remaining()
		}
	}
	return n
}
