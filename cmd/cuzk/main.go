// Command cuzk is the cuzk proving engine: the daemon, the bench tool and
// the utilities around them (sealing test sectors, generating test
// parameters, proving and verifying from files).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// command is one subcommand. run returns the process exit code.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

func commands() map[string]command {
	return map[string]command{
		"verify-groth16": {"verify Groth16 proofs against a .vk and public inputs", runVerifyGroth16},
		"daemon":         {"serve proofs over gRPC (cuzk.v1 ProvingEngine)", runDaemon},
		"demo":           {"the main job on its default: seal a 2 KiB sector, prove it, verify it (--kind for PoSt and SnapDeals)", runDemo},
		"seal":           {"seal a small test sector natively and write its C1 output", runSeal},
		"c1 gen":         {"make a consistent C1 output of any sector size without sealing (32/64 GiB proving and benchmarks)", runC1Gen},
		"params gen":     {"generate INSECURE test parameters for a circuit (--kind porep, window-post, winning-post, snap)", runParamsGen},
		"params check":   {"verify parameter files against the official manifest's digests; report missing ones", runParamsCheck},

		"params test-circuits": {"parameters of the daemon's test circuits (--enable-test-circuits)", runParamsTestCircuits},

		"prove-c2":       {"prove a PoRep C1 output (seal commit phase 2) in-process", runProveC2},
		"prove-post":     {"prove a WindowPoSt partition or a WinningPoSt from Curio's vanilla proofs in-process", runProvePost},
		"prove-update":   {"prove a SnapDeals update from its vanilla partition proofs in-process", runProveUpdate},
		"verify-seal":    {"verify a PoRep proof from a sector's public values", runVerifySeal},
		"bench synth":    {"synthesis microbenchmark: ns/constraint, allocations, peak RSS (no daemon)", runBenchSynth},
		"bench single":   {"one proof through the daemon: status, timings, proof size, --verify", runBenchSingle},
		"bench batch":    {"N proofs, J concurrent: per-proof lines, percentiles, throughput", runBenchBatch},
		"bench stress":   {"open-loop arrivals of a proof mix for a bounded time; accounts for every job", runBenchStress},
		"bench status":   {"the daemon's status (GetStatus; /status with --status-addr)", runBenchStatus},
		"bench preload":  {"load a circuit's parameters in the daemon", runBenchPreload},
		"bench evict":    {"drop a circuit's parameters from the daemon's memory", runBenchEvict},
		"bench metrics":  {"the daemon's Prometheus metrics", runBenchMetrics},
		"bench timeline": {"draw the pipeline from the stage records of the daemon's /status (text and SVG)", runBenchTimeline},
		"gpu-info":       {"list the CUDA devices (exit 3 when there are none)", runGPUInfo},
		"post vanilla":   {"WindowPoSt/WinningPoSt vanilla proofs of sealed sectors, as Curio sends them", runPostVanilla},
		"post gen":       {"WindowPoSt/WinningPoSt vanilla proofs of made-up sectors without sealing (any size and sector count)", runPostGen},
		"snap gen":       {"make a consistent SnapDeals update of any sector size without a sector (uniform sector key, new data one block repeated; seconds at 32/64 GiB)", runSnapGen},
		"snap encode":    {"update a sealed CC sector with new data: update.json, vanilla partition proofs", runSnapEncode},
		"verify-post":    {"verify a WindowPoSt/WinningPoSt proof from public values", runVerifyPoSt},
		"verify-update":  {"verify a SnapDeals update proof from public values", runVerifyUpdate},
		"version":        {"version, VCS commit, Go version, backends compiled in (also --version)", runVersion},
	}
}

// Exit codes of every command (scripts depend on them).
const (
	exitOK = 0
	// exitInvalid: what the command checked is invalid — a proof that
	// does not verify, a vanilla proof that fails its check, jobs the
	// daemon failed.
	exitInvalid = 1
	// exitError: anything else — usage, malformed input, I/O, missing
	// parameters, work that could not be done.
	exitError = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal asks the command to stop (a daemon drains within
	// its deadline); a second one then kills the process at once.
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 {
		return runBare(ctx, RustDefaultConfig, stdout, stderr)
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		usage(stderr, cmds)
		return exitOK
	}
	if args[0] == "--version" || args[0] == "-version" {
		return runVersion(ctx, args[1:], stdout, stderr)
	}
	// The Rust cuzk has no subcommands: its daemon starts from flags
	// alone, and Curio's systemd unit runs `cuzk --config FILE`. Any
	// command line that starts with a flag is that one.
	if strings.HasPrefix(args[0], "-") {
		return runRustStyle(ctx, args, stdout, stderr)
	}
	// Two-word commands ("params gen", "bench single") first.
	name := args[0]
	if len(args) > 1 {
		if _, ok := cmds[args[0]+" "+args[1]]; ok {
			name = args[0] + " " + args[1]
			args = args[1:]
		}
	}
	cmd, ok := cmds[name]
	if !ok {
		// A group alone ("cuzk bench", "cuzk params --help") lists its
		// subcommands.
		if group := groupOf(cmds, args[0]); len(group) > 0 {
			help := len(args) > 1 && (args[1] == "-h" || args[1] == "--help" || args[1] == "help")
			w := stdout
			if !help {
				w = stderr
				if len(args) > 1 {
					fmt.Fprintf(w, "cuzk: unknown command %q\n\n", args[0]+" "+args[1])
				}
			}
			usage(w, group)
			if help {
				return exitOK
			}
			return exitError
		}
		fmt.Fprintf(stderr, "cuzk: unknown command %q\n\n", args[0])
		usage(stderr, cmds)
		return exitError
	}
	return cmd.run(ctx, args[1:], stdout, stderr)
}

// runBare is `cuzk` alone. The Rust cuzk starts its daemon then, from
// defaultConfig; so does this one when that file exists (a machine set up
// for the Rust daemon). Elsewhere a bare word that starts a daemon on the
// default socket would surprise more than the command list does.
func runBare(ctx context.Context, defaultConfig string, stdout, stderr io.Writer) int {
	switch _, err := os.Stat(defaultConfig); {
	case err == nil:
		return startDaemon(ctx, "", nil, defaultConfig, stderr)
	case !errors.Is(err, os.ErrNotExist):
		fmt.Fprintf(stderr, "cuzk: %v\n\n", err)
	}
	usage(stderr, commands())
	return exitError
}

// groupOf returns the two-word commands whose first word is name.
func groupOf(cmds map[string]command, name string) map[string]command {
	group := map[string]command{}
	for n, c := range cmds {
		if first, _, two := strings.Cut(n, " "); two && first == name {
			group[n] = c
		}
	}
	return group
}

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: cuzk <command> [flags]")
	fmt.Fprintln(w, "       cuzk [-c|--config FILE] [-l|--listen ADDR] [daemon flags]   (the Rust cuzk's command line: cuzk daemon, reading "+RustDefaultConfig+" by default)")
	fmt.Fprintln(w, "       cuzk alone starts the daemon too when "+RustDefaultConfig+" exists, as the Rust cuzk does")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	width := 16
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, n := range names {
		fmt.Fprintf(w, "  %-*s %s\n", width, n, cmds[n].summary)
	}
	fmt.Fprintln(w, "\nrun 'cuzk <command> -h' for a command's flags")
}

// failer returns the error reporter of a command: it prints
// "<command>: <message>" to stderr and returns exitError.
func failer(stderr io.Writer, command string) func(format string, a ...any) int {
	return func(format string, a ...any) int {
		fmt.Fprintf(stderr, command+": "+format+"\n", a...)
		return exitError
	}
}

// newFlags returns a FlagSet that reports errors instead of exiting.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(strings.TrimSpace("cuzk "+name), flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseFlags parses args and maps -h and errors to exit codes.
func parseFlags(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		return exitError, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "%s: unexpected arguments: %v\n", fs.Name(), fs.Args())
		return exitError, false
	}
	return 0, true
}
