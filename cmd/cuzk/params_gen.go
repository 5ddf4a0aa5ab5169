package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/cuzk-dev/cuzk/config"
	"github.com/cuzk-dev/cuzk/daemon"
	"github.com/cuzk-dev/cuzk/demo"
	"github.com/cuzk-dev/cuzk/filecoin"
)

func runParamsGen(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("params gen", stderr)
	size := sectorSizeFlag{allowed: filecoin.PublishedSectorSizes()}
	kindName := fs.String("kind", "porep-c2", "circuit `kind`: porep-c2, window-post, winning-post or snap-update (porep and snap work too)")
	fs.Var(&size, "sector-size", "sector size of the circuit (2KiB, 8MiB, 512MiB; 32GiB and 64GiB where memory allows)")
	proofID := fs.Int64("registered-proof", -1, "registered proof id of the kind: seal (default: the V1_1 proof of the sector size), PoSt 0–4 winning / 5–14 window, or update 0–4")
	dir := fs.String("dir", "", "output `directory` (never the official parameter cache)")
	force := fs.Bool("force", false, "regenerate test parameters that already exist")
	officialDir := fs.Bool("allow-official-dir", false, "write into the official parameter cache ($FIL_PROOFS_PARAMETER_CACHE or "+filecoin.DefaultParameterCacheDir+") all the same; never on a machine that proves for the network")
	workers := fs.Int("workers", 0, "worker goroutines (0 = all CPUs)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk params gen")
	if *dir == "" {
		return fail("--dir is required")
	}
	if filecoin.IsParameterCache(*dir, os.LookupEnv) && !*officialDir {
		return fail("%s is the official parameter cache: INSECURE test parameters under official names do not belong there (use another --dir, or --allow-official-dir)", *dir)
	}
	kind, err := filecoin.ParseKind(*kindName)
	if err != nil {
		return fail("--kind: %v", err)
	}
	cid, err := circuitFor(kind, size, *proofID)
	if err != nil {
		return fail("%v", err)
	}
	start := time.Now()
	progress := demo.ProgressLines(stderr, "params gen "+cid.String(), progressEvery)
	files, generated, err := demo.GenParams(ctx, cid, *dir, demo.GenOptions{Workers: *workers, Force: *force, Progress: progress,
		MemAvailable: config.ReadMemAvailable, HeapLimit: daemon.HeapLimit})
	if err != nil {
		return fail("%v", err)
	}
	if !generated {
		fmt.Fprintf(stdout, "test parameters already present (use --force to regenerate):\n  %s\n  %s\n", files.Params, files.VK)
		return exitOK
	}
	fmt.Fprintf(stdout, "generated INSECURE test parameters for circuit %s in %v:\n  %s\n  %s\n  %s\n",
		cid, time.Since(start).Round(time.Millisecond), files.Params, files.VK, files.Marker)
	return exitOK
}
