package main

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/oneshot"
	"github.com/cuzk-dev/cuzk/post"
	"github.com/cuzk-dev/cuzk/snap"
)

// oneShotFlags are the flags prove-post and prove-update share with
// prove-c2: parameters, output, workers and the fixed blinding of tests.
type oneShotFlags struct {
	paramsDir   *string
	out         *string
	workers     *int
	checkParams *bool
	stageReport *string
	residency   *string
	r, s        hex32
}

func addOneShotFlags(fs *flag.FlagSet) *oneShotFlags {
	o := &oneShotFlags{
		paramsDir:   fs.String("params", "", "parameter `directory` (default $FIL_PROOFS_PARAMETER_CACHE or "+filecoin.DefaultParameterCacheDir+")"),
		out:         fs.String("out", "", "proof output `file` (192 bytes per partition)"),
		workers:     fs.Int("workers", 0, "worker goroutines (0 = all CPUs)"),
		checkParams: fs.Bool("check-params", false, "check that every parameter point is in the prime-order subgroup (slow; for files of unknown provenance)"),
		stageReport: fs.String("stage-report", "", "write the wall time, CPU time and peak anonymous and file-backed memory of every step (synthesis, each MSM, the FFTs) to this JSON `file`, and a table to stderr; for one partition at a time"),
		residency:   fs.String("residency", "auto", "parameters decoded into memory (resident), read from the mapped file as the prover consumes them (mapped), or resident when they fit beside a partition (auto)"),
	}
	fs.Var(&o.r, "r", "fixed blinding r for every partition, 64 hex (LE Fr); tests only")
	fs.Var(&o.s, "s", "fixed blinding s for every partition, 64 hex (LE Fr); tests only")
	return o
}

// options are the one-shot options the flags give: warnings to stderr,
// and the fixed blinding when --r and --s are given.
func (o *oneShotFlags) options(stderr io.Writer, cid filecoin.CircuitID) (oneshot.Options, error) {
	opt := oneshot.Options{ParamsDir: *o.paramsDir, Workers: *o.workers, CheckParams: *o.checkParams, Residency: *o.residency,
		StageReport: *o.stageReport, Stderr: stderr, Label: "prove " + string(cid)}
	if o.r.set != o.s.set {
		return opt, fmt.Errorf("--r and --s go together")
	}
	if o.r.set {
		var err error
		if opt.Randomness, err = oneshot.FixedRandomness(o.r.v, o.s.v); err != nil {
			return opt, fmt.Errorf("--%w", err)
		}
	}
	return opt, nil
}

// prove makes job's proof and writes it to --out.
func (o *oneShotFlags) prove(ctx context.Context, job oneshot.Job, stdout, stderr io.Writer, fail func(string, ...any) int) int {
	opt, err := o.options(stderr, job.Circuit)
	if err != nil {
		return fail("%v", err)
	}
	return proveJob(ctx, job, opt, *o.out, stdout, fail)
}

// runProvePost proves a WindowPoSt partition or a WinningPoSt from its
// vanilla proofs through an in-process engine: the daemon's decoding,
// native check, planning, pipeline, self-check and encoding.
func runProvePost(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prove-post", stderr)
	vanilla := fs.String("vanilla", "", "vanilla proofs `file`: a JSON array of base64 bincode FallbackPoStSectorProofs, one per sector (Curio's vanilla_proofs; 'cuzk post vanilla --out')")
	pubPath := fs.String("public", "", "public values `file` written by 'cuzk post vanilla' (registered proof, randomness, partition, miner); flags given as well must agree with it")
	proofID := fs.Int64("registered-proof", -1, "registered PoSt proof: 0–4 WinningPoSt, 5–14 WindowPoSt (2 KiB V1_1 = 10)")
	randFlag := fs.String("randomness", "", "PoSt randomness, 64 hex characters (32 bytes, a canonical field element)")
	partition := fs.Int("partition", 0, "WindowPoSt partition index")
	miner := fs.Uint64("miner", 0, "miner actor id (informational; the circuits do not depend on it)")
	o := addOneShotFlags(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk prove-post")
	if *pubPath != "" {
		given := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		pub, err := post.ReadPublicFile(*pubPath)
		if err != nil {
			return fail("%v", err)
		}
		switch {
		case given["randomness"] && !strings.EqualFold(strings.TrimPrefix(*randFlag, "0x"), pub.Randomness):
			return fail("--randomness %s disagrees with %s (%s)", *randFlag, *pubPath, pub.Randomness)
		case given["registered-proof"] && *proofID != pub.RegisteredProof:
			return fail("--registered-proof %d disagrees with %s (%d)", *proofID, *pubPath, pub.RegisteredProof)
		case given["partition"] && *partition != pub.PartitionIndex:
			return fail("--partition %d disagrees with %s (%d)", *partition, *pubPath, pub.PartitionIndex)
		case given["miner"] && pub.MinerID != nil && *miner != *pub.MinerID:
			return fail("--miner %d disagrees with %s (%d)", *miner, *pubPath, *pub.MinerID)
		}
		*randFlag, *proofID, *partition = pub.Randomness, pub.RegisteredProof, pub.PartitionIndex
		if pub.MinerID != nil {
			*miner = *pub.MinerID
		}
	}
	if *vanilla == "" || *o.out == "" || *proofID < 0 || *randFlag == "" {
		return fail("--vanilla, --registered-proof, --randomness (or --public) and --out are required")
	}
	if *partition < 0 {
		return fail("--partition %d is negative", *partition)
	}
	p, err := filecoin.PoStProofFromID(uint64(*proofID))
	if err != nil {
		return fail("--registered-proof: %v", err)
	}
	// The bytes go to the engine as given: it checks length and
	// canonicity, as for Curio's requests.
	rnd, err := hex.DecodeString(strings.TrimPrefix(strings.TrimSpace(*randFlag), "0x"))
	if err != nil {
		return fail("--randomness: %v", err)
	}
	proofs, err := oneshot.ReadVanillaFile(*vanilla)
	if err != nil {
		return fail("%v", err)
	}
	return o.prove(ctx, oneshot.PoSt(p, rnd, uint32(*partition), *miner, proofs), stdout, stderr, fail)
}

// runProveUpdate proves a SnapDeals update (every partition) from its
// vanilla partition proofs through an in-process engine.
func runProveUpdate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prove-update", stderr)
	vanilla := fs.String("vanilla", "", "vanilla proofs `file`: a JSON array of base64 bincode PartitionProofs, one per partition (Curio's vanilla_proofs; 'cuzk snap encode' writes vproofs.json)")
	update := fs.String("update", "", "update.json `file` ('cuzk snap encode'): comm_r_old, comm_r_new, comm_d_new, registered_proof; flags override its values")
	proofID := fs.Int64("registered-proof", -1, "registered update proof 0–4 (2 KiB = 0)")
	var commROld, commRNew, commDNew hex32
	fs.Var(&commROld, "comm-r-old", "comm_r_old, 64 hex characters")
	fs.Var(&commRNew, "comm-r-new", "comm_r_new, 64 hex characters")
	fs.Var(&commDNew, "comm-d-new", "comm_d_new, 64 hex characters")
	partition := fs.Int("partition", -1, "prove partition `K` alone (its 192 bytes, self-checked against its public inputs; verify-update --partition K checks it); --vanilla still holds every partition; default: every partition")
	o := addOneShotFlags(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk prove-update")
	if *update != "" {
		u, err := snap.ReadUpdateFile(*update)
		if err != nil {
			return fail("%v", err)
		}
		for _, f := range []struct {
			name, val string
			dst       *hex32
		}{{"comm_r_old", u.CommROld, &commROld}, {"comm_r_new", u.CommRNew, &commRNew}, {"comm_d_new", u.CommDNew, &commDNew}} {
			if f.dst.set || f.val == "" {
				continue
			}
			if err := f.dst.Set(f.val); err != nil {
				return fail("%s: %s: %v", *update, f.name, err)
			}
		}
		if *proofID < 0 {
			*proofID = u.RegisteredProof
		}
	}
	if *vanilla == "" || *o.out == "" || *proofID < 0 || !commROld.set || !commRNew.set || !commDNew.set {
		return fail("--vanilla, --registered-proof, --comm-r-old, --comm-r-new, --comm-d-new (or --update) and --out are required")
	}
	p, err := filecoin.UpdateProofFromID(uint64(*proofID))
	if err != nil {
		return fail("--registered-proof: %v", err)
	}
	if *partition < -1 {
		return fail("--partition %d: want a partition index (0 upwards)", *partition)
	}
	proofs, err := oneshot.ReadVanillaFile(*vanilla)
	if err != nil {
		return fail("%v", err)
	}
	job := oneshot.Update(p, commROld.v, commRNew.v, commDNew.v, proofs)
	if *partition >= 0 {
		if *partition >= p.Partitions() {
			return fail("--partition %d: %v has %d partition(s), 0 to %d", *partition, p, p.Partitions(), p.Partitions()-1)
		}
		job = oneshot.UpdatePartition(p, *partition, commROld.v, commRNew.v, commDNew.v, proofs)
	}
	return o.prove(ctx, job, stdout, stderr, fail)
}
