package main

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"io"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep/seal"
)

func runVerifySeal(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("verify-seal", stderr)
	var size sectorSizeFlag
	var commR, commD, proverID, ticket, seed, porepID hex32
	vkPath := fs.String("vk", "", "verifying key `file` (.vk) (default: found in --params)")
	paramsDir := fs.String("params", "", paramsUsage)
	proofPath := fs.String("proof", "", "seal proof `file` (192 bytes per partition)")
	fs.Var(&size, "sector-size", "sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)")
	fs.Var(&commR, "comm-r", "comm_r, 64 hex characters")
	fs.Var(&commD, "comm-d", "comm_d, 64 hex characters")
	fs.Var(&proverID, "prover-id", "prover id, 64 hex characters")
	sector := fs.Uint64("sector", 0, "sector number")
	fs.Var(&ticket, "ticket", "ticket, 64 hex characters")
	fs.Var(&seed, "seed", "interactive seed, 64 hex characters")
	fs.Var(&porepID, "porep-id", "porep_id, 64 hex characters (instead of --registered-proof)")
	proofID := fs.Int64("registered-proof", -1, "registered seal proof id")
	apiVersion := fs.String("api-version", "", "api version override, e.g. 1.2.0 (needed with a --porep-id that names no registered proof)")
	partition := fs.Int("partition", -1, "check partition `K` alone (its public inputs only; --proof holds its 192 bytes or the whole proof); default: every partition")
	commdrPath := fs.String("commdr", "", "read every public value from a commdr.json written by 'cuzk seal' (flags given as well must agree with it)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk verify-seal")
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if *proofID < -1 {
		return fail("--registered-proof %d: not a proof id", *proofID)
	}
	if *commdrPath != "" {
		c, err := seal.ReadCommDR(*commdrPath)
		if err != nil {
			return fail("%v", err)
		}
		for _, f := range []struct {
			dst  *hex32
			v    string
			flag string
		}{{&commR, c.CommR, "comm-r"}, {&commD, c.CommD, "comm-d"}, {&proverID, c.ProverID, "prover-id"}, {&ticket, c.Ticket, "ticket"}, {&seed, c.Seed, "seed"}, {&porepID, c.PoRepID, "porep-id"}} {
			var v hex32
			if err := v.Set(f.v); err != nil {
				return fail("%s: %s: %v", *commdrPath, f.flag, err)
			}
			if given[f.flag] && v.v != f.dst.v {
				return fail("--%s %x disagrees with %s (%x)", f.flag, f.dst.v, *commdrPath, v.v)
			}
			*f.dst = v
		}
		if given["sector"] && *sector != c.Sector {
			return fail("--sector %d disagrees with %s (%d)", *sector, *commdrPath, c.Sector)
		}
		*sector = c.Sector
		if given["registered-proof"] && uint64(*proofID) != c.RegisteredProof {
			return fail("--registered-proof %d disagrees with %s (%d)", *proofID, *commdrPath, c.RegisteredProof)
		}
		*proofID = int64(c.RegisteredProof)
		if c.SectorSize != 0 {
			// sector_size is checked like every other field: against the
			// flag and, in sealConfig, against the registered proof.
			if size.set && uint64(size.v) != c.SectorSize {
				return fail("--sector-size %v disagrees with %s (%d)", size.v, *commdrPath, c.SectorSize)
			}
			size = sectorSizeFlag{v: filecoin.SectorSize(c.SectorSize), set: true}
		}
	}
	if *proofPath == "" {
		return fail("--proof is required")
	}
	if *partition < -1 {
		return fail("--partition %d: want a partition index (0 upwards)", *partition)
	}
	for _, f := range []struct {
		name string
		v    *hex32
	}{{"--comm-r", &commR}, {"--comm-d", &commD}, {"--prover-id", &proverID}, {"--ticket", &ticket}, {"--seed", &seed}} {
		if !f.v.set {
			return fail("%s is required", f.name)
		}
	}
	if !given["sector"] && *commdrPath == "" {
		return fail("--sector is required")
	}
	sealed, err := sealConfig(size, *proofID, porepID, *apiVersion)
	if err != nil {
		return fail("%v", err)
	}
	pub, err := sealed.Public()
	if err != nil {
		return fail("%v", err)
	}
	cfg := pub.Config
	path := *vkPath
	if path == "" {
		// Only published sizes have official keys; --vk serves the others.
		circuit, err := filecoin.PoRepCircuitID(cfg.SectorSize)
		if err != nil {
			return fail("%v", err)
		}
		if path, err = vkFileFor("", *paramsDir, circuit); err != nil {
			return fail("%v", err)
		}
	}
	pub.CommR, pub.CommD, pub.ProverID, pub.Sector, pub.Ticket, pub.Seed = commR.v, commD.v, proverID.v, *sector, ticket.v, seed.v
	if *partition >= 0 {
		pub.Partition = partition
	}
	bad, n, err := seal.VerifyFile(path, *proofPath, pub)
	return reportPartitions(stdout, fail, bad, n, err)
}

// sealConfig resolves how the sector was sealed: from --registered-proof,
// or from --porep-id (filecoin.SealProofOfPoRepID), with an optional
// api-version override, needed for porep_ids that name no registered
// proof.
func sealConfig(size sectorSizeFlag, proofID int64, porepID hex32, api string) (seal.Sealed, error) {
	var sealed seal.Sealed
	switch {
	case proofID >= 0:
		p, err := sealProofFor(size, proofID)
		if err != nil {
			return sealed, err
		}
		if porepID.set && porepID.v != p.PoRepID() {
			return sealed, fmt.Errorf("--porep-id %x is not the porep_id of %v (%x)", porepID.v, p, p.PoRepID())
		}
		sealed.Proof = p
	case porepID.set:
		if !size.set {
			return sealed, fmt.Errorf("--sector-size is required with --porep-id")
		}
		if p, ok := filecoin.SealProofOfPoRepID(porepID.v, size.v); ok {
			sealed.Proof = p
		} else if api == "" {
			return sealed, fmt.Errorf("--porep-id %s names no registered %v proof: give --api-version", hex.EncodeToString(porepID.v[:]), size.v)
		} else {
			sealed = seal.Sealed{Custom: true, PoRepID: porepID.v, SectorSize: size.v}
		}
	default:
		return sealed, fmt.Errorf("give --registered-proof or --porep-id")
	}
	sealed.APIVersion = api
	return sealed, nil
}
