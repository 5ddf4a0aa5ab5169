package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/snap"
)

func runSnapEncode(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("snap encode", stderr)
	dir := fs.String("sector-dir", "", "sealed CC sector `directory` (cuzk seal --cc --out DIR)")
	out := fs.String("out", "", "output `directory`: update.json, vproofs.json and the updated sector (same layout as the sector dir)")
	dataPath := fs.String("data", "", "new data `file`: sector size × 127/128 raw bytes (fr32-padded here) or sector size padded bytes (default: "+snap.DefaultDataDescription+")")
	workers := fs.Int("workers", 0, "worker goroutines (0 = all CPUs)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk snap encode")
	if *dir == "" || *out == "" {
		return fail("--sector-dir and --out are required")
	}
	if *workers <= 0 {
		*workers = runtime.NumCPU()
	}
	if sameDir(*dir, *out) {
		return fail("--out %s is the sector dir: the sector key is kept, write the update elsewhere", *out)
	}
	key, err := snap.LoadKey(*dir)
	if err != nil {
		return fail("%v", err)
	}
	size := key.SectorSize()
	raw := snap.DefaultData(size)
	dataName := snap.DefaultDataDescription
	if *dataPath != "" {
		if raw, err = os.ReadFile(*dataPath); err != nil {
			return fail("%v", err)
		}
		dataName = *dataPath
	}
	padded, err := seal.PadData(raw, size)
	if err != nil {
		return fail("--data %s: %v", dataName, err)
	}

	start := time.Now()
	// EncodeDir reports no progress of its own: a heartbeat says it is at
	// work (a 512 MiB update takes minutes).
	stop := newQuietProgress(stderr, "snap encode", "encoding, building tree_r_new and the partition proofs", progressEvery)
	uf, err := snap.EncodeDir(ctx, key, padded, dataName, *out, *workers)
	stop()
	if err != nil {
		return fail("%v", err)
	}
	took := time.Since(start)
	fmt.Fprintf(stdout, "updated %v sector %d with %s in %v (%s, %d partitions)\ncomm_r_old %s\ncomm_r_new %s\ncomm_d_new %s\nwrote %s/{%s,%s} and the updated sector\n",
		size, key.ID, dataName, took.Round(time.Millisecond), uf.RegisteredProofAPI, uf.Partitions, uf.CommROld, uf.CommRNew, uf.CommDNew, *out, snap.UpdateFileName, snap.ProofsFileName)
	fmt.Fprintf(stdout, "verify a proof of it with: cuzk verify-update --vk FILE --proof FILE --update %s\n", filepath.Join(*out, snap.UpdateFileName))
	return exitOK
}

// sameDir reports whether a and b name the same existing directory (b may
// not exist yet; a missing a is reported by sectordir.Load).
func sameDir(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
