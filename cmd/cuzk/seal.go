package main

import (
	"context"
	"fmt"
	"io"
	"os"
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
	progress, stop := newPhaseProgress(stderr, "seal "+proof.String(), progressEvery)
	o, r, err := seal.Seal(seal.WithProgress(ctx, func(p seal.Progress) { progress(phase(p)) }), in, seed, *workers)
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
