package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/post"
)

func runVerifyPoSt(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("verify-post", stderr)
	vkPath := fs.String("vk", "", "verifying key `file` (.vk) of the PoSt circuit")
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
		pub, err := readPoStPublic(*pubPath)
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
	if *vkPath == "" || *proofPath == "" {
		return fail("--vk and --proof are required")
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
	raw, err := os.ReadFile(*proofPath)
	if err != nil {
		return fail("%v", err)
	}
	if len(raw) == 0 || len(raw)%groth16.ProofSize != 0 {
		return fail("--proof %s: %d bytes is not a whole number of %d-byte Groth16 proofs", *proofPath, len(raw), groth16.ProofSize)
	}
	proofs, err := groth16.DecodeProofs(raw)
	if err != nil {
		return fail("--proof %s: %v", *proofPath, err)
	}
	inputs, err := postInputs(p, rnd, sectors, *partition, len(proofs))
	if err != nil {
		return fail("%v", err)
	}
	return verifyProofs(*vkPath, p.String(), proofs, inputs, stdout, fail)
}

// postInputs derives the public inputs of every partition proof: winning,
// the one sector repeated for the 66 unrolled challenges; window, the
// sectors in partitions of the circuit's sector count, each padded with
// its last sector as upstream pads.
func postInputs(p filecoin.RegisteredPoStProof, rnd [32]byte, sectors []post.PublicSector, k, nProofs int) ([][]fr.Element, error) {
	if k < 0 {
		return nil, fmt.Errorf("--partition %d: must be >= 0", k)
	}
	if p.Type() == filecoin.WinningPoSt {
		if k != 0 {
			return nil, fmt.Errorf("--partition %d: %v has partition 0 only", k, p)
		}
		if len(sectors) != p.SectorCount() || nProofs != 1 {
			return nil, fmt.Errorf("%v proves %d sector in one 192-byte proof; got %d sector(s) and %d proof(s)", p, p.SectorCount(), len(sectors), nProofs)
		}
		in, err := post.PublicInputs(p, rnd, post.WinningPublicSectors(p, sectors[0]), 0)
		if err != nil {
			return nil, err
		}
		return [][]fr.Element{in}, nil
	}
	per := p.SectorCount()
	parts := (len(sectors) + per - 1) / per
	if parts != nProofs {
		return nil, fmt.Errorf("%d sectors make %d partition(s) of up to %d for %v; the proof has %d partition proof(s)", len(sectors), parts, per, p, nProofs)
	}
	if nProofs > 1 && k != 0 {
		return nil, fmt.Errorf("--partition %d with a %d-partition proof: a whole proof numbers its partitions from 0", k, nProofs)
	}
	out := make([][]fr.Element, nProofs)
	for j := range out {
		chunk := sectors[j*per : min((j+1)*per, len(sectors))]
		var err error
		if out[j], err = post.PublicInputs(p, rnd, chunk, k+j); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// verifyProofs verifies proofs against their inputs under the key in
// vkPath and prints valid or invalid; the exit code follows.
func verifyProofs(vkPath, circuit string, proofs []groth16.Proof, inputs [][]fr.Element, stdout io.Writer, fail func(string, ...any) int) int {
	vk, err := groth16.ReadVerifyingKeyFile(vkPath)
	if err != nil {
		return fail("%v", err)
	}
	if got, want := len(vk.IC)-1, len(inputs[0]); got != want {
		return fail("--vk %s takes %d public inputs, a %v proof has %d (a key for another circuit?)", vkPath, got, circuit, want)
	}
	pvk, err := groth16.Prepare(vk)
	if err != nil {
		return fail("%v", err)
	}
	ok, err := groth16.VerifyBatch(pvk, proofs, inputs, nil)
	if err != nil {
		return fail("%v", err)
	}
	if !ok {
		if len(proofs) > 1 {
			// Name the failing partitions.
			for j := range proofs {
				if v, err := groth16.Verify(pvk, &proofs[j], inputs[j]); err == nil && !v {
					fmt.Fprintf(stdout, "partition %d: invalid\n", j)
				}
			}
		}
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

// readPoStPublic reads a public-values file (post vanilla's, or a rustref
// PoSt JSON: unknown fields are ignored).
func readPoStPublic(path string) (*postPublic, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var pub postPublic
	if err := json.Unmarshal(raw, &pub); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// A missing registered_proof must not read as 0 (WinningPoSt 2 KiB).
	var present struct {
		RegisteredProof *int64 `json:"registered_proof"`
	}
	_ = json.Unmarshal(raw, &present)
	switch {
	case present.RegisteredProof == nil:
		return nil, fmt.Errorf("%s: no registered_proof", path)
	case pub.Randomness == "":
		return nil, fmt.Errorf("%s: no randomness", path)
	case len(pub.Sectors) == 0:
		return nil, fmt.Errorf("%s: no sectors", path)
	}
	return &pub, nil
}
