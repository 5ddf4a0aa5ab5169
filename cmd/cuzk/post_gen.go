package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/post"
)

// runPostGen makes PoSt vanilla proofs of made-up sectors (sparse trees,
// no sealing), so that WindowPoSt and WinningPoSt of any size and sector
// count can be proven and benchmarked.
func runPostGen(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("post gen", stderr)
	size := sectorSizeFlag{allowed: filecoin.PublishedSectorSizes()}
	kindFlag := fs.String("kind", "", "proof `kind`: window-post or winning-post (window and winning work too)")
	fs.Var(&size, "sector-size", "sector size: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB")
	sectors := fs.Int("sectors", 1, "window: the sectors proven (partitions of the proof's sector count, 2,349 at 32 GiB); winning: the size of the sector set the proven sector is drawn from")
	first := fs.Uint64("first-sector", 1, "the first sector number; the sectors are numbered from it")
	out := fs.String("out", "", "output `directory`: vanilla.json and public.json (vanilla-pK.json and public-pK.json per partition K when there are several), each vanilla file marked "+post.MadeUpMarkerSuffix)
	randFlag := fs.String("randomness", "", "PoSt randomness, 64 hex characters (a canonical field element; default: the rustref PoSt goldens')")
	proofID := fs.Int64("registered-proof", -1, "registered PoSt proof id: winning 0..4, window 5..9 (V1 challenges) or 10..14 (V1_2; default)")
	miner := fs.Uint64("miner", 1000, "miner actor id (the prover id is made from it)")
	workers := fs.Int("workers", 0, "worker goroutines (0 = all CPUs)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk post gen")
	if *workers <= 0 {
		*workers = runtime.NumCPU()
	}
	kind, err := parsePoStKind(*kindFlag)
	if err != nil {
		return fail("%v", err)
	}
	if !size.set || *out == "" {
		return fail("--sector-size and --out are required")
	}
	if *sectors < 1 {
		return fail("--sectors %d: at least 1", *sectors)
	}
	rnd := post.DefaultRandomness()
	if *randFlag != "" {
		if rnd, err = parseRandomness(*randFlag); err != nil {
			return fail("--randomness: %v", err)
		}
	}
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "registered-proof" })
	p, err := postProofFor(kind, size.v, *proofID, given)
	if err != nil {
		return fail("%v", err)
	}
	start := time.Now()
	stop := newQuietProgress(stderr, "post gen", fmt.Sprintf("making up and checking %d sector(s)", *sectors), progressEvery)
	m, err := post.GenerateMadeUp(ctx, post.MadeUpParams{Proof: p, MinerID: *miner, Randomness: rnd, Sectors: *sectors, FirstSector: *first}, *workers)
	stop()
	if err != nil {
		return fail("%v", err)
	}
	files, err := m.WriteFiles(*out)
	if err != nil {
		return fail("%v", err)
	}
	proven := len(m.Public().Sectors)
	fmt.Fprintf(stdout, "generated %v vanilla proofs (%v) of %d made-up sector(s) WITHOUT SEALING in %v: %d partition(s), checked natively\n",
		kind, p, proven, time.Since(start).Round(time.Millisecond), len(m.Partitions))
	if m.WinningIndex != nil {
		fmt.Fprintf(stdout, "winning sector: index %d of a set of %d, sector %d\n", *m.WinningIndex, *sectors, m.Public().Sectors[0].ID)
	}
	fmt.Fprintf(stdout, "wrote %s, %s and %d marker file(s)\n", strings.Join(files.Vanilla, ", "), strings.Join(uniq(append(files.PartitionPublic, files.Public)), ", "), len(files.Markers))
	fmt.Fprintf(stdout, "prove with: cuzk prove-post --vanilla %s --public %s --out FILE\n", files.Vanilla[0], files.PartitionPublic[0])
	return exitOK
}

// uniq drops repeated strings, keeping the first of each.
func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
