package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"time"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/snap"
	"github.com/cuzk-dev/cuzk/snap/snapgen"
)

func runSnapGen(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("snap gen", stderr)
	size := sectorSizeFlag{allowed: filecoin.PublishedSectorSizes()}
	fs.Var(&size, "sector-size", "sector size: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB")
	proofID := fs.Int64("registered-proof", -1, "registered update proof id, 0..4 (default: the one of --sector-size)")
	out := fs.String("out", "", "output `directory`: "+snap.UpdateFileName+" (public values, marked made_without_sealing), "+
		snap.ProofsFileName+" (the vanilla partition proofs as Curio sends them) and "+snap.ProofsFileName+snapgen.MarkerSuffix)
	minerID := fs.Uint64("miner", 1000, "miner actor id (with --sector, picks the made-up sector key and comm_c)")
	sector := fs.Uint64("sector", 1, "sector number")
	period := fs.Int("period", 0, "the new data's period in nodes, a power of 8 dividing an h-range (default: up to 512)")
	workers := fs.Int("workers", 0, "worker goroutines (0 = all CPUs)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk snap gen")
	if *out == "" {
		return fail("--out is required")
	}
	var p filecoin.RegisteredUpdateProof
	var err error
	switch {
	case *proofID >= 0:
		if p, err = filecoin.UpdateProofFromID(uint64(*proofID)); err != nil {
			return fail("--registered-proof: %v", err)
		}
		if size.set && p.SectorSize() != size.v {
			return fail("--registered-proof %v updates %v sectors, not %v", p, p.SectorSize(), size.v)
		}
	case size.set:
		if p, err = filecoin.UpdateProofForSize(size.v); err != nil {
			return fail("--sector-size: %v", err)
		}
	default:
		return fail("give --sector-size or --registered-proof")
	}
	if *workers <= 0 {
		*workers = runtime.NumCPU()
	}
	params := snapgen.DefaultParams(p)
	params.MinerID, params.Sector, params.Period = *minerID, *sector, *period
	start := time.Now()
	r, err := snapgen.Generate(ctx, params, *workers)
	if err != nil {
		return fail("%v", err)
	}
	took := time.Since(start)
	files, err := snapgen.WriteFiles(*out, r)
	if err != nil {
		return fail("%v", err)
	}
	u := r.UpdateFile()
	fmt.Fprintf(stdout, "generated %v update of sector %d WITHOUT A SECTOR in %v: %d partitions, data period %d nodes, %d tree_r_new nodes hashed\ncomm_r_old %s\ncomm_r_new %s\ncomm_d_new %s\nwrote %s, %s, %s\n",
		p, params.Sector, took.Round(time.Millisecond), len(r.VanillaProofs), r.Params.Period, r.Kept,
		u.CommROld, u.CommRNew, u.CommDNew, files.Update, files.VProofs, files.Marker)
	fmt.Fprintf(stdout, "prove it with: cuzk prove-update --update %s --vanilla %s --out FILE\n", files.Update, filepath.Join(*out, snap.ProofsFileName))
	return exitOK
}
