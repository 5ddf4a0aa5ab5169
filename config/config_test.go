package config

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// values drops what Parse records besides the values, so two configs can be
// compared with reflect.DeepEqual.
func values(c Config) Config {
	c.warnings = nil
	c.paramCacheSet = false
	return c
}

func mustParse(t *testing.T, src string) *Config {
	t.Helper()
	cfg, err := Parse([]byte(src))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, src)
	}
	return cfg
}

// TestDefaults pins the Rust cuzk defaults (cuzk-core/src/config.rs) and our own.
func TestDefaults(t *testing.T) {
	d := Default()
	checks := []struct {
		key       string
		got, want any
	}{
		{"daemon.listen", d.Daemon.Listen, "unix:///run/curio/cuzk.sock"},
		{"daemon.status_listen", d.Daemon.StatusListen, ""},
		{"daemon.token_file", d.Daemon.TokenFile, ""},
		{"daemon.tls_cert_file", d.Daemon.TLSCertFile, ""},
		{"daemon.tls_key_file", d.Daemon.TLSKeyFile, ""},
		{"daemon.tls_client_ca_file", d.Daemon.TLSClientCAFile, ""},
		{"daemon.insecure_tcp", d.Daemon.InsecureTCP, false},
		{"srs.param_cache", d.SRS.ParamCache, "/var/tmp/filecoin-proof-parameters/"},
		{"srs.residency", d.SRS.Residency, "auto"},
		{"memory.total_budget", d.Memory.TotalBudget, AutoBudget},
		{"memory.safety_margin", d.Memory.SafetyMargin, 5 * GiB},
		{"memory.eviction_min_idle", d.Memory.EvictionMinIdle.Duration, 5 * time.Minute},
		{"gpus.devices", len(d.GPUs.Devices), 0},
		{"gpus.gpu_threads", d.GPUs.GPUThreads, uint32(0)},
		{"gpus.gpu_workers_per_device", d.GPUs.GPUWorkersPerDevice, uint32(2)},
		{"gpus.cpu_fallback", d.GPUs.CPUFallback, true},
		{"memory.reserved_lane_budget", d.Memory.ReservedLaneBudget, AutoBudget},
		{"pipeline.reserved_lane", d.Pipeline.ReservedLane, true},
		{"pipeline.urgent_max_constraints", d.Pipeline.UrgentMaxDomain, uint32(0)},
		{"scheduler.max_batch_size", d.Scheduler.MaxBatchSize, uint32(1)},
		{"scheduler.max_batch_wait_ms", d.Scheduler.MaxBatchWaitMS, int64(10000)},
		{"scheduler.sort_by_type", d.Scheduler.SortByType, true},
		{"synthesis.threads", d.Synthesis.Threads, uint32(0)},
		{"pipeline.enabled", d.Pipeline.Enabled, true},
		{"pipeline.synthesis_lookahead", d.Pipeline.SynthesisLookahead, uint32(1)},
		{"pipeline.synthesis_concurrency", d.Pipeline.SynthesisConcurrency, uint32(1)},
		{"pipeline.max_parallel_synthesis", d.Pipeline.MaxParallelSynthesis, uint32(18)},
		{"pipeline.slot_size", d.Pipeline.SlotSize, uint32(0)},
		{"pipeline.max_gpu_queue_depth", d.Pipeline.MaxGPUQueueDepth, uint32(0)},
		{"prover.threads", d.Prover.Threads, uint32(0)},
		{"engine.self_check", d.Engine.SelfCheck, true},
		// Written out: 0 means no grace, not the default.
		{"engine.orphan_grace", d.Engine.OrphanGrace.Duration, time.Hour},
		// Zero: the engine's default (stated once, in engine.Config).
		{"engine.completed_job_ttl", d.Engine.CompletedJobTTL.Duration, time.Duration(0)},
		{"engine.completed_job_max", d.Engine.CompletedJobMax, uint32(0)},
		{"engine.completed_job_max_bytes", d.Engine.CompletedJobMaxBytes, ByteSize(0)},
		{"engine.max_pending", d.Engine.MaxPending, uint32(0)},
		{"engine.max_concurrent_plans", d.Engine.MaxConcurrentPlans, uint32(0)},
		{"engine.max_intake_bytes", d.Engine.MaxIntakeBytes, ByteSize(0)},
		{"daemon.status_hosts", d.Daemon.StatusHosts, []string{}},
		{"daemon.pprof", d.Daemon.Pprof, false},
		{"srs.load_timeout", d.SRS.LoadTimeout.Duration, time.Hour},
		{"logging.level", d.Logging.Level, "info"},
		{"logging.format", d.Logging.Format, "text"},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("default %s = %v, want %v", c.key, c.got, c.want)
		}
	}
	// Every key is pinned above (sections are not keys).
	nKeys := 0
	for k := range knownKeys {
		if strings.Contains(k, ".") {
			nKeys++
		}
	}
	if nKeys != len(checks) {
		t.Errorf("%d keys known, %d defaults pinned", nKeys, len(checks))
	}
	if err := d.Validate(); err != nil {
		t.Errorf("Default().Validate(): %v", err)
	}
	if d.Scheduler.MaxBatchWait() != 10*time.Second {
		t.Errorf("MaxBatchWait() = %v", d.Scheduler.MaxBatchWait())
	}

	empty := mustParse(t, "")
	if !reflect.DeepEqual(values(*empty), Default()) {
		t.Errorf("Parse(\"\") = %+v, want Default()", *empty)
	}
	if w := empty.Warnings(); len(w) != 0 {
		t.Errorf("Parse(\"\") warnings: %q", w)
	}
}

func TestParseValues(t *testing.T) {
	cfg := mustParse(t, `
[daemon]
listen = "0.0.0.0:9820"
status_listen = "127.0.0.1:9821"

[srs]
param_cache = "/var/tmp/filecoin-proof-parameters"

[memory]
total_budget = 274877906944  # bare integer: bytes
safety_margin = "1.5GiB"
eviction_min_idle = 600      # bare integer: seconds

[scheduler]
max_batch_size = 3
max_batch_wait_ms = 0
sort_by_type = false

[synthesis]
threads = 48

[pipeline]
enabled = false
synthesis_lookahead = 2
synthesis_concurrency = 2
max_parallel_synthesis = 0

[prover]
threads = 32

[engine]
self_check = false
completed_job_ttl = "30m"
completed_job_max = 10
completed_job_max_bytes = "1MiB"
orphan_grace = "0"

[logging]
level = "debug"
format = "json"
`)
	want := Default()
	want.Daemon = Daemon{Listen: "0.0.0.0:9820", StatusListen: "127.0.0.1:9821", StatusHosts: []string{}}
	want.SRS.ParamCache = "/var/tmp/filecoin-proof-parameters"
	want.Memory = Memory{TotalBudget: FixedBudget(256 * GiB), SafetyMargin: 1536 * MiB, EvictionMinIdle: Seconds(600), ReservedLaneBudget: AutoBudget}
	want.Scheduler = Scheduler{MaxBatchSize: 3, MaxBatchWaitMS: 0, SortByType: false}
	want.Synthesis.Threads = 48
	want.Pipeline = Pipeline{SynthesisLookahead: 2, SynthesisConcurrency: 2, MaxParallelSynthesis: 0, ReservedLane: true}
	want.Prover.Threads = 32
	want.Engine = Engine{SelfCheck: false, CompletedJobTTL: Duration{30 * time.Minute}, CompletedJobMax: 10, CompletedJobMaxBytes: MiB}
	want.Logging = Logging{Level: "debug", Format: "json"}
	if got := values(*cfg); !reflect.DeepEqual(got, want) {
		t.Errorf("parsed\n%+v\nwant\n%+v", got, want)
	}
	// sort_by_type is accepted but inert, so setting it warns.
	if w := cfg.Warnings(); len(w) != 1 || !strings.HasPrefix(w[0], "scheduler.sort_by_type ") {
		t.Errorf("warnings = %q, want one for scheduler.sort_by_type", w)
	}
}

// TestBadValues: a value the key cannot take is an error that names the key
// and the value; nothing falls back to a default.
func TestBadValues(t *testing.T) {
	for _, tc := range []struct {
		src       string
		key, val  string
		sentinel  error // nil: a decode error from the TOML layer
		wantInMsg string
	}{
		{"[memory]\ntotal_budget = \"12XB\"", "memory.total_budget", `"12XB"`, nil, "unknown unit"},
		{"[memory]\ntotal_budget = \"1.5\"", "memory.total_budget", `"1.5"`, nil, "whole number"},
		{"[memory]\ntotal_budget = 1.5", "memory.total_budget", `1.5`, nil, "whole number"},
		{"[memory]\ntotal_budget = \"0\"", "memory.total_budget", `0B`, ErrInvalidValue, "above zero"},
		{"[memory]\nsafety_margin = \"-5GiB\"", "memory.safety_margin", `"-5GiB"`, nil, "non-negative"},
		{"[memory]\nsafety_margin = -1", "memory.safety_margin", `"-1"`, nil, "non-negative"},
		{"[memory]\neviction_min_idle = \"5 minutes\"", "memory.eviction_min_idle", `"5 minutes"`, nil, "duration"},
		{"[memory]\neviction_min_idle = \"-5m\"", "memory.eviction_min_idle", `"-5m"`, nil, "negative"},
		{"[memory]\neviction_min_idle = -300", "memory.eviction_min_idle", `"-300"`, nil, "duration"},
		{"[daemon]\nlisten = \"\"", "daemon.listen", `""`, ErrInvalidValue, "host:port"},
		{"[daemon]\nlisten = \"nope\"", "daemon.listen", `"nope"`, ErrInvalidValue, "host:port"},
		{"[daemon]\nlisten = \"unix://run/cuzk.sock\"", "daemon.listen", `"unix://run/cuzk.sock"`, ErrInvalidValue, "absolute path"},
		{"[daemon]\nlisten = \"0.0.0.0:98200\"", "daemon.listen", `"0.0.0.0:98200"`, ErrInvalidValue, "port"},
		{"[daemon]\nstatus_listen = \"localhost:http\"", "daemon.status_listen", `"localhost:http"`, ErrInvalidValue, "port"},
		{"[srs]\nparam_cache = \"\"", "srs.param_cache", `""`, ErrInvalidValue, "directory"},
		{"[scheduler]\nmax_batch_wait_ms = -1", "scheduler.max_batch_wait_ms", `-1`, ErrInvalidValue, "negative"},
		{"[synthesis]\nthreads = -1", "synthesis.threads", `-1`, nil, "range"},
		{"[pipeline]\nsynthesis_lookahead = 4294967296", "pipeline.synthesis_lookahead", `4294967296`, nil, "range"},
		{"[logging]\nlevel = \"verbose\"", "logging.level", `"verbose"`, ErrInvalidValue, "trace, debug"},
		{"[logging]\nlevel = \"info,cuzk_core=debug\"", "logging.level", `"info,cuzk_core=debug"`, ErrInvalidValue, "directives"},
		{"[logging]\nformat = \"xml\"", "logging.format", `"xml"`, ErrInvalidValue, "json"},
		{"[gpus]\ndevices = [0, 1, 0]", "gpus.devices", `[0 1 0]`, ErrInvalidValue, "listed twice"},
		{"[memory]\nreserved_lane_budget = \"lots\"", "memory.reserved_lane_budget", `"lots"`, nil, "auto"},
	} {
		_, err := Parse([]byte(tc.src))
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want error", tc.src)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.key) || !strings.Contains(msg, tc.val) || !strings.Contains(msg, tc.wantInMsg) {
			t.Errorf("Parse(%q) error %q\nwant it to contain %s, %s and %q", tc.src, msg, tc.key, tc.val, tc.wantInMsg)
		}
		if tc.sentinel != nil && !errors.Is(err, tc.sentinel) {
			t.Errorf("Parse(%q) error %q does not match %v", tc.src, msg, tc.sentinel)
		}
	}
}

// Validate reports every problem, not just the first.
func TestValidateAll(t *testing.T) {
	c := Default()
	c.Daemon.Listen = ""
	c.Engine.CompletedJobTTL = Duration{-time.Second}
	c.Logging.Level = "loud"
	err := c.Validate()
	for _, key := range []string{"daemon.listen", "engine.completed_job_ttl", "logging.level"} {
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("Validate() = %v, want it to name %s", err, key)
		}
	}
	for _, addr := range []string{"unix:///run/curio/cuzk.sock", "0.0.0.0:9820", "[::1]:9820", "localhost:0", ":9820"} {
		c := Default()
		c.Daemon.Listen = addr
		c.Daemon.StatusListen = addr
		if err := c.Validate(); err != nil {
			t.Errorf("listen %q: %v", addr, err)
		}
	}
}

func TestWrongType(t *testing.T) {
	for _, tc := range []struct{ src, key string }{
		{"[scheduler]\nmax_batch_size = \"4\"", "scheduler.max_batch_size"},
		{"[daemon]\nlisten = 9820", "daemon.listen"},
		{"[pipeline]\nenabled = \"yes\"", "pipeline.enabled"},
		{"[gpus]\ndevices = 0", "gpus.devices"},
		{"[gpus]\ndevices = [\"0\"]", "gpus.devices"},
		{"[memory]\ntotal_budget = true", "memory.total_budget"},
		{"[memory]\neviction_min_idle = [5]", "memory.eviction_min_idle"},
		{"daemon = 1", "daemon"},
		{"[srs]\npreload = \"porep-32g\"", "srs.preload"},
		{"[memory]\npinned_budget = 50", "memory.pinned_budget"},
		{"[synthesis]\npartition_workers = \"12\"", "synthesis.partition_workers"},
	} {
		_, err := Parse([]byte(tc.src))
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want a type error", tc.src)
			continue
		}
		if !strings.Contains(err.Error(), tc.key) {
			t.Errorf("Parse(%q) error %q does not name %s", tc.src, err, tc.key)
		}
	}
}

func TestSyntaxError(t *testing.T) {
	_, err := Parse([]byte("[daemon\nlisten = 1"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("Parse(bad TOML) = %v, want an error with the line", err)
	}
}

func TestUnknownKeys(t *testing.T) {
	for _, tc := range []struct {
		src      string
		want     []string // quoted in the error
		dontWant []string
	}{
		{"[daemon]\nlisten_addr = \"0.0.0.0:9820\"", []string{`"daemon.listen_addr"`}, nil},
		{"[daemon]\nListen = \"0.0.0.0:9820\"", []string{`"daemon.Listen"`}, nil},
		{"[Daemon]\nlisten = \"0.0.0.0:9820\"", []string{`"Daemon"`}, []string{`"Daemon.listen"`}},
		{"[gpu]\ndevices = [0]\ngpu_threads = 1", []string{`"gpu"`}, []string{`"gpu.devices"`, `"gpu.gpu_threads"`}},
		{"threads = 4", []string{`"threads"`}, nil},
		{"[daemon.tls]\ncert = \"x\"", []string{`"daemon.tls"`}, []string{`"daemon.tls.cert"`}},
		{"[memory]\ntotal_bugdet = \"auto\"\n[pipeline]\nlookahead = 2",
			[]string{`"memory.total_bugdet"`, `"pipeline.lookahead"`}, nil},
	} {
		_, err := Parse([]byte(tc.src))
		if !errors.Is(err, ErrUnknownKey) {
			t.Errorf("Parse(%q) = %v, want ErrUnknownKey", tc.src, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Parse(%q) error %q does not name %s", tc.src, err, w)
			}
		}
		for _, w := range tc.dontWant {
			if strings.Contains(err.Error(), w) {
				t.Errorf("Parse(%q) error %q repeats %s inside an unknown table", tc.src, err, w)
			}
		}
	}
}

func TestWarnings(t *testing.T) {
	cfg := mustParse(t, `
[srs]
preload = ["porep-32g"]
[memory]
pinned_budget = "50GiB"
working_memory_budget = "80GiB"
[gpus]
devices = [0, 1]
gpu_threads = 32
gpu_workers_per_device = 2
[synthesis]
partition_workers = 12
[pipeline]
slot_size = 3
max_gpu_queue_depth = 8
`)
	w := cfg.Warnings()
	for _, key := range []string{
		"srs.preload", "memory.pinned_budget", "memory.working_memory_budget",
		"gpus.gpu_threads", "gpus.gpu_workers_per_device",
		"synthesis.partition_workers", "pipeline.slot_size", "pipeline.max_gpu_queue_depth",
	} {
		if !slices.ContainsFunc(w, func(s string) bool { return strings.HasPrefix(s, key+" ") }) {
			t.Errorf("no warning for %s in %q", key, w)
		}
	}
	// gpus.devices is honoured (the daemon reports a build or machine
	// without the devices itself).
	if len(w) != 8 || slices.ContainsFunc(w, func(s string) bool { return strings.HasPrefix(s, "gpus.devices ") }) {
		t.Errorf("%d warnings, want 8 and none for gpus.devices: %q", len(w), w)
	}
	// The slice is a copy.
	w[0] = "changed"
	if cfg.Warnings()[0] == "changed" {
		t.Error("Warnings returned the internal slice")
	}
	// Deprecated keys leave the real settings alone.
	if cfg.Memory.TotalBudget != AutoBudget {
		t.Errorf("total_budget = %v after deprecated keys", cfg.Memory.TotalBudget)
	}
}

func TestApplyEnv(t *testing.T) {
	env := func(vals map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := vals[k]; return v, ok }
	}
	const envDir = "/srv/params"
	for _, tc := range []struct {
		name     string
		file     string
		env      map[string]string
		want     string
		warnings int
	}{
		{"file silent, env set", "", map[string]string{ParamCacheEnv: envDir}, envDir, 0},
		{"file silent, env unset", "", nil, DefaultParamCache, 0},
		{"file silent, env empty", "", map[string]string{ParamCacheEnv: ""}, DefaultParamCache, 0},
		{"file sets, env differs", "[srs]\nparam_cache = \"/data/p\"", map[string]string{ParamCacheEnv: envDir}, "/data/p", 1},
		{"file sets the default, env differs", "[srs]\nparam_cache = \"/var/tmp/filecoin-proof-parameters/\"", map[string]string{ParamCacheEnv: envDir}, DefaultParamCache, 1},
		{"file sets the Rust cuzk's default, env differs", "[srs]\nparam_cache = \"/data/zk/params\"", map[string]string{ParamCacheEnv: envDir}, "/data/zk/params", 1},
		{"file sets, env agrees", "[srs]\nparam_cache = \"/srv/params\"", map[string]string{ParamCacheEnv: envDir}, envDir, 0},
		{"other variables ignored", "", map[string]string{"FIL_PROOFS_PARAMETER_CACHE_X": envDir}, DefaultParamCache, 0},
	} {
		cfg := mustParse(t, tc.file)
		cfg.ApplyEnv(env(tc.env))
		if cfg.SRS.ParamCache != tc.want {
			t.Errorf("%s: param_cache = %q, want %q", tc.name, cfg.SRS.ParamCache, tc.want)
		}
		if w := cfg.Warnings(); len(w) != tc.warnings {
			t.Errorf("%s: warnings %q, want %d", tc.name, w, tc.warnings)
		} else if tc.warnings == 1 && !strings.Contains(w[0], ParamCacheEnv) {
			t.Errorf("%s: warning %q does not name %s", tc.name, w[0], ParamCacheEnv)
		}
	}

	// A caller that set param_cache itself (a command-line flag) keeps it.
	cfg := Default()
	cfg.SRS.ParamCache = "/flag/dir"
	cfg.ApplyEnv(env(map[string]string{ParamCacheEnv: envDir}))
	if cfg.SRS.ParamCache != "/flag/dir" {
		t.Errorf("programmatic param_cache overridden by env: %q", cfg.SRS.ParamCache)
	}
}

func TestResolveTotalBudget(t *testing.T) {
	memTotal := func(n uint64, err error) MemTotalFunc {
		return func() (uint64, error) { return n, err }
	}
	auto := Default().Memory
	got, err := auto.ResolveTotalBudget(memTotal(uint64(64*GiB), nil))
	if err != nil || got != 59*GiB {
		t.Errorf("auto on 64 GiB = %v, %v; want 59GiB", got, err)
	}

	errRead := errors.New("no procfs")
	if _, err := auto.ResolveTotalBudget(memTotal(0, errRead)); !errors.Is(err, errRead) ||
		!strings.Contains(err.Error(), "memory.total_budget") {
		t.Errorf("auto with unreadable meminfo: %v", err)
	}
	if _, err := auto.ResolveTotalBudget(memTotal(uint64(4*GiB), nil)); !errors.Is(err, ErrInvalidValue) ||
		!strings.Contains(err.Error(), "safety_margin") {
		t.Errorf("auto with margin above MemTotal: %v", err)
	}

	fixed := auto
	fixed.TotalBudget = FixedBudget(256 * GiB)
	called := false
	got, err = fixed.ResolveTotalBudget(func() (uint64, error) { called = true; return 0, nil })
	if err != nil || got != 256*GiB || called {
		t.Errorf("fixed budget = %v, %v (meminfo read: %v)", got, err, called)
	}
}

func TestParseMemInfo(t *testing.T) {
	const sample = `MemTotal:       263041396 kB
MemFree:        1234 kB
MemAvailable:   5678 kB
`
	got, err := ParseMemInfo(strings.NewReader(sample))
	if err != nil || got != 263041396*1024 {
		t.Errorf("ParseMemInfo = %d, %v", got, err)
	}
	for _, bad := range []string{
		"MemFree: 1 kB\n",
		"",
		"MemTotal: 263041396\n",
		"MemTotal: lots kB\n",
		"MemTotal: 0 kB\n",
	} {
		if n, err := ParseMemInfo(strings.NewReader(bad)); !errors.Is(err, ErrNoMemTotal) {
			t.Errorf("ParseMemInfo(%q) = %d, %v; want ErrNoMemTotal", bad, n, err)
		}
	}
	if _, err := os.Stat("/proc/meminfo"); err != nil {
		t.Skip("no /proc/meminfo")
	}
	n, err := ReadMemTotal()
	if err != nil || n < 64<<20 {
		t.Errorf("ReadMemTotal() = %d, %v", n, err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cuzk.toml")
	if err := os.WriteFile(path, []byte("[daemon]\nlisten = \"127.0.0.1:9820\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path)
	if err != nil || cfg.Daemon.Listen != "127.0.0.1:9820" {
		t.Fatalf("Load = %+v, %v", cfg, err)
	}

	_, err = Load(filepath.Join(dir, "missing.toml"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load(missing) = %v, want fs.ErrNotExist", err)
	}

	if err := os.WriteFile(path, []byte("[daemon]\nlisen = \"x\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(path)
	if !errors.Is(err, ErrUnknownKey) || !strings.Contains(err.Error(), path) {
		t.Errorf("Load(bad) = %v, want ErrUnknownKey naming the file", err)
	}
}

// TestEncodeRoundTrip: a config written by the TOML encoder (through the
// MarshalText methods) parses back to the same values.
func TestEncodeRoundTrip(t *testing.T) {
	c := Default()
	c.Daemon.StatusListen = "0.0.0.0:9821"
	c.Memory.TotalBudget = FixedBudget(1536 * GiB)
	c.Memory.SafetyMargin = 100 * GB
	c.Memory.EvictionMinIdle = Duration{90 * time.Second}
	c.Engine.CompletedJobTTL = Duration{36 * time.Hour}
	c.Scheduler.MaxBatchWaitMS = 30000
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(c); err != nil {
		t.Fatal(err)
	}
	back := mustParse(t, buf.String())
	if !reflect.DeepEqual(values(*back), c) {
		t.Errorf("round trip changed the config\nencoded:\n%s\ngot %+v", buf.String(), values(*back))
	}
}

// TestStatusHostsPprofLoadTimeout: the keys of issue 34 items 4 and 7
// parse, status_hosts takes host names and addresses without a port, and
// load_timeout = 0 means no bound.
func TestStatusHostsPprofLoadTimeout(t *testing.T) {
	cfg := mustParse(t, `
[daemon]
status_hosts = ["Cuzk-1.Example.NET.", "10.0.0.5", "[fd00::5]", "fd00::6"]
pprof = true
[srs]
load_timeout = "30m"
`)
	if !cfg.Daemon.Pprof || cfg.SRS.LoadTimeout.Duration != 30*time.Minute || len(cfg.Daemon.StatusHosts) != 4 {
		t.Fatalf("parsed %+v %+v", cfg.Daemon, cfg.SRS)
	}
	for h, want := range map[string]string{"Cuzk-1.Example.NET.": "cuzk-1.example.net", "10.0.0.5": "10.0.0.5", "[fd00::5]": "fd00::5", "fd00::6": "fd00::6"} {
		if got, err := NormalizeHost(h); err != nil || got != want {
			t.Errorf("NormalizeHost(%q) = %q, %v; want %q", h, got, err, want)
		}
	}
	if cfg := mustParse(t, "[srs]\nload_timeout = 0\n"); cfg.SRS.LoadTimeout.Duration != 0 {
		t.Errorf("load_timeout = 0: %v", cfg.SRS.LoadTimeout)
	}
	for _, bad := range []string{"cuzk-1:9821", "http://cuzk-1", "", "a b", "[fd00::5]:9821", "x/y", "a..b"} {
		_, err := Parse([]byte("[daemon]\nstatus_hosts = [" + strconv.Quote(bad) + "]\n"))
		if !errors.Is(err, ErrInvalidValue) || !strings.Contains(err.Error(), "daemon.status_hosts") {
			t.Errorf("status_hosts = [%q]: %v, want ErrInvalidValue naming the key", bad, err)
		}
	}
}
