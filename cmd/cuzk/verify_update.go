package main

import (
	"context"
	"flag"
	"io"
	"strings"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/snap"
)

func runVerifyUpdate(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("verify-update", stderr)
	vkPath := fs.String("vk", "", "verifying key `file` (.vk) of the EmptySectorUpdate circuit (default: found in --params)")
	paramsDir := fs.String("params", "", paramsUsage)
	proofPath := fs.String("proof", "", "update proof `file`: 192 bytes per partition, every partition in order")
	proofID := fs.Int64("registered-proof", -1, "registered update proof id, 0..4 (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)")
	var commROld, commRNew, commDNew hex32
	fs.Var(&commROld, "comm-r-old", "comm_r of the sector key, 64 hex characters")
	fs.Var(&commRNew, "comm-r-new", "comm_r of the updated sector, 64 hex characters")
	fs.Var(&commDNew, "comm-d-new", "comm_d of the new data, 64 hex characters")
	partition := fs.Int("partition", snap.AllPartitions, "check partition `K` alone (its public inputs only; --proof holds its 192 bytes or the whole proof); default: every partition")
	updatePath := fs.String("update", "", "read the public values from an update.json written by 'cuzk snap encode' (or a rustref one); flags given as well must agree with it")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk verify-update")
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if *updatePath != "" {
		u, err := snap.ReadUpdateFile(*updatePath)
		if err != nil {
			return fail("%v", err)
		}
		for _, f := range []struct {
			flag string
			dst  *hex32
			v    string
		}{{"comm-r-old", &commROld, u.CommROld}, {"comm-r-new", &commRNew, u.CommRNew}, {"comm-d-new", &commDNew, u.CommDNew}} {
			var v hex32
			if err := v.Set(f.v); err != nil {
				return fail("%s: %s: %v", *updatePath, strings.ReplaceAll(f.flag, "-", "_"), err)
			}
			if given[f.flag] && v.v != f.dst.v {
				return fail("--%s %x disagrees with %s (%x)", f.flag, f.dst.v, *updatePath, v.v)
			}
			*f.dst = v
		}
		if given["registered-proof"] && *proofID != u.RegisteredProof {
			return fail("--registered-proof %d disagrees with %s (%d)", *proofID, *updatePath, u.RegisteredProof)
		}
		*proofID = u.RegisteredProof
	}
	if *proofPath == "" {
		return fail("--proof is required")
	}
	if *proofID < 0 {
		return fail("--registered-proof is required (0..4), or --update")
	}
	p, err := filecoin.UpdateProofFromID(uint64(*proofID))
	if err != nil {
		return fail("--registered-proof: %v", err)
	}
	pub := snap.Public{Proof: p, CommDNew: commDNew.v}
	for _, f := range []struct {
		name string
		v    *hex32
		dst  *fr.Element
	}{{"--comm-r-old", &commROld, &pub.CommROld}, {"--comm-r-new", &commRNew, &pub.CommRNew}, {"--comm-d-new", &commDNew, nil}} {
		if !f.v.set {
			return fail("%s is required (or --update)", f.name)
		}
		e, err := fr.LittleEndian.Element(&f.v.v)
		if err != nil {
			return fail("%s %x is not a canonical field element", f.name, f.v.v)
		}
		if f.dst != nil {
			*f.dst = e
		}
	}
	if *partition < snap.AllPartitions {
		return fail("--partition %d: want a partition index (0 upwards)", *partition)
	}
	vk, err := vkFileFor(*vkPath, *paramsDir, p.CircuitID())
	if err != nil {
		return fail("%v", err)
	}
	if *partition != snap.AllPartitions {
		ok, err := snap.VerifyPartitionFile(vk, *proofPath, pub, *partition)
		return reportVerdict(stdout, fail, ok, err)
	}
	bad, n, err := snap.VerifyFile(vk, *proofPath, pub)
	return reportPartitions(stdout, fail, bad, n, err)
}
