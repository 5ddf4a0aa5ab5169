// Package config is the cuzk daemon's configuration: one TOML file whose
// sections and keys are those of the Rust cuzk daemon
// (Curio extern/cuzk/cuzk-core/src/config.rs, documented by
// extern/cuzk/cuzk.example.toml), so an operator's existing cuzk.toml works
// unchanged, plus [prover] and [engine] for this Go engine.
// cuzk.example.toml in this directory documents every key.
//
// Differences from the Rust parser, all in the direction of saying more:
//   - An unknown key is an error (ErrUnknownKey); Rust ignores it silently.
//   - A bad size or duration is an error naming the key and the value;
//     Rust substitutes a default (50 GiB, 300 s) without a word.
//   - Keys that are accepted but have no effect here (the [gpus] section,
//     GPU dispatch tuning, keys Rust deprecated) are listed by
//     Config.Warnings instead of being dropped silently.
//   - Sizes take any of B, KiB…PiB, kB…PB and fractions ("1.5GiB");
//     durations take Go syntax ("1h30m") as well as Rust's "5m", "300s"
//     and bare seconds.
//   - memory.total_budget = "auto" with no readable /proc/meminfo is an
//     error, where Rust assumes 256 GiB.
//   - FIL_PROOFS_PARAMETER_CACHE supplies srs.param_cache when the file
//     leaves it out (Rust never reads the variable), and the default is
//     rust-fil-proofs' /var/tmp/filecoin-proof-parameters, not
//     /data/zk/params: every cuzk command uses the same rule
//     (filecoin.ParamDir); see Config.ApplyEnv.
//
// Invariants: a *Config returned by Parse or Load has passed Validate.
// Nothing here reads the environment or /proc on its own: ApplyEnv takes a
// lookup function and Memory.ResolveTotalBudget a MemTotalFunc.
package config
