package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep/seal"
)

func runSeal(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("seal", stderr)
	size := sectorSizeFlag{allowed: sealableSizes()}
	var ticket, seedFlag, proverID hex32
	fs.Var(&size, "sector-size", "sector size: 2KiB, 8MiB or 512MiB (sealed in memory)")
	proofID := fs.Int64("registered-proof", -1, "registered seal proof id (default: the V1_1 proof of the sector size)")
	out := fs.String("out", "", "output `directory` for c1.json, c1-wrapped.json, commdr.json and the sector kept for PoSt and SnapDeals (sector.json, sealed, cache/)")
	fs.Var(&ticket, "ticket", "ticket, 64 hex characters (default 32×0x01)")
	fs.Var(&seedFlag, "seed", "interactive seed, 64 hex characters (default 32×0x02)")
	fs.Var(&proverID, "prover-id", "prover id, 64 hex characters (default: that of --miner)")
	minerID := fs.Uint64("miner", seal.DefaultMinerID, "miner actor id, used for the prover id when --prover-id is not given")
	deprecatedFlag(fs, "miner-id", "miner")
	sector := fs.Uint64("sector", seal.DefaultSector, "sector number")
	dataPath := fs.String("data", "", "raw piece data `file` of sector size × 127/128 bytes (default: deterministic pseudo-random data)")
	cc := fs.Bool("cc", false, "seal a committed-capacity sector (all-zero data), the kind SnapDeals updates")
	workers := fs.Int("workers", 0, "worker goroutines (0 = all CPUs)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk seal")
	if *out == "" {
		return fail("--out is required")
	}
	proof, err := sealProofFor(size, *proofID)
	if err != nil {
		return fail("%v", err)
	}
	if proof.SectorSize() > seal.MaxSectorSize {
		return fail("%v sectors are too large to seal in memory (at most %v)", proof.SectorSize(), seal.MaxSectorSize)
	}
	in := seal.DefaultInput(proof)
	in.Sector = *sector
	in.ProverID = filecoin.ProverID(*minerID)
	if proverID.set {
		in.ProverID = proverID.v
	}
	if ticket.set {
		in.Ticket = ticket.v
	}
	seed := seal.DefaultSeed
	if seedFlag.set {
		seed = seedFlag.v
	}
	if *cc && *dataPath != "" {
		return fail("--cc and --data exclude each other")
	}
	if *cc {
		in.Data = make([]byte, len(in.Data))
	}
	if *dataPath != "" {
		if in.Data, err = os.ReadFile(*dataPath); err != nil {
			return fail("%v", err)
		}
	}
	start := time.Now()
	progress, stop := newSealProgress(stderr, "seal "+proof.String(), progressEvery)
	o, r, err := seal.Seal(seal.WithProgress(ctx, progress), in, seed, *workers)
	stop()
	if err != nil {
		return fail("%v", err)
	}
	took := time.Since(start)
	if err := seal.WriteDir(*out, in, seed, o, r, *minerID); err != nil {
		return fail("%v", err)
	}
	commD, commR := r.CommD(), r.CommR()
	fmt.Fprintf(stdout, "sealed %v sector %d in %v\ncomm_d %x\ncomm_r %x\nwrote %s/{%s,%s,%s} and the sector (%s)\n",
		proof, in.Sector, took.Round(time.Millisecond), commD, commR, *out, seal.C1Name, seal.C1WrappedName, seal.CommDRName, seal.SectorFiles)
	return exitOK
}

// newSealProgress returns a seal progress hook that prints a line at every
// phase change and at least every `every` after it: with the phase's share
// done and its time left at the rate so far where the phase counts units,
// with the time spent in it where it does not (the trees report no
// progress of their own). A 512 MiB seal spends minutes in one phase. stop
// ends the heartbeat.
func newSealProgress(w io.Writer, what string, every time.Duration) (progress func(seal.Progress), stop func()) {
	sp := &sealProgress{w: w, what: what, every: every, start: time.Now()}
	done := make(chan struct{})
	ticker := time.NewTicker(every / 5)
	go func() {
		defer ticker.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-ticker.C:
				sp.beat(now)
			}
		}
	}()
	return func(p seal.Progress) { sp.update(p, time.Now()) }, func() { close(done) }
}

// sealProgress is newSealProgress's printer, its clock passed in.
type sealProgress struct {
	w     io.Writer
	what  string
	every time.Duration
	start time.Time

	mu              sync.Mutex
	cur             seal.Progress
	phaseAt, lastAt time.Time
}

// update takes a report: a new phase is printed at once, progress inside
// one at most every sp.every.
func (sp *sealProgress) update(p seal.Progress, now time.Time) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if p.Phase != sp.cur.Phase {
		sp.phaseAt = now
	} else if now.Sub(sp.lastAt) < sp.every {
		sp.cur.Done = max(sp.cur.Done, p.Done)
		return
	} else {
		p.Done = max(p.Done, sp.cur.Done) // reports from several workers overtake each other
	}
	sp.cur = p
	sp.print(now)
}

// beat prints the current phase again when nothing was printed for
// sp.every.
func (sp *sealProgress) beat(now time.Time) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.cur.Phase != "" && now.Sub(sp.lastAt) >= sp.every {
		sp.print(now)
	}
}

func (sp *sealProgress) print(now time.Time) {
	c := sp.cur
	line := fmt.Sprintf("[%6.1fs] %s: %s", now.Sub(sp.start).Seconds(), sp.what, c.Phase)
	switch {
	case c.Total > 0:
		line += fmt.Sprintf(" %3.0f%% (%d of %d)", 100*float64(c.Done)/float64(c.Total), c.Done, c.Total)
		if c.Done > 0 && c.Done < c.Total {
			left := time.Duration(float64(now.Sub(sp.phaseAt)) * float64(c.Total-c.Done) / float64(c.Done))
			line += ", about " + left.Round(time.Second).String() + " left in this phase"
		}
	case now.Sub(sp.phaseAt) >= time.Second:
		line += fmt.Sprintf(" (%s so far)", now.Sub(sp.phaseAt).Round(time.Second))
	}
	fmt.Fprintln(sp.w, line)
	sp.lastAt = now
}
