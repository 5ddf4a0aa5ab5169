package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/cuzk-dev/cuzk/bench"
	"github.com/cuzk-dev/cuzk/internal/bytesize"
	"github.com/cuzk-dev/cuzk/server/statusdoc"
)

// rpcJSON renders responses for --json with the wire's field names and
// zero values included, so scripts see every field.
var rpcJSON = protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}

// runBenchStatus is `cuzk bench status`: GetStatus, and /status with
// --status-addr.
func runBenchStatus(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bench status", stderr)
	df := addDaemonFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON: {\"grpc\": GetStatus, \"engine\": /status (with --status-addr)}")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk bench status")
	c, err := df.dial()
	if err != nil {
		return fail("%v", err)
	}
	defer c.Close()
	st, err := c.Status(ctx)
	if err != nil {
		return fail("GetStatus: %v", df.reachErr(err))
	}
	var eng *statusdoc.Status
	var raw []byte
	if sc, err := df.status(); err != nil {
		return fail("%v", err)
	} else if sc != nil {
		if eng, raw, err = sc.Status(ctx); err != nil {
			return fail("%v", err)
		}
	}
	if *asJSON {
		g, err := rpcJSON.Marshal(st)
		if err != nil {
			return fail("%v", err)
		}
		out := map[string]json.RawMessage{"grpc": g}
		if raw != nil {
			out["engine"] = raw
		}
		if err := printJSON(stdout, out); err != nil {
			return fail("%v", err)
		}
		return exitOK
	}
	fmt.Fprintf(stdout, "=== cuzk daemon status (%s) ===\n", df.addr)
	if st.GetDraining() {
		fmt.Fprintf(stdout, "DRAINING:         shutting down; finishing its jobs, refusing new ones (send new work elsewhere)\n")
	}
	fmt.Fprintf(stdout, "uptime:           %ds\n", st.GetUptimeSeconds())
	fmt.Fprintf(stdout, "proofs completed: %d\n", st.GetTotalProofsCompleted())
	fmt.Fprintf(stdout, "proofs failed:    %d\n", st.GetTotalProofsFailed())
	// The wire's pinned_memory fields carry the memory budget (the Rust
	// engine's name, from its pinned host buffers). /status says more of
	// it, so with --status-addr that line stands alone.
	if eng == nil {
		fmt.Fprintf(stdout, "memory budget:    %s used of %s (%d / %d bytes; --status-addr for its peak and parameters)\n", bytesize.Format(int64(st.GetPinnedMemoryBytes())),
			bytesize.Format(int64(st.GetPinnedMemoryLimitBytes())), st.GetPinnedMemoryBytes(), st.GetPinnedMemoryLimitBytes())
	}
	if len(st.GetGpus()) > 0 {
		fmt.Fprintf(stdout, "\nGPUs:\n")
		for _, g := range st.GetGpus() {
			job := "idle"
			if g.GetCurrentJobId() != "" {
				job = "proving " + g.GetCurrentProofKind() + " (" + g.GetCurrentJobId() + ")"
			}
			fmt.Fprintf(stdout, "  [%d] %s: %d MiB free of %d MiB: %s\n", g.GetOrdinal(), g.GetName(), g.GetVramFreeBytes()>>20, g.GetVramTotalBytes()>>20, job)
		}
	}
	if len(st.GetLoadedSrs()) > 0 {
		fmt.Fprintf(stdout, "\nLoaded SRS:\n")
		for _, s := range st.GetLoadedSrs() {
			fmt.Fprintf(stdout, "  %s (tier=%s, size=%s, refs=%d)\n", s.GetCircuitId(), s.GetTier(), bytesize.Format(int64(s.GetSizeBytes())), s.GetRefCount())
		}
	}
	if len(st.GetQueues()) > 0 {
		fmt.Fprintf(stdout, "\nQueues:\n")
		for _, q := range st.GetQueues() {
			fmt.Fprintf(stdout, "  %s: pending=%d, in_progress=%d\n", q.GetProofKind(), q.GetPending(), q.GetInProgress())
		}
	}
	if eng != nil {
		printEngineStatus(stdout, eng)
	}
	return exitOK
}

func printEngineStatus(w io.Writer, s *statusdoc.Status) {
	p := s.Pipeline
	m := s.Memory
	fmt.Fprintf(w, "\nPipeline (enabled=%v): %d synthesis worker(s), concurrency %d, lookahead %d\n", p.Enabled, p.SynthesisWorkers, p.SynthesisConcurrency, p.Lookahead)
	fmt.Fprintf(w, "  partitions: synthesis queued %d, synthesizing %d, ready %d, proving %d, finishing %d\n", p.SynthesisQueued, p.Synthesizing, p.Ready, p.Proving, p.Finishing)
	fmt.Fprintf(w, "Memory budget: used %s of %s (peak %s, parameters %s), %d waiting\n", bytesize.Format(m.UsedBytes), bytesize.Format(m.TotalBytes),
		bytesize.Format(m.PeakBytes), bytesize.Format(m.ParamsBytes), m.Waiting)
	c := s.Counters
	fmt.Fprintf(w, "Jobs: completed %d, failed %d, cancelled %d, attached duplicates %d, results retained %d\n", c.Completed, c.Failed, c.Cancelled, c.Attached, c.Retained)
	for kind, k := range s.ByKind {
		fmt.Fprintf(w, "  %s: completed %d, failed %d, cancelled %d\n", kind, k.Completed, k.Failed, k.Cancelled)
	}
	if len(s.Params) > 0 {
		fmt.Fprintf(w, "Parameters:\n")
		for _, e := range s.Params {
			test := ""
			if e.Test {
				test = ", INSECURE test parameters"
			}
			fmt.Fprintf(w, "  %s: %s, %s, refs %d, loads %d (last %v)%s\n", e.CircuitID, e.Tier, bytesize.Format(e.Bytes), e.Refs, e.Loads, e.LastLoad.Round(time.Millisecond), test)
		}
	}
	if len(s.Jobs) > 0 {
		fmt.Fprintf(w, "Active jobs:\n")
		for _, j := range s.Jobs {
			var parts []string
			for _, pt := range j.Partitions {
				parts = append(parts, fmt.Sprintf("%d:%s", pt.Index, pt.State))
			}
			fmt.Fprintf(w, "  %s %s %s %s %s age %v [%s]\n", j.ID, j.Kind, j.Circuit, j.Priority, j.State, j.Age.Round(time.Millisecond), strings.Join(parts, " "))
		}
	}
	if n := len(s.RecentJobs); n > 0 {
		last := s.RecentJobs[n-1]
		fmt.Fprintf(w, "Recent jobs: %d with their stages (cuzk bench timeline draws them); last %s %s in %v\n",
			n, last.ID, last.State, last.Timings.Total.Round(time.Millisecond))
	}
}

// preloadJSON and evictJSON are PreloadSRS's and EvictSRS's answers as
// --json prints them, for one daemon or summed over several: the wire's
// field names, and its uint64 as a string as protojson writes it
// (TestPreloadEvictJSONIsTheWire holds them to the proto).
type preloadJSON struct {
	AlreadyLoaded bool   `json:"already_loaded"`
	LoadTimeMs    uint64 `json:"load_time_ms,string"`
}

type evictJSON struct {
	WasLoaded  bool   `json:"was_loaded"`
	FreedBytes uint64 `json:"freed_bytes,string"`
}

// runBenchPreload is `cuzk bench preload --circuit-id ID`.
func runBenchPreload(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bench preload", stderr)
	df := addDaemonFlags(fs)
	var id string
	fs.StringVar(&id, "circuit-id", "", "circuit `id` to load (porep-2k, porep-32g, test-k10, ...)")
	deprecatedFlag(fs, "c", "circuit-id") // -c is --config elsewhere in cuzk
	every := fs.Duration("progress", 10*time.Second, "progress line interval when stderr is not a terminal (0: off)")
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk bench preload")
	if id == "" {
		return fail("--circuit-id is required")
	}
	c, err := df.dial()
	if err != nil {
		return fail("%v", err)
	}
	defer c.Close()
	prog := bench.StartProgress(stderr, isTerminal(stderr), *every, func() string {
		return "loading " + id + "; " + daemonBrief(ctx, c)
	})
	// On several daemons: already when all had them, the longest load.
	already, took, err := c.Preload(ctx, id)
	prog.Stop()
	if err != nil {
		return fail("PreloadSRS %s: %v", id, df.reachErr(err))
	}
	resp := preloadJSON{AlreadyLoaded: already, LoadTimeMs: uint64(took.Milliseconds())}
	if *asJSON {
		if err := printJSON(stdout, resp); err != nil {
			return fail("%v", err)
		}
		return exitOK
	}
	if resp.AlreadyLoaded {
		fmt.Fprintf(stdout, "%s already loaded\n", id)
	} else {
		fmt.Fprintf(stdout, "%s loaded in %d ms\n", id, resp.LoadTimeMs)
	}
	return exitOK
}

// runBenchEvict is `cuzk bench evict --circuit-id ID`.
func runBenchEvict(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bench evict", stderr)
	df := addDaemonFlags(fs)
	var id string
	fs.StringVar(&id, "circuit-id", "", "circuit `id` whose parameters to drop from memory")
	deprecatedFlag(fs, "c", "circuit-id") // -c is --config elsewhere in cuzk
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk bench evict")
	if id == "" {
		return fail("--circuit-id is required")
	}
	c, err := df.dial()
	if err != nil {
		return fail("%v", err)
	}
	defer c.Close()
	// On several daemons: loaded on any, the bytes freed in all.
	was, freed, err := c.Evict(ctx, id)
	if err != nil {
		return fail("EvictSRS %s: %v", id, df.reachErr(err))
	}
	resp := evictJSON{WasLoaded: was, FreedBytes: freed}
	if *asJSON {
		if err := printJSON(stdout, resp); err != nil {
			return fail("%v", err)
		}
		return exitOK
	}
	if resp.WasLoaded {
		fmt.Fprintf(stdout, "%s evicted, %s freed (%d bytes)\n", id, bytesize.Format(int64(resp.FreedBytes)), resp.FreedBytes)
	} else {
		fmt.Fprintf(stdout, "%s was not loaded\n", id)
	}
	return exitOK
}

// runBenchMetrics is `cuzk bench metrics`: the Prometheus text, or its
// families as JSON.
func runBenchMetrics(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bench metrics", stderr)
	df := addDaemonFlags(fs)
	prefix := fs.String("prefix", "", "only metrics whose name starts with `prefix` (e.g. cuzk_)")
	asJSON := fs.Bool("json", false, "print the metric families as JSON")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk bench metrics")
	c, err := df.dial()
	if err != nil {
		return fail("%v", err)
	}
	defer c.Close()
	text, err := c.Metrics(ctx)
	if err != nil {
		return fail("GetMetrics: %v", df.reachErr(err))
	}
	if !*asJSON {
		if *prefix == "" {
			fmt.Fprint(stdout, text)
			return exitOK
		}
		for _, line := range strings.SplitAfter(text, "\n") {
			name := line
			if f := strings.Fields(strings.TrimPrefix(strings.TrimPrefix(line, "# HELP "), "# TYPE ")); len(f) > 0 {
				name = f[0]
			}
			if strings.HasPrefix(name, *prefix) {
				fmt.Fprint(stdout, line)
			}
		}
		return exitOK
	}
	fams, err := bench.ParseMetrics(text)
	if err != nil {
		return fail("%v", err)
	}
	kept := fams[:0]
	for _, f := range fams {
		if strings.HasPrefix(f.Name, *prefix) {
			kept = append(kept, f)
		}
	}
	if err := printJSON(stdout, kept); err != nil {
		return fail("%v", err)
	}
	return exitOK
}
