package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/post"
)

func runVerifyPoSt(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("verify-post", stderr)
	vkPath := fs.String("vk", "", "verifying key `file` (.vk) of the PoSt circuit (default: found in --params)")
	paramsDir := fs.String("params", "", paramsUsage)
	proofPath := fs.String("proof", "", "PoSt proof `file`: 192 bytes per partition, in partition order")
	proofID := fs.Int64("registered-proof", -1, "registered PoSt proof id: winning 0..4, window 5..14")
	randFlag := fs.String("randomness", "", "PoSt randomness, 64 hex characters")
	sectorsFlag := fs.String("sectors", "", "the proven sectors `ID:COMMR[,ID:COMMR…]` in order (comm_r as 64 hex characters); window: all sectors of the proof, split into partitions of the circuit's sector count")
	partition := fs.Int("partition", 0, "window partition index k of a one-partition proof (before V1_2 it numbers the sectors in the challenges)")
	miner := fs.Uint64("miner", 0, "miner actor id, checked against --public's (the public inputs do not depend on it, as in upstream's verify_*_post)")
	pubPath := fs.String("public", "", "read the public values from a `file` written by 'cuzk post vanilla' (or a rustref PoSt JSON); flags given as well must agree with it")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk verify-post")
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if *pubPath != "" {
		pub, err := post.ReadPublicFile(*pubPath)
		if err != nil {
			return fail("%v", err)
		}
		ids := make([]string, len(pub.Sectors))
		for i, s := range pub.Sectors {
			ids[i] = fmt.Sprintf("%d:%s", s.SectorID, s.CommR)
		}
		for _, f := range []struct {
			flag string
			dst  *string
			v    string
		}{{"randomness", randFlag, pub.Randomness}, {"sectors", sectorsFlag, strings.Join(ids, ",")}} {
			if given[f.flag] && !strings.EqualFold(*f.dst, f.v) {
				return fail("--%s %s disagrees with %s (%s)", f.flag, *f.dst, *pubPath, f.v)
			}
			*f.dst = f.v
		}
		if given["registered-proof"] && *proofID != pub.RegisteredProof {
			return fail("--registered-proof %d disagrees with %s (%d)", *proofID, *pubPath, pub.RegisteredProof)
		}
		*proofID = pub.RegisteredProof
		if given["partition"] && *partition != pub.PartitionIndex {
			return fail("--partition %d disagrees with %s (%d)", *partition, *pubPath, pub.PartitionIndex)
		}
		*partition = pub.PartitionIndex
		if given["miner"] && pub.MinerID != nil && *miner != *pub.MinerID {
			return fail("--miner %d disagrees with %s (%d)", *miner, *pubPath, *pub.MinerID)
		}
	}
	if *proofPath == "" {
		return fail("--proof is required")
	}
	if *proofID < 0 || *randFlag == "" || *sectorsFlag == "" {
		return fail("--registered-proof, --randomness and --sectors are required (or --public)")
	}
	p, err := filecoin.PoStProofFromID(uint64(*proofID))
	if err != nil {
		return fail("--registered-proof: %v", err)
	}
	rnd, err := parseRandomness(*randFlag)
	if err != nil {
		return fail("--randomness: %v", err)
	}
	sectors, err := parseSectors(*sectorsFlag)
	if err != nil {
		return fail("--sectors: %v", err)
	}
	if *partition < 0 {
		return fail("--partition %d: must be >= 0", *partition)
	}
	pub := post.Public{Proof: p, Randomness: rnd, Sectors: sectors, Partition: *partition}
	vk, err := vkFileFor(*vkPath, *paramsDir, p.CircuitID())
	if err != nil {
		return fail("%v", err)
	}
	bad, n, err := post.VerifyFile(vk, *proofPath, pub)
	return reportPartitions(stdout, fail, bad, n, err)
}

// reportPartitions prints a verify-* verdict of a VerifyFile that names
// the bad partitions: those of a proof of several, then reportVerdict's.
func reportPartitions(stdout io.Writer, fail func(string, ...any) int, bad []int, partitions int, err error) int {
	if err == nil && partitions > 1 {
		for _, j := range bad {
			fmt.Fprintf(stdout, "partition %d: invalid\n", j)
		}
	}
	return reportVerdict(stdout, fail, len(bad) == 0, err)
}

// reportVerdict prints a verify-* verdict, valid or invalid, or fails
// with err; the exit code follows (0, 1, 2).
func reportVerdict(stdout io.Writer, fail func(string, ...any) int, ok bool, err error) int {
	if err != nil {
		return fail("%v", err)
	}
	if !ok {
		fmt.Fprintln(stdout, "invalid")
		return exitInvalid
	}
	fmt.Fprintln(stdout, "valid")
	return exitOK
}

// parseSectors parses "ID:COMMR[,ID:COMMR…]".
func parseSectors(s string) ([]post.PublicSector, error) {
	var out []post.PublicSector
	for i, e := range strings.Split(s, ",") {
		id, commR, ok := strings.Cut(strings.TrimSpace(e), ":")
		if !ok {
			return nil, fmt.Errorf("entry %d %q: want ID:COMMR", i, e)
		}
		n, err := strconv.ParseUint(id, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("entry %d %q: sector id: %v", i, e, err)
		}
		b, err := parseHex32(commR)
		if err != nil {
			return nil, fmt.Errorf("entry %d (sector %d): comm_r: %v", i, n, err)
		}
		c, err := fr.LittleEndian.Element(&b)
		if err != nil {
			return nil, fmt.Errorf("entry %d (sector %d): comm_r %x is not a canonical field element", i, n, b)
		}
		out = append(out, post.PublicSector{ID: n, CommR: c})
	}
	return out, nil
}
