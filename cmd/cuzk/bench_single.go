package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cuzk-dev/cuzk/bench"
	"github.com/cuzk-dev/cuzk/benchspec"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/server/statusdoc"
)

// verifyReport is the --verify outcome of `cuzk bench single`.
type verifyReport struct {
	Checked  bool          `json:"checked"`
	Valid    bool          `json:"valid"`
	Method   string        `json:"method,omitempty"`
	VK       string        `json:"vk,omitempty"`
	Duration time.Duration `json:"duration_ns,omitempty"`
	Error    string        `json:"error,omitempty"`
}

type singleReport struct {
	Addr   string        `json:"addr"`
	Spec   *bench.Spec   `json:"spec"`
	Result bench.Result  `json:"result"`
	Proof  string        `json:"proof_hex,omitempty"`
	Verify *verifyReport `json:"verify,omitempty"`
}

// defaultParamDir is where the bench tools look for verifying keys: the
// daemon's rule (filecoin.ParamDir), so both look in the same place.
func defaultParamDir() string { return filecoin.ParamDir("", os.LookupEnv) }

// runBenchSingle is `cuzk bench single`: one proof through the daemon.
func runBenchSingle(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bench single", stderr)
	df := addDaemonFlags(fs)
	pf := addProofFlags(fs, true)
	verify := fs.Bool("verify", false, "verify the proof: PoRep with verify-seal from the C1's public values; PoSt, SnapDeals and test circuits with groth16 verify against public inputs computed from public values")
	paramDir := fs.String("params", defaultParamDir(), "parameter `directory` holding the verifying key (for --verify)")
	vkPath := fs.String("vk", "", "verifying key `file` (for --verify; default: found in --params)")
	requestID := fs.String("request-id", "", "request id (default: a fresh one)")
	asJSON := fs.Bool("json", false, "print one JSON report")
	out := fs.String("out", "", "also write the proof bytes (192 per partition) to this `file`")
	pg := addProgressFlags(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk bench single")
	spec, err := pf.flagSpec(ctx, stderr)
	if err != nil {
		return fail("%v", err)
	}
	var verifier *benchspec.Verifier
	rep := singleReport{Addr: df.addr, Spec: spec.Spec}
	if *verify {
		if verifier, err = spec.Verifier(*vkPath, *paramDir); err != nil {
			return fail("--verify: %v", err)
		}
		rep.Verify = &verifyReport{VK: verifier.Path}
	}
	sc, err := df.status()
	if err != nil {
		return fail("%v", err)
	}
	c, err := df.dial()
	if err != nil {
		return fail("%v", err)
	}
	defer c.Close()
	if err := df.probe(ctx, c); err != nil {
		return fail("%v", err)
	}
	id := *requestID
	if id == "" {
		id = bench.NewRunID("bench-single")
	}
	if !*asJSON {
		fmt.Fprintf(stdout, "submitting %s to %s as %s\n", spec.Describe(), df.addr, id)
	}
	watch := newJobWatch(c, sc, spec.Kind().String())
	_, stopProgress := pg.start(ctx, stderr, func(ctx context.Context) string {
		return watch.describe(ctx, func(jobID string) bool { return strings.HasSuffix(jobID, id) }, func(string) string { return "job" })
	})
	rep.Result = bench.Prove(ctx, c, spec.Spec, 0, id)
	stopProgress()
	r := &rep.Result
	code := exitOK
	switch {
	case r.Status == bench.StatusError, r.Status == bench.StatusRejected:
		code = exitError // no answer from the daemon, or no job (a draining daemon)
	case !r.OK():
		code = exitInvalid
	}
	if r.OK() {
		rep.Proof = hex.EncodeToString(r.Proof)
		if *out != "" {
			if err := os.WriteFile(*out, r.Proof, 0o644); err != nil {
				return fail("--out: %v", err)
			}
		}
	}
	if rep.Verify != nil && r.OK() {
		t := time.Now()
		ok, method, err := verifier.Verify(r.Proof)
		rep.Verify.Duration = time.Since(t)
		rep.Verify.Checked, rep.Verify.Valid, rep.Verify.Method = err == nil, ok, method
		if err != nil {
			rep.Verify.Error = err.Error()
		}
		if !ok {
			code = exitInvalid
		}
		if err != nil && !errors.Is(err, benchspec.ErrReplicaMismatch) {
			code = exitError
		}
	}
	if *asJSON {
		if err := printJSON(stdout, rep); err != nil {
			return fail("%v", err)
		}
		return code
	}
	printSingle(stdout, &rep)
	return code
}

func printSingle(w io.Writer, rep *singleReport) {
	r := &rep.Result
	fmt.Fprintf(w, "\n=== Proof Result ===\n")
	fmt.Fprintf(w, "status:          %s\n", r.Status)
	if r.JobID == "" && r.Status == bench.StatusRejected {
		fmt.Fprintf(w, "job_id:          (none: the daemon made no job)\n")
	} else {
		fmt.Fprintf(w, "job_id:          %s\n", r.JobID)
	}
	if strings.Contains(rep.Addr, ",") || strings.HasPrefix(rep.Addr, "dns:") {
		// One of several daemons.
		fmt.Fprintf(w, "daemon:          %s\n", r.Daemon)
		if len(r.Moved) > 0 {
			fmt.Fprintf(w, "moved from:      %s\n", strings.Join(r.Moved, ", "))
		}
	}
	if !r.OK() {
		fmt.Fprintf(w, "error:           %s\n", r.Error)
		fmt.Fprintf(w, "wall:            %s s (client)\n", secs(r.Wall))
		return
	}
	fmt.Fprintf(w, "queue_wait_ms:   %d\n", r.QueueWait.Milliseconds())
	fmt.Fprintf(w, "srs_load_ms:     %d\n", r.SRSLoad.Milliseconds())
	fmt.Fprintf(w, "synthesis_ms:    %d\n", r.Synthesis.Milliseconds())
	// The wire calls it gpu_compute_ms whatever the backend; named for
	// what it is, as the JSON (prove_ns) and batch tables do.
	fmt.Fprintf(w, "prove_ms:        %d (the prover stage, CPU or GPU; gpu_compute_ms on the wire)\n", r.Prove.Milliseconds())
	if len(r.ProveSteps) > 0 {
		fmt.Fprintf(w, "prove_steps_ms:  %s\n", formatSteps(r.ProveSteps))
	}
	fmt.Fprintf(w, "total_ms:        %d\n", r.Total.Milliseconds())
	fmt.Fprintf(w, "wall:            %s s (client, request sent to result received)\n", secs(r.Wall))
	hexProof := rep.Proof
	if len(hexProof) > 256 {
		hexProof = hexProof[:256] + "..."
	}
	fmt.Fprintf(w, "proof:           %d bytes (%d partition proof(s)): %s\n", r.ProofBytes, benchspec.PartitionProofs(r.ProofBytes), hexProof)
	if v := rep.Verify; v != nil {
		switch {
		case v.Error != "":
			fmt.Fprintf(w, "verify:          ERROR: %s\n", v.Error)
		case v.Valid:
			fmt.Fprintf(w, "verify:          valid (%s; %s; %v)\n", v.Method, v.VK, v.Duration.Round(time.Millisecond))
		default:
			fmt.Fprintf(w, "verify:          INVALID (%s; %s)\n", v.Method, v.VK)
		}
	}
}

// formatSteps is the prover's steps on one line, in milliseconds: each
// step's sum over the job's partitions, with the longest partition's
// where that differs (more than one partition).
func formatSteps(steps []statusdoc.StepTotal) string {
	var b strings.Builder
	for i, s := range steps {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", s.Step, msec(s.Sum))
		if s.Max != s.Sum {
			fmt.Fprintf(&b, " (max %s)", msec(s.Max))
		}
	}
	b.WriteString(" (each summed over the partitions)")
	return b.String()
}

// msec is d in milliseconds with three decimals.
func msec(d time.Duration) string { return fmt.Sprintf("%.3f", float64(d)/float64(time.Millisecond)) }
