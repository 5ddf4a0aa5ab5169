package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep/c1gen"
)

func runC1Gen(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("c1 gen", stderr)
	var size sectorSizeFlag
	var ticket, seedFlag, proverID hex32
	fs.Var(&size, "sector-size", "sector size: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB")
	proofID := fs.Int64("registered-proof", -1, "registered seal proof id (default: the V1_1 proof of the sector size; only interactive proofs)")
	out := fs.String("out", "", "output `file` for the C1 JSON; commdr.json and FILE"+c1gen.MarkerSuffix+" are written beside it")
	wrapped := fs.Bool("wrapped", false, "write the C1 in Curio's envelope ({SectorNum, Phase1Out, SectorSize}), as Curio's PoRep task sends it")
	fs.Var(&ticket, "ticket", "ticket, 64 hex characters (default 32×0x01)")
	fs.Var(&seedFlag, "seed", "interactive seed, 64 hex characters (default 32×0x02)")
	fs.Var(&proverID, "prover-id", "prover id, 64 hex characters (default: that of --miner)")
	minerID := fs.Uint64("miner", 1000, "miner actor id, used for the prover id when --prover-id is not given")
	sector := fs.Uint64("sector", 1, "sector number")
	workers := fs.Int("workers", 0, "worker goroutines (0 = all CPUs)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk c1 gen")
	if *out == "" {
		return fail("--out is required")
	}
	proof, err := sealProofFor(size, *proofID)
	if err != nil {
		return fail("%v", err)
	}
	p := c1gen.DefaultParams(proof)
	p.Sector = *sector
	p.ProverID = filecoin.ProverID(*minerID)
	if proverID.set {
		p.ProverID = proverID.v
	}
	if ticket.set {
		p.Ticket = ticket.v
	}
	if seedFlag.set {
		p.Seed = seedFlag.v
	}
	start := time.Now()
	r, err := c1gen.Generate(ctx, p, *workers)
	if err != nil {
		return fail("%v", err)
	}
	files, err := c1gen.WriteFiles(*out, *wrapped, r)
	if err != nil {
		return fail("%v", err)
	}
	o := r.Output
	fmt.Fprintf(stdout, "generated %v sector %d WITHOUT SEALING in %v: %d partitions, %d challenged nodes, %d columns, data block %d nodes\ncomm_d %x\ncomm_r %x\nwrote %s, %s, %s\n",
		proof, p.Sector, time.Since(start).Round(time.Millisecond), len(o.VanillaProofs), r.Challenged, r.Columns, r.BlockNodes,
		o.CommD, o.CommR, files.C1, files.CommDR, files.Marker)
	return exitOK
}
