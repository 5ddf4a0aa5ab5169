// Package bench holds the daemon harnesses behind `cuzk bench`: proofs
// through a running daemon one at a time or in batches (Prove, RunBatch)
// with their summaries, open-loop stress runs (Stress), readers of the
// daemon's /status (decoded into server/statusdoc's document) and metrics.
// The pipeline timeline drawn from the stage records /status lists is
// server/statusdoc/timeline's, which the daemon's status page shares.
//
// It talks to a daemon only: it imports the client, the wire types and the
// status document, nothing of the daemon itself (a test keeps it so).
// Building requests from sealed sectors and verifying proofs is cmd/cuzk's;
// the synthesis microbenchmark (`cuzk bench synth`) is package
// synthbench, which measures every kind's circuits.
//
// It mirrors the Rust cuzk-bench (Curio extern/cuzk/cuzk-bench/src/
// main.rs): the same proof types and request fields, per-proof lines and a
// batch summary with throughput. It adds percentiles, daemon-side
// throughput, stress runs and timelines.
//
// Invariants the tools rely on:
//
//   - Distributions (Dist) use nearest-rank percentiles, so every figure
//     but the mean is one of the observed values and a summary can be
//     checked against the lines it came from. They cover completed proofs
//     only.
//   - Daemon durations are whole milliseconds, as the wire carries them.
//   - A stress run accounts for every job it submits: each ends completed,
//     failed, cancelled (by the daemon, or by the run when its drain time
//     is up), rejected (no job was created), or lost (its final state could
//     not be learnt, even after cancelling it). Lost must be zero.
//   - Arrival schedules are fixed before a stress run starts (open loop):
//     a slow daemon does not slow the arrivals.
//   - Request ids are <run id>-<n>, with a random run id, so runs never
//     attach to each other's jobs (the daemon deduplicates by request id).
package bench
