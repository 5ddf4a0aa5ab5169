package config

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// TestExampleFile: cuzk.example.toml parses to exactly the defaults without
// warnings, and with its switched-off lines ("#key = value") switched on it
// still parses and then mentions every key, so the file documents them all.
func TestExampleFile(t *testing.T) {
	data, err := os.ReadFile("cuzk.example.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := mustParse(t, string(data))
	if !reflect.DeepEqual(values(*cfg), Default()) {
		t.Errorf("example file values differ from Default():\n%+v\n%+v", values(*cfg), Default())
	}
	if w := cfg.Warnings(); len(w) != 0 {
		t.Errorf("example file warnings: %q", w)
	}

	// Switch on the commented-out keys (no space after '#').
	on := regexp.MustCompile(`(?m)^#([a-z_]+ = )`).ReplaceAllString(string(data), "$1")
	full := mustParse(t, on)
	var probe Config
	md, err := toml.Decode(on, &probe)
	if err != nil {
		t.Fatal(err)
	}
	mentioned := map[string]bool{}
	for _, k := range md.Keys() {
		mentioned[k.String()] = true
	}
	for k := range knownKeys {
		if !mentioned[k] {
			t.Errorf("cuzk.example.toml does not document %s", k)
		}
	}
	for k := range deprecatedKeys {
		if !mentioned[k] {
			t.Errorf("cuzk.example.toml does not document deprecated %s", k)
		}
	}
	// Exactly the inert and deprecated keys are commented out.
	if got, want := len(full.Warnings()), len(inertKeys)+len(deprecatedKeys); got != want {
		t.Errorf("switched-on example has %d warnings, want %d: %q", got, want, full.Warnings())
	}
}

// rustExample holds the values of Curio's extern/cuzk/cuzk.example.toml
// (curio e0294b0), with its comments left out. Operators reuse that file,
// so it must parse here.
const rustExample = `
[daemon]
listen = "0.0.0.0:9820"
# status_listen = "0.0.0.0:9821"

[srs]
param_cache = "/data/zk/params"

[memory]
total_budget = "auto"
safety_margin = "5GiB"
eviction_min_idle = "5m"

[gpus]
devices = []
gpu_threads = 32
gpu_workers_per_device = 2

[scheduler]
max_batch_size = 1
max_batch_wait_ms = 10000
sort_by_type = true

[synthesis]
threads = 0

[pipeline]
enabled = true
synthesis_lookahead = 1
synthesis_concurrency = 1

[logging]
level = "info"
# format = "json"
`

func TestRustExampleConfig(t *testing.T) {
	cfg := mustParse(t, rustExample)
	want := Default()
	want.Daemon.Listen = "0.0.0.0:9820"
	want.SRS.ParamCache = "/data/zk/params" // written, so it wins over the default
	want.GPUs = GPUs{Devices: []uint32{}, GPUThreads: 32, GPUWorkersPerDevice: 2, CPUFallback: true}
	if got := values(*cfg); !reflect.DeepEqual(got, want) {
		t.Errorf("Rust example parsed to\n%+v\nwant\n%+v", got, want)
	}
	var keys []string
	for _, w := range cfg.Warnings() {
		key, _, _ := strings.Cut(w, " ")
		keys = append(keys, key)
	}
	slices.Sort(keys)
	wantKeys := []string{"gpus.gpu_threads", "gpus.gpu_workers_per_device", "scheduler.sort_by_type"}
	if !slices.Equal(keys, wantKeys) {
		t.Errorf("warnings for %q, want %q", keys, wantKeys)
	}
}

// TestRustConfigTests replays the TOML of the tests in Curio's
// cuzk-core/src/config.rs.
func TestRustConfigTests(t *testing.T) {
	// test_parse_toml
	cfg := mustParse(t, `
[daemon]
listen = "0.0.0.0:9820"

[srs]
param_cache = "/data/zk/params"

[memory]
total_budget = "256GiB"
safety_margin = "8GiB"
eviction_min_idle = "10m"

[scheduler]
max_batch_size = 1
sort_by_type = true
`)
	if cfg.Daemon.Listen != "0.0.0.0:9820" {
		t.Errorf("listen = %q", cfg.Daemon.Listen)
	}
	if b, err := cfg.Memory.ResolveTotalBudget(nil); err != nil || b != 256*GiB {
		t.Errorf("total budget = %v, %v; want 256GiB", b, err)
	}
	if cfg.Memory.SafetyMargin != 8*GiB || cfg.Memory.EvictionMinIdle.Seconds() != 600 {
		t.Errorf("memory = %+v", cfg.Memory)
	}

	// test_backward_compat_deprecated_fields
	cfg = mustParse(t, `
[srs]
param_cache = "/data/zk/params"
preload = ["porep-32g"]

[memory]
pinned_budget = "50GiB"
working_memory_budget = "80GiB"

[synthesis]
threads = 0
partition_workers = 12
`)
	if cfg.SRS.ParamCache != "/data/zk/params" || cfg.Memory.TotalBudget != AutoBudget {
		t.Errorf("deprecated fields changed settings: %+v", values(*cfg))
	}
	if n := len(cfg.Warnings()); n != 4 {
		t.Errorf("%d warnings, want 4 (one per deprecated key): %q", n, cfg.Warnings())
	}
}
