package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/post"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// listFlag collects a repeatable flag whose values may also be comma lists.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v == "" {
			return fmt.Errorf("empty entry in %q", s)
		}
		*l = append(*l, v)
	}
	return nil
}

// parseRandomness reads PoSt randomness: 32 bytes that must be a canonical
// field element, as filecoin-proofs' as_safe_commitment requires.
func parseRandomness(s string) ([32]byte, error) {
	b, err := parseHex32(s)
	if err != nil {
		return b, err
	}
	if err := post.CheckRandomness(b); err != nil {
		return b, fmt.Errorf("%x is not a canonical field element (the chain's randomness has the top two bits of its last byte cleared)", b)
	}
	return b, nil
}

// postProofFor picks the registered PoSt proof of kind for sectors of
// size: an explicit id must be of that kind and size; the default is the
// size's winning proof, or its window proof with the V1_2 challenge rule
// (ids 10..14, go-state-types' StackedDrgWindow*V1_1), what the network
// uses.
func postProofFor(kind filecoin.PoStType, size filecoin.SectorSize, id int64, given bool) (filecoin.RegisteredPoStProof, error) {
	if given {
		if id < 0 {
			return 0, fmt.Errorf("--registered-proof %d: not a PoSt proof id (0..4 winning, 5..14 window)", id)
		}
		p, err := filecoin.PoStProofFromID(uint64(id))
		if err != nil {
			return 0, fmt.Errorf("--registered-proof: %w", err)
		}
		if p.Type() != kind {
			return 0, fmt.Errorf("--registered-proof %d (%v) is a %v proof, --kind is %v (%s)", id, p, p.Type(), kind, postIDRange(kind))
		}
		if p.SectorSize() != size {
			return 0, fmt.Errorf("--registered-proof %d (%v) is for %v sectors, the sector is %v", id, p, p.SectorSize(), size)
		}
		return p, nil
	}
	for _, p := range filecoin.PoStProofs() {
		if p.Type() == kind && p.SectorSize() == size && (kind == filecoin.WinningPoSt || p.APIVersion() == filecoin.V1_2_0) {
			return p, nil
		}
	}
	return 0, fmt.Errorf("no %v PoSt proof for %v sectors", kind, size)
}

func postIDRange(kind filecoin.PoStType) string {
	if kind == filecoin.WinningPoSt {
		return "ids 0..4"
	}
	return "ids 5..14"
}

// parsePoStKind reads window-post or winning-post by any of their names
// (proofkind's aliases, window and winning among them).
func parsePoStKind(s string) (filecoin.PoStType, error) {
	if s == "" {
		return 0, fmt.Errorf("--kind is required (window-post or winning-post)")
	}
	switch k, _ := proofkind.Parse(s); k {
	case proofkind.WindowPoSt:
		return filecoin.WindowPoSt, nil
	case proofkind.WinningPoSt:
		return filecoin.WinningPoSt, nil
	}
	return 0, fmt.Errorf("--kind %q: want window-post or winning-post", s)
}

func runPostVanilla(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("post vanilla", stderr)
	var dirs listFlag
	kindFlag := fs.String("kind", "", "proof `kind`: window-post or winning-post (window and winning work too)")
	fs.Var(&dirs, "sector-dir", "sector `directory` written by 'cuzk seal --out' or 'cuzk snap encode' (repeat or comma-separate: window, the partition's sectors in order; winning, the sector set to draw from)")
	randFlag := fs.String("randomness", "", "PoSt randomness, 64 hex characters (a canonical field element)")
	out := fs.String("out", "", "output `file`: JSON array of base64 bincode FallbackPoStSectorProof, as Curio sends vanilla_proofs")
	pubPath := fs.String("public", "", "public-values `file` for verify-post (default: --out with .public.json)")
	proofID := fs.Int64("registered-proof", -1, "registered PoSt proof id: winning 0..4, window 5..9 (V1 challenges) or 10..14 (V1_2; default)")
	partition := fs.Int("partition", 0, "window partition index k (before V1_2 it numbers the sectors in the challenges)")
	workers := fs.Int("workers", 0, "worker goroutines for the self-check (0 = all CPUs)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk post vanilla")
	if *workers <= 0 {
		*workers = runtime.NumCPU()
	}
	kind, err := parsePoStKind(*kindFlag)
	if err != nil {
		return fail("%v", err)
	}
	if len(dirs) == 0 || *randFlag == "" || *out == "" {
		return fail("--sector-dir, --randomness and --out are required")
	}
	rnd, err := parseRandomness(*randFlag)
	if err != nil {
		return fail("--randomness: %v", err)
	}
	if *partition < 0 || kind == filecoin.WinningPoSt && *partition != 0 {
		return fail("--partition %d: winning has partition 0 only, window takes k >= 0", *partition)
	}
	sectors, err := post.LoadSectors(dirs)
	if err != nil {
		return fail("%v", err)
	}
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "registered-proof" })
	p, err := postProofFor(kind, sectors[0].SectorSize(), *proofID, given)
	if err != nil {
		return fail("%v", err)
	}

	if *pubPath == "" {
		*pubPath = strings.TrimSuffix(*out, ".json") + ".public.json"
	}
	stop := newQuietProgress(stderr, "post vanilla", fmt.Sprintf("challenging and proving %d sector(s)", len(sectors)), progressEvery)
	pub, err := post.WriteVanilla(ctx, p, rnd, sectors, *partition, *workers, *out, *pubPath)
	stop()
	if err != nil {
		return fail("%v", err)
	}
	ids := make([]string, len(pub.Sectors))
	for i, s := range pub.Sectors {
		ids[i] = fmt.Sprintf("%d:%s", s.SectorID, s.CommR)
	}
	fmt.Fprintf(stdout, "%v vanilla proofs (%v, partition %d): %d sector(s), wrote %s and %s\n", kind, p, *partition, len(pub.Sectors), *out, *pubPath)
	fmt.Fprintf(stdout, "verify a proof of them with: cuzk verify-post --vk FILE --proof FILE --public %s\n  (or --registered-proof %d --randomness %s --sectors %s --partition %d)\n",
		*pubPath, p, pub.Randomness, strings.Join(ids, ","), *partition)
	return exitOK
}
