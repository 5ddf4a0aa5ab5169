package config

import (
	"reflect"
	"strings"
)

// knownKeys holds every section ("daemon") and key ("daemon.listen") that
// Config decodes, spelled exactly as in the file. It is built once from the
// struct tags, so adding a field is enough to make its key known.
var knownKeys = func() map[string]bool {
	keys := map[string]bool{}
	cfg := reflect.TypeFor[Config]()
	for i := range cfg.NumField() {
		sec := cfg.Field(i)
		secName := tomlName(sec)
		if secName == "" {
			continue
		}
		keys[secName] = true
		for j := range sec.Type.NumField() {
			if key := tomlName(sec.Type.Field(j)); key != "" {
				keys[secName+"."+key] = true
			}
		}
	}
	return keys
}()

func tomlName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	return name
}

// inertKeys are keys the Rust cuzk uses that this engine accepts and
// ignores, with the reason given in the warning. When the engine starts to
// honour one of them, delete its row here.
var inertKeys = map[string]string{
	"gpus.gpu_threads":             "the CUDA backend's CPU-side work (b_g2) runs on supraseal's own thread pool, which this engine does not size; the CPU prover's budget is [prover] threads",
	"gpus.gpu_workers_per_device":  "each device gets one prover lane: supraseal holds a process-wide lock for the whole of each proof call, so a second worker per device would only queue",
	"pipeline.slot_size":           "it tunes the Rust engine's GPU partition queue; here [pipeline] synthesis_lookahead bounds the queue between synthesis and prover",
	"pipeline.max_gpu_queue_depth": "it tunes the Rust engine's GPU dispatch pacer, which this engine does not have",
	"scheduler.sort_by_type":       "the Rust engine never read it either; jobs run by priority, then arrival, with batches formed per circuit",
}

// deprecatedKeys are keys the Rust cuzk still parses (with the TOML type it
// requires) but ignores.
var deprecatedKeys = map[string]struct{ tomlType, why string }{
	"srs.preload":                  {"Array", "parameters are loaded when the first proof needs them (or by PreloadSRS)"},
	"memory.pinned_budget":         {"String", "memory.total_budget is the single budget"},
	"memory.working_memory_budget": {"String", "memory.total_budget is the single budget"},
	"synthesis.partition_workers":  {"Integer", "partition concurrency follows the memory budget"},
}
