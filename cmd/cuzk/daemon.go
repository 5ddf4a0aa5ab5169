package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cuzk-dev/cuzk/config"
	"github.com/cuzk-dev/cuzk/daemon"
)

// RustDefaultConfig is the Rust cuzk daemon's default --config
// (cuzk-daemon/src/main.rs in Curio's extern/cuzk). The Rust-style command
// line (`cuzk --config FILE`, `cuzk -l ADDR`) reads it when no --config is
// given and it exists, as the Rust daemon does.
const RustDefaultConfig = "/data/zk/cuzk.toml"

// exitRuntime is the daemon's exit code when it cannot listen or stops
// serving on an error: the machine's state (a port in use, a missing
// socket directory), not a bad command line or config (exitError).
const exitRuntime = 1

// flagSet says the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// runDaemon is `cuzk daemon`: it serves proofs over gRPC until SIGINT or
// SIGTERM (ctx), then shuts down within --shutdown-timeout.
func runDaemon(ctx context.Context, args []string, _, stderr io.Writer) int {
	return startDaemon(ctx, "daemon", args, "", stderr)
}

// runRustStyle is the Rust cuzk's command line, `cuzk [-c|--config FILE]
// [-l|--listen ADDR] [--log-level LEVEL]`, which Curio's systemd unit runs:
// the daemon with every `cuzk daemon` flag, reading RustDefaultConfig
// when no --config is given.
func runRustStyle(ctx context.Context, args []string, _, stderr io.Writer) int {
	return startDaemon(ctx, "", args, RustDefaultConfig, stderr)
}

// startDaemon parses the daemon's flags and runs it. defaultConfig, when
// not "", is read if no --config is given and the file exists; without it
// the built-in defaults apply, as they do for `cuzk daemon`. An explicit
// --config that does not exist is an error (the Rust daemon falls back to
// defaults there, which turns a typo in a unit file into a daemon on the
// wrong socket).
func startDaemon(ctx context.Context, name string, args []string, defaultConfig string, stderr io.Writer) int {
	fs := newFlags(name, stderr)
	cfgPath := fs.String("config", "", "TOML configuration `file` (default: built-in defaults; see config/cuzk.example.toml)")
	fs.StringVar(cfgPath, "c", "", "short for --config (the Rust cuzk's flag)")
	listen := fs.String("listen", "", "gRPC `address`, unix:///path.sock or host:port (overrides daemon.listen)")
	fs.StringVar(listen, "l", "", "short for --listen (the Rust cuzk's flag)")
	statusListen := fs.String("status-listen", "", "HTTP `address` for /status, /metrics, /debug/pprof (overrides daemon.status_listen; \"\" turns it off)")
	logLevel := fs.String("log-level", "", "trace, debug, info, warn or error (overrides logging.level)")
	paramCache := fs.String("params", "", "parameter `directory` (overrides srs.param_cache and FIL_PROOFS_PARAMETER_CACHE)")
	deprecatedFlag(fs, "param-cache", "params")
	enableTest := fs.Bool("enable-test-circuits", false, "serve the built-in test circuits (proof_kind 1000); for tests and benchmarks only")
	trustParams := fs.Bool("trust-params", false, "decode proving keys without subgroup checks and without checking official names against the manifest digest, as rust-fil-proofs does (loads about twice as fast; the self-check still rejects any proof a bad key makes)")
	shutdownTimeout := fs.Duration("shutdown-timeout", 30*time.Second, "how long running jobs may take to finish after SIGINT/SIGTERM before they are aborted")
	maxPending := fs.Int("max-pending", 0, fmt.Sprintf("most jobs planning, queued or running at once; more submissions get RESOURCE_EXHAUSTED (0: %d)", daemon.DefaultMaxPending))
	maxPlans := fs.Int("max-concurrent-plans", 0, "most requests decoded and checked at once (0: GOMAXPROCS)")
	sec := addSecurityFlags(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, strings.TrimSpace("cuzk "+name))
	if *maxPending < 0 || *maxPlans < 0 {
		return fail("--max-pending and --max-concurrent-plans must not be negative")
	}

	cfg := config.Default()
	var notes []string
	if *cfgPath == "" && defaultConfig != "" {
		switch _, err := os.Stat(defaultConfig); {
		case err == nil:
			*cfgPath = defaultConfig
		case errors.Is(err, os.ErrNotExist):
			notes = append(notes, fmt.Sprintf("no --config and %s does not exist: using the built-in defaults", defaultConfig))
		default:
			return fail("default config: %v", err)
		}
	}
	if *cfgPath != "" {
		c, err := config.Load(*cfgPath)
		if err != nil {
			return fail("%v", err)
		}
		cfg = *c
	}
	cfg.ApplyEnv(os.LookupEnv)
	if *listen != "" {
		cfg.Daemon.Listen = *listen
	}
	// --status-listen "" is how a unit turns off a status listener its
	// config file sets, so an empty value counts when it is given.
	if flagSet(fs, "status-listen") {
		cfg.Daemon.StatusListen = *statusListen
	}
	if *logLevel != "" {
		cfg.Logging.Level = *logLevel
	}
	if *paramCache != "" {
		cfg.SRS.ParamCache = *paramCache
	}
	sec.apply(&cfg.Daemon)
	if err := cfg.Validate(); err != nil {
		return fail("%v", err)
	}
	log, err := daemon.NewLogger(cfg.Logging, stderr)
	if err != nil {
		return fail("%v", err)
	}
	for _, n := range notes {
		log.Info(n)
	}
	// The flags override [engine] max_pending and max_concurrent_plans.
	if *maxPending > 0 {
		cfg.Engine.MaxPending = uint32(*maxPending)
	}
	if *maxPlans > 0 {
		cfg.Engine.MaxConcurrentPlans = uint32(*maxPlans)
	}
	err = daemon.Run(ctx, cfg, daemon.Options{EnableTest: *enableTest, TrustParams: *trustParams, ShutdownTimeout: *shutdownTimeout, Log: log})
	switch {
	case errors.Is(err, daemon.ErrServe):
		return exitRuntime // logged
	case errors.Is(err, daemon.ErrListen):
		fmt.Fprintf(stderr, "%s: %v\n", strings.TrimSpace("cuzk "+name), err)
		return exitRuntime
	case err != nil:
		return fail("%v", err)
	}
	return exitOK
}
