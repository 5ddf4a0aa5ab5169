package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/cuzk-dev/cuzk/filecoin"
)

// Errors callers may need to tell apart. Decode errors (TOML syntax, a value
// of the wrong TOML type, an unparsable size or duration) come from the TOML
// decoder and name the line and the key.
var (
	// ErrUnknownKey is returned when the file has a key the daemon does not know. The Rust
	// cuzk silently ignores such keys; a typo there means a silent default,
	// so here it is an error.
	ErrUnknownKey = errors.New("unknown config key")
	// ErrInvalidValue is returned when a key has a value outside what it accepts.
	ErrInvalidValue = errors.New("invalid config value")
)

// ParamCacheEnv is the environment variable rust-fil-proofs reads for the
// parameter directory.
const ParamCacheEnv = filecoin.ParameterCacheEnv

// Defaults that other values are checked against.
const (
	// DefaultLoadTimeout is srs.load_timeout's default (srs.DefaultLoadTimeout,
	// which this package cannot import).
	DefaultLoadTimeout = time.Hour
	DefaultListen      = "unix:///run/curio/cuzk.sock"
	// DefaultParamCache is rust-fil-proofs' default, which every cuzk
	// command uses too (filecoin.ParamDir), not the Rust cuzk's
	// /data/zk/params: one binary, one default.
	DefaultParamCache = filecoin.DefaultParameterCacheDir
)

// Config is the daemon configuration, read from TOML. Sections and keys
// follow the Rust cuzk (extern/cuzk/cuzk-core/src/config.rs in Curio) so an
// operator's existing cuzk.toml keeps working; [prover] and [engine] are
// additions of this implementation. Start from Default and override, or use
// Load/Parse, which start from Default.
type Config struct {
	Daemon    Daemon    `toml:"daemon"`
	SRS       SRS       `toml:"srs"`
	Memory    Memory    `toml:"memory"`
	GPUs      GPUs      `toml:"gpus"`
	Scheduler Scheduler `toml:"scheduler"`
	Synthesis Synthesis `toml:"synthesis"`
	Pipeline  Pipeline  `toml:"pipeline"`
	Prover    Prover    `toml:"prover"`
	Engine    Engine    `toml:"engine"`
	Logging   Logging   `toml:"logging"`

	// Set by Parse and ApplyEnv; see Warnings.
	warnings      []string
	paramCacheSet bool // srs.param_cache was written in the file
}

// Daemon is the [daemon] section: where the daemon listens.
type Daemon struct {
	// Listen is the gRPC address: "unix:///path/to.sock" or "host:port".
	Listen string `toml:"listen"`
	// StatusListen is the HTTP address of the status page (/ and
	// /timeline.svg), /status, /metrics and pprof, in the same forms as
	// Listen; empty disables it. A host:port without a
	// host (":9821") means the loopback address (see StatusAddr).
	StatusListen string `toml:"status_listen"`
	// StatusHosts are the names (or addresses), besides loopback ones,
	// that the status listener answers to in a request's Host header:
	// a name a browser resolved elsewhere and then to this machine (DNS
	// rebinding) gets 421 Misdirected Request. Loopback names and
	// addresses, and the address the request arrived at, need no entry.
	StatusHosts []string `toml:"status_hosts"`
	// Pprof serves Go's profiler under /debug/pprof/ on the status
	// listener (behind the token when there is one). Off by default: a
	// profile or trace costs CPU and shows the command line.
	Pprof bool `toml:"pprof"`

	// TokenFile names a file of bearer tokens (the format of
	// internal/tokenfile: one token per line, optionally named). When set,
	// every RPC and every status request, on any listener, must carry one
	// ("authorization: Bearer <token>"). The file is re-read when it
	// changes.
	TokenFile string `toml:"token_file"`
	// TLSCertFile and TLSKeyFile are the daemon's certificate chain and
	// private key (PEM). When set, TCP listeners speak TLS; unix sockets
	// stay plain (their file permissions guard them).
	TLSCertFile string `toml:"tls_cert_file"`
	TLSKeyFile  string `toml:"tls_key_file"`
	// TLSClientCAFile (PEM CA certificates) makes TLS mutual: every TCP
	// caller must present a client certificate issued by one of them.
	TLSClientCAFile string `toml:"tls_client_ca_file"`
	// InsecureTCP allows a TCP listener that authenticates nobody (no
	// token_file and no client certificates). Without it such a
	// configuration is refused by CheckListeners.
	InsecureTCP bool `toml:"insecure_tcp"`
}

// SRS is the [srs] section: where the Groth16 parameters are.
type SRS struct {
	// ParamCache is the directory holding the .params and .vk files
	// (default /var/tmp/filecoin-proof-parameters/). See Config.ApplyEnv
	// for how FIL_PROOFS_PARAMETER_CACHE interacts with it.
	ParamCache string `toml:"param_cache"`
	// Residency is how parameters are held to prove with: "resident"
	// (decoded into memory, counted in the budget), "mapped" (the file is
	// mapped and the prover reads each query's points as it consumes
	// them: page cache the kernel may evict, outside the budget), or
	// "auto" (the default: resident when the decoded set and one
	// partition fit in the budget together, else mapped). A 32 GiB
	// partition's parameters are 47–61 GB decoded. GPU lanes always map
	// (supraseal reads the file into its own pinned copy).
	Residency string `toml:"residency"`
	// LoadTimeout bounds a parameter load (digest check, decode or
	// mapping): a load still running then fails the jobs waiting for it,
	// and the next job loads again. Default 1h; 0: no bound.
	LoadTimeout Duration `toml:"load_timeout"`
}

// Memory is the [memory] section: one budget shared by parameters,
// pre-compiled circuits and the working set of partitions in flight.
type Memory struct {
	// TotalBudget is "auto" (MemTotal - SafetyMargin) or a fixed size.
	TotalBudget Budget `toml:"total_budget"`
	// SafetyMargin is held back for the OS and other processes when
	// TotalBudget is "auto"; it is not used with a fixed budget.
	SafetyMargin ByteSize `toml:"safety_margin"`
	// EvictionMinIdle is how long parameters must sit unused before they
	// may be evicted under memory pressure.
	EvictionMinIdle Duration `toml:"eviction_min_idle"`
	// ReservedLaneBudget is the part of the budget only urgent work
	// (pipeline.reserved_lane) may use: "auto" (1 GiB, at most an eighth
	// of the budget) or a size; 0 reserves nothing. Not in the Rust cuzk.
	ReservedLaneBudget Budget `toml:"reserved_lane_budget"`
}

// GPUs is the [gpus] section: the CUDA devices the daemon proves on (a
// binary built with -tags cuda; see docs/gpu.md). The daemon gives each
// device a prover lane.
type GPUs struct {
	// Devices are the CUDA ordinals to use; empty means every usable
	// device (none in a build without CUDA).
	Devices []uint32 `toml:"devices"`
	// GPUThreads and GPUWorkersPerDevice tune the Rust engine's GPU
	// workers; this engine ignores them (see Warnings).
	GPUThreads          uint32 `toml:"gpu_threads"`
	GPUWorkersPerDevice uint32 `toml:"gpu_workers_per_device"`
	// CPUFallback: when the configured devices cannot be used (none
	// present, no driver, a binary without CUDA), prove on the CPU with a
	// warning (true) or refuse to start (false). Not in the Rust cuzk.
	CPUFallback bool `toml:"cpu_fallback"`
}

// Scheduler is the [scheduler] section.
type Scheduler struct {
	// MaxBatchSize is how many same-circuit PoRep/SnapDeals proofs may be
	// proved together; 0 and 1 both mean no batching. PoSt is never batched.
	MaxBatchSize uint32 `toml:"max_batch_size"`
	// MaxBatchWaitMS is how long, in milliseconds, a partial batch waits
	// for more proofs before it is flushed; 0 flushes at once.
	MaxBatchWaitMS int64 `toml:"max_batch_wait_ms"`
	// SortByType asked the Rust scheduler to group NORMAL jobs by circuit.
	// Neither the Rust engine nor this one reads it (see Warnings).
	SortByType bool `toml:"sort_by_type"`
}

// MaxBatchWait returns MaxBatchWaitMS as a time.Duration.
func (s Scheduler) MaxBatchWait() time.Duration {
	return time.Duration(s.MaxBatchWaitMS) * time.Millisecond
}

// Synthesis is the [synthesis] section.
type Synthesis struct {
	// Threads is the CPU budget of the synthesis stage; 0 means all CPUs.
	Threads uint32 `toml:"threads"`
}

// Pipeline is the [pipeline] section: overlap of synthesis and proving.
type Pipeline struct {
	// Enabled overlaps synthesis of the next partitions with proving of the
	// current one; false runs each proof start to finish.
	Enabled bool `toml:"enabled"`
	// SynthesisLookahead is the minimum number of synthesised partitions
	// that may wait for the prover (the bounded queue between the stages);
	// 0 is treated as 1.
	SynthesisLookahead uint32 `toml:"synthesis_lookahead"`
	// SynthesisConcurrency is how many proofs may be in synthesis at once;
	// 0 is treated as 1.
	SynthesisConcurrency uint32 `toml:"synthesis_concurrency"`
	// MaxParallelSynthesis caps partition syntheses running at once on top
	// of the memory budget; 0 means the default of 18.
	MaxParallelSynthesis uint32 `toml:"max_parallel_synthesis"`
	// SlotSize and MaxGPUQueueDepth tune the Rust engine's GPU dispatcher.
	// This engine ignores them (see Warnings).
	SlotSize         uint32 `toml:"slot_size"`
	MaxGPUQueueDepth uint32 `toml:"max_gpu_queue_depth"`
	// ReservedLane keeps a synthesis worker and a prover lane for urgent
	// work (WinningPoSt), pauses other work while urgent work runs and
	// holds memory.reserved_lane_budget back for it. Not in the Rust cuzk.
	ReservedLane bool `toml:"reserved_lane"`
	// UrgentMaxDomain: HIGH and CRITICAL proofs whose circuit's
	// evaluation domain has at most this many rows are urgent; 0 means the
	// engine's default, 2^20. Not in the Rust cuzk. (The TOML key,
	// urgent_max_constraints, is kept for existing configurations.)
	UrgentMaxDomain uint32 `toml:"urgent_max_constraints"`
}

// Prover is the [prover] section (not in the Rust cuzk): the CPU Groth16
// prover that stands where the Rust engine has its GPU workers.
type Prover struct {
	// Threads is the CPU budget of the prover stage (FFTs and MSMs);
	// 0 means all CPUs.
	Threads uint32 `toml:"threads"`
}

// Engine is the [engine] section (not in the Rust cuzk): job handling.
type Engine struct {
	// SelfCheck verifies every partition proof with the verifying key
	// before the job completes, so a wrong proof fails the job instead of
	// reaching the chain.
	SelfCheck bool `toml:"self_check"`
	// CompletedJobTTL is how long a finished job's result stays available
	// to AwaitProof and to retries with the same request id (0: the
	// engine's default, engine.Config.CompletedTTL).
	CompletedJobTTL Duration `toml:"completed_job_ttl"`
	// CompletedJobMax caps how many finished results are kept; the oldest
	// go first (0: the engine's default).
	CompletedJobMax uint32 `toml:"completed_job_max"`
	// CompletedJobMaxBytes caps the memory the kept results hold (ids,
	// proofs, error messages); the oldest go first (0: the engine's
	// default, engine.DefaultCompletedMaxBytes).
	CompletedJobMaxBytes ByteSize `toml:"completed_job_max_bytes"`
	// OrphanGrace is how long a job whose callers all left (Curio's client
	// gives up on a Prove after its ProveTimeout and retries the task with
	// the same request id) keeps running, and how long its result is kept
	// once it ends, so that the retry attaches to it. 0 cancels such a job
	// at once. Default 1h.
	OrphanGrace Duration `toml:"orphan_grace"`
	// MaxPending caps the jobs planning, queued or running at once; more
	// submissions are refused (RESOURCE_EXHAUSTED) instead of piling up
	// parsed C1s outside the memory budget (0: the engine's default,
	// engine.DefaultMaxPending).
	MaxPending uint32 `toml:"max_pending"`
	// MaxConcurrentPlans bounds how many requests are parsed and checked
	// at once (0: GOMAXPROCS).
	MaxConcurrentPlans uint32 `toml:"max_concurrent_plans"`
	// MaxIntakeBytes caps the bytes of requests waiting to be parsed or
	// being parsed (vanilla proofs of up to 128 MiB each, outside the
	// memory budget); more are refused with RESOURCE_EXHAUSTED, except a
	// request arriving when none is in intake (0: the engine's default,
	// engine.DefaultMaxIntakeBytes).
	MaxIntakeBytes ByteSize `toml:"max_intake_bytes"`
}

// Logging is the [logging] section.
type Logging struct {
	// Level is trace, debug, info, warn or error.
	Level string `toml:"level"`
	// Format is "text" (or "") for human-readable lines, "json" for JSON.
	Format string `toml:"format"`
}

// SlogLevel returns Level as a slog.Level; trace is below debug.
func (l Logging) SlogLevel() (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(l.Level)) {
	case "trace":
		return slog.LevelDebug - 4, nil
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, invalid("logging.level", l.Level, "want trace, debug, info, warn or error (per-module filter directives are not supported)")
}

// Default returns the configuration used for every key a file leaves out.
// The values are the Rust cuzk defaults, plus this engine's own sections.
func Default() Config {
	return Config{
		Daemon: Daemon{Listen: DefaultListen, StatusHosts: []string{}},
		SRS:    SRS{ParamCache: DefaultParamCache, Residency: "auto", LoadTimeout: Duration{DefaultLoadTimeout}},
		Memory: Memory{
			TotalBudget:        AutoBudget,
			SafetyMargin:       5 * GiB,
			EvictionMinIdle:    Duration{5 * time.Minute},
			ReservedLaneBudget: AutoBudget,
		},
		GPUs:      GPUs{Devices: []uint32{}, GPUWorkersPerDevice: 2, CPUFallback: true},
		Scheduler: Scheduler{MaxBatchSize: 1, MaxBatchWaitMS: 10000, SortByType: true},
		Pipeline: Pipeline{
			Enabled:              true,
			SynthesisLookahead:   1,
			SynthesisConcurrency: 1,
			MaxParallelSynthesis: 18,
			ReservedLane:         true,
		},
		// The other [engine] keys stay zero: zero means the engine's own
		// default, stated once in engine.Config. orphan_grace = 0 means
		// no grace, so its default is written out.
		Engine:  Engine{SelfCheck: true, OrphanGrace: Duration{time.Hour}},
		Logging: Logging{Level: "info", Format: "text"},
	}
}

// Load reads and parses the TOML file at path; see Parse. A missing file is
// an error matching fs.ErrNotExist, so the caller decides whether defaults
// will do.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	cfg, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// Parse decodes TOML over Default and validates the result. Unknown keys,
// values of the wrong type and bad values are errors naming the key; keys
// that are accepted but have no effect are reported by Warnings. Parse does
// not read the environment: call ApplyEnv for that.
func Parse(data []byte) (*Config, error) {
	cfg := Default()
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if err := cfg.checkKeys(md); err != nil {
		return nil, err
	}
	cfg.paramCacheSet = md.IsDefined("srs", "param_cache")
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// checkKeys rejects unknown keys and turns inert and deprecated keys into
// warnings.
func (c *Config) checkKeys(md toml.MetaData) error {
	undecoded := map[string]bool{}
	for _, k := range md.Undecoded() {
		undecoded[k.String()] = true
	}
	var errs []error
	reported := map[string]bool{}
	for _, k := range md.Keys() {
		name := k.String()
		// Report an unknown table once, not once per key inside it.
		if slices.ContainsFunc(prefixes(k), func(p string) bool { return reported[p] }) {
			continue
		}
		if dep, ok := deprecatedKeys[name]; ok {
			if got := md.Type(k...); got != dep.tomlType {
				errs = append(errs, fmt.Errorf("%w: %s has TOML type %s, want %s", ErrInvalidValue, name, got, dep.tomlType))
				continue
			}
			c.warnings = append(c.warnings, fmt.Sprintf("%s is deprecated and ignored: %s", name, dep.why))
			continue
		}
		// The TOML decoder also matches keys case-insensitively; the Rust
		// daemon does not, so only exact spellings count as known.
		if undecoded[name] || !knownKeys[name] {
			errs = append(errs, fmt.Errorf("%w %q", ErrUnknownKey, name))
			reported[name] = true
			continue
		}
		if why, ok := inertKeys[name]; ok {
			c.warnings = append(c.warnings, fmt.Sprintf("%s is set but has no effect: %s", name, why))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("config: %w", errors.Join(errs...))
	}
	return nil
}

// prefixes returns the names of the tables enclosing k.
func prefixes(k toml.Key) []string {
	out := make([]string, 0, len(k)-1)
	for i := 1; i < len(k); i++ {
		out = append(out, k[:i].String())
	}
	return out
}

// Warnings lists keys that were accepted but do nothing here (the Rust
// engine's GPU worker tuning, keys the Rust cuzk deprecated) and an
// ignored FIL_PROOFS_PARAMETER_CACHE. The daemon logs each one at start-up.
func (c *Config) Warnings() []string { return slices.Clone(c.warnings) }

// ApplyEnv resolves srs.param_cache by cuzk's one parameter directory rule
// (filecoin.ParamDir), FIL_PROOFS_PARAMETER_CACHE looked up with lookup
// (os.LookupEnv in the daemon): a param_cache written in the file, or
// changed from the default by the caller, wins, and a differing variable
// only adds a warning; else a non-empty variable, else the default
// /var/tmp/filecoin-proof-parameters. The Rust cuzk never reads the
// variable, but its configurations write param_cache, so they keep their
// directory; operators who export it for lotus and curio get theirs.
func (c *Config) ApplyEnv(lookup func(key string) (string, bool)) {
	configured := ""
	if c.paramCacheSet || c.SRS.ParamCache != DefaultParamCache {
		configured = c.SRS.ParamCache
	}
	if v, ok := lookup(ParamCacheEnv); ok && v != "" && configured != "" && v != configured {
		c.warnings = append(c.warnings, fmt.Sprintf("%s=%q is ignored: srs.param_cache = %q is set in the configuration", ParamCacheEnv, v, configured))
	}
	c.SRS.ParamCache = filecoin.ParamDir(configured, lookup)
}

// Validate checks every value for range and form and returns all problems
// at once, each wrapping ErrInvalidValue and naming its key.
func (c *Config) Validate() error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	add(checkAddr("daemon.listen", c.Daemon.Listen, false))
	add(checkAddr("daemon.status_listen", c.Daemon.StatusListen, true))
	add(c.Daemon.checkTLSKeys())
	add(c.Daemon.checkStatusHosts())
	if strings.TrimSpace(c.SRS.ParamCache) == "" {
		add(invalid("srs.param_cache", c.SRS.ParamCache, "must name a directory"))
	}
	switch c.SRS.Residency {
	case "", "auto", "resident", "mapped":
	default:
		add(invalid("srs.residency", c.SRS.Residency, `must be "auto", "resident" or "mapped"`))
	}
	if !c.Memory.TotalBudget.Auto && c.Memory.TotalBudget.Size == 0 {
		add(invalid("memory.total_budget", c.Memory.TotalBudget, "must be \"auto\" or a size above zero"))
	}
	if c.Memory.EvictionMinIdle.Duration < 0 {
		add(invalid("memory.eviction_min_idle", c.Memory.EvictionMinIdle, "must not be negative"))
	}
	seen := map[uint32]bool{}
	for _, d := range c.GPUs.Devices {
		if seen[d] {
			add(invalid("gpus.devices", fmt.Sprint(c.GPUs.Devices), fmt.Sprintf("device %d is listed twice", d)))
		}
		seen[d] = true
	}
	if c.Scheduler.MaxBatchWaitMS < 0 {
		add(invalid("scheduler.max_batch_wait_ms", c.Scheduler.MaxBatchWaitMS, "must not be negative"))
	}
	if c.Engine.CompletedJobTTL.Duration < 0 {
		add(invalid("engine.completed_job_ttl", c.Engine.CompletedJobTTL, "must not be negative (0: the engine's default)"))
	}
	if c.Engine.OrphanGrace.Duration < 0 {
		add(invalid("engine.orphan_grace", c.Engine.OrphanGrace, "must not be negative (0: cancel a job at once when its callers leave)"))
	}
	if _, err := c.Logging.SlogLevel(); err != nil {
		add(err)
	}
	switch c.Logging.Format {
	case "", "text", "json":
	default:
		add(invalid("logging.format", c.Logging.Format, `want "text" (or unset) or "json"`))
	}
	if len(errs) > 0 {
		return fmt.Errorf("config: %w", errors.Join(errs...))
	}
	return nil
}

// ResolveTotalBudget returns the budget in bytes. For "auto" that is
// memTotal() minus SafetyMargin. Where the Rust cuzk falls back to 256 GiB
// when /proc/meminfo cannot be read, and to a zero budget when the margin
// exceeds the memory, both are errors here.
func (m Memory) ResolveTotalBudget(memTotal MemTotalFunc) (ByteSize, error) {
	if !m.TotalBudget.Auto {
		return m.TotalBudget.Size, nil
	}
	total, err := memTotal()
	if err != nil {
		return 0, fmt.Errorf("memory.total_budget = \"auto\": %w", err)
	}
	if uint64(m.SafetyMargin) >= total {
		return 0, fmt.Errorf("%w: memory.total_budget = \"auto\": memory.safety_margin = %s leaves nothing of MemTotal %s",
			ErrInvalidValue, m.SafetyMargin, ByteSize(total))
	}
	return ByteSize(total) - m.SafetyMargin, nil
}

// checkAddr accepts "unix:///abs/path" or "host:port".
func checkAddr(key, addr string, allowEmpty bool) error {
	if addr == "" {
		if allowEmpty {
			return nil
		}
		return invalid(key, addr, `want "unix:///path/to.sock" or "host:port"`)
	}
	if path, ok := strings.CutPrefix(addr, "unix://"); ok {
		if !strings.HasPrefix(path, "/") {
			return invalid(key, addr, `a unix socket needs an absolute path: "unix:///path/to.sock"`)
		}
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return invalid(key, addr, `want "unix:///path/to.sock" or "host:port"`)
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || (n == 0 && port != "0") {
		return invalid(key, addr, "port must be a number from 0 to 65535")
	}
	return nil
}

func invalid(key string, value any, why string) error {
	if s, ok := value.(string); ok {
		return fmt.Errorf("%w: %s = %q: %s", ErrInvalidValue, key, s, why)
	}
	return fmt.Errorf("%w: %s = %v: %s", ErrInvalidValue, key, value, why)
}
