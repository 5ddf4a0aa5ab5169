// Package srs manages Groth16 parameter sets (the "structured reference
// string") for the daemon: it finds the files of a circuit, reads their
// sizes without loading them, loads them on first use, keeps them resident
// while jobs use them and evicts idle ones when memory runs short.
//
// It replaces the Rust cuzk's SrsManager (Curio
// extern/cuzk/cuzk-core/src/srs_manager.rs and the eviction design of
// cuzk-memory-manager.md). Differences: Evict and Preload work; loads and
// evictions go through the shared memory budget; a request that needs both
// parameters and working memory reserves both at once, so no caller ever
// waits for memory while holding some (the hold-and-wait that can deadlock
// two jobs of different circuits).
//
// # Tiers
//
//   - hot: decoded in memory, ready to prove with; its bytes are reserved in
//     the budget.
//   - warm: loaded before and evicted since; the file is likely still in
//     the page cache, but proving needs a new decode.
//   - cold: known (its files exist) but never loaded by this process.
//
// # Invariants
//
//   - An entry is evicted only when no Lease holds it (ref count 0), and by
//     the budget's evictor only after it has been idle for MinIdle, and
//     never for a caller that waits for memory in order to use that very
//     entry. Evict (the operator's call) ignores MinIdle but never touches
//     a held entry.
//   - The prepared verifying key of a circuit is computed once and kept
//     even when the parameters are evicted (it is small).
//   - A parameter file with a sidecar "<file>.INSECURE-TEST-PARAMETERS"
//     (written by `cuzk params gen`) is loaded, but a WARN line says so on
//     every load, and Status marks the entry Test.
//   - Proving keys are decoded with (batched) subgroup checks unless their
//     provenance is known — a file under an official name whose digest is
//     the official manifest's (hashed once per path, size and mtime and
//     recorded beside it: paramcheck.Verifier), or a test marker written by
//     this machine's `cuzk params gen` — or Options.TrustParams is set. An
//     official name alone is no evidence. The verifying key inside and the
//     .vk file are always checked, and must be equal.
//   - Every error a parameter file causes wraps ErrParamsUnusable and names
//     the file and the offset or field; nothing of a failed load is kept,
//     so the next Acquire reads the file again.
//   - Parameter files are opened only when they are regular files
//     (internal/regfile: a FIFO is refused without blocking), and a load
//     that outlives Options.LoadTimeout, or that Evict abandons, fails the
//     callers waiting for it and leaves the entry as it was before the load.
package srs
