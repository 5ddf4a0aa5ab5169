// Package budget is the daemon's single memory budget: one byte count shared
// by Groth16 parameters and the working sets of partitions in flight.
//
// It mirrors the MemoryBudget of the Rust cuzk (Curio
// extern/cuzk/cuzk-core/src/memory.rs, specified in cuzk-memory-manager.md)
// and fixes its weak spots:
//
//   - A request larger than the whole budget fails at once with
//     ErrExceedsBudget instead of waiting forever.
//   - Waiters are served strictly in priority order (higher first, then
//     arrival): a large request at the head is not starved by a stream of
//     small ones behind it, and a critical request overtakes normal ones.
//   - Wake-ups cannot be lost: every grant is decided under one mutex by
//     dispatch, which runs on every release, enqueue, cancellation and
//     Poke, and the head waiter re-runs the evictor at the time the evictor
//     names (for example when an idle entry becomes old enough to evict).
//   - Only the head waiter, and only while it is not granted, asks the
//     evictor, so nothing is evicted for a request that no longer needs
//     it. A waiter may name what it waits to use (AcquireKeeping); the
//     evictor is told, so it does not free that to make room for it.
//
// A part of the budget can be held back for urgent requests
// (SetReserve): requests below the reserve's priority are granted only
// while they leave the reserve (less what urgent requests already hold)
// free, so urgent work finds its memory at once while ordinary work is
// paused holding the rest.
//
// Invariants: 0 ≤ Used ≤ Total at all times; a Reservation's bytes are
// returned exactly once (Release of more than remains panics, Close is
// idempotent); the evictor is called without the budget's lock held, so it
// may release reservations.
package budget
