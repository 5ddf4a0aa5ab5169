// Package engine runs proof jobs for the daemon: it takes requests,
// deduplicates them by request id, queues them by priority, batches
// same-circuit jobs, and drives their partitions through a synthesis →
// prove pipeline under one memory budget, self-checks every proof and keeps
// results for a bounded time.
//
// It replaces the Rust cuzk engine (Curio extern/cuzk/cuzk-core/src/
// engine.rs, scheduler.rs, batch_collector.rs, pipeline.rs) and avoids its
// weak spots: Cancel and Await timeouts work, request ids deduplicate, the
// retained results are bounded (count and age), every queue is keyed by a
// unique sequence number (no colliding keys), memory waits are
// priority-ordered and cannot miss a wake-up, the self-check runs per job on
// its own goroutine (no global lock), and every kind, every sector size,
// goes through the same pipeline.
//
// # Proof kinds
//
// A Planner turns a request into a Plan: a circuit id and partition
// circuits with their public inputs. The engine knows no circuit; the
// daemon registers one Planner per proof kind it serves (Options.Kinds;
// proofkind.Test only with --enable-test-circuits, see engine/testkind),
// and what the engine says about a kind (its name in status and logs,
// its default priority, whether it batches) comes from the kind's
// proofkind.Descriptor, which travels with its planner (Kind, Builtin).
// Plan runs on the submitting goroutine, so invalid requests fail Submit
// with an error wrapping ErrInvalidRequest (also when the Planner
// panics), and so do jobs that can never fit in the budget
// (ErrExceedsBudget). A parameter
// file that is missing or unusable (ErrParamsUnusable: unreadable, bad
// header, bad point, another circuit's) is not the request's fault: the
// job is created and ends FAILED with the error, naming the file and
// offset, whether planning (the header) or loading (the points) finds it.
//
// While it plans, a job is in StatePlanning and already known by its id:
// a retry with the same request id attaches to it, Await waits for it and
// Cancel marks it (it ends CANCELLED when planning returns, without
// running). Plan's context is not the submitter's: it ends only when
// nobody wants the job any more (no Prove or Await caller waits, no
// SubmitProof caller owns it and its orphan grace, below, is over), on
// Cancel and on shutdown. A caller that
// attached to a plan stopped that way submits afresh. A SubmitProof
// without a request id whose caller leaves during planning is dropped,
// since nobody could ever learn its id.
//
// Planning runs outside the memory budget (decoding a 32 GiB PoRep C1
// takes tens of MB), so it is bounded: at most Config.PlanConcurrency
// plans run at once, a submission that would make more than
// Config.MaxPending jobs planning, queued or running fails with
// ErrTooManyJobs, and one whose bytes would make the requests waiting to
// be planned or being planned exceed Config.MaxIntakeBytes fails with
// ErrIntakeFull (a request alone in the intake is always taken). With
// Config.ReturnMemory the engine hands freed heap back to the operating
// system once it has been idle for a second.
//
// # Job states
//
//	               Submit / Prove
//	                     │
//	                     ▼
//	rejected ◀──── PLANNING ──── Cancel ────────────────┐
//	(no job kept;      │ Planner.Plan, parameters and    │
//	 the error goes    │ budget checks passed            │
//	 to the caller)    ▼                                 │
//	                QUEUED ───── Cancel ─────────────────┤
//	                   │ a partition of it left the      │
//	                   │ synthesis queue                 │
//	                   ▼                                 ▼
//	                RUNNING ──── Cancel ───────────▶ CANCELLED
//	                   │ │
//	 every partition   │ └─ synthesis, Start or Finish failed,
//	 proved and the    │    the self-check failed, or Shutdown
//	 self-check passed │    reached its deadline ─────▶ FAILED
//	                   ▼
//	               COMPLETED
//
// COMPLETED, FAILED and CANCELLED are final: the result is retained for
// Await and for retries with the same request id (Config.CompletedTTL;
// at most Config.CompletedMax results and Config.CompletedMaxBytes of
// them, oldest dropped first, those of orphaned jobs last); a retry of a
// FAILED or CANCELLED request runs again. TIMEOUT is never a job's state, only what Await reports when its
// timeout passes first. Each partition of a job moves through the
// pipeline as part of an item (see Scheduling):
//
//	synthesis queue → synthesis → ready queue → Start (prover) → Finish (finisher) → done
//
// and a final job's parts are dropped wherever they are (see Cancellation).
//
// The code follows the lifecycle: submit.go (Submit, attach, plan, Await,
// Cancel), queue.go (batch collectors and admission), pipeline.go (the
// stages), stages.go (the per-stage counts and their invariants), end.go
// (final states, retiring items, pruning, Shutdown).
//
// # Scheduling
//
// Jobs run by priority (CRITICAL > HIGH > NORMAL > LOW), then by arrival.
// The unit of work is an item: partition i of every job of a batch (one job
// unless batching is on). Items wait in a synthesis queue; synthesis
// workers (Config.SynthesisWorkers) pick the best item whenever they are
// free, at most Config.SynthesisConcurrency batches at a time, except that
// an item of higher priority than everything in synthesis may exceed that
// limit (it then starts on the next free worker). Synthesised
// items wait in a ready queue, from which each prover lane (see Lanes)
// picks the best one it may take whenever it is free. Nothing is assigned
// ahead of time, so a higher-priority job overtakes every item that has
// not started: it waits at most for the partitions already in synthesis
// and the ones being proved, unless it is urgent (see Lanes).
// A bound on the items between synthesis start and the prover
// (Lookahead + SynthesisWorkers) is the backpressure; an item of higher
// priority than everything synthesised may exceed it, so it reaches the
// prover's next free slot.
//
// Batches: jobs of a batchable kind (PoRep, SnapDeals, test) at NORMAL or
// LOW priority collect per (circuit, priority) until MaxBatchSize jobs are
// there, MaxBatchWait has passed, a higher-priority job arrives, or the
// engine shuts down. HIGH and CRITICAL jobs never wait for company. A batch
// is capped to what fits in the budget beside its parameters.
//
// # Memory
//
// Before synthesis an item reserves its parameters (when not resident)
// and one working set per partition (srs.Sizes.WorkingSet, computed from
// the parameter file's vector lengths) in one request; a request that can
// never fit fails at once. The a/b/c share is returned when the prover's
// Start has consumed the vectors, the rest when Finish returns. Parameters
// are pinned while an item uses them and evicted (LRU, after
// eviction_min_idle) when another request needs the memory. With the
// reserved lane, Config.UrgentReserve of the budget is held back for
// urgent items (budget.SetReserve): ordinary work is admitted only while
// it leaves that much free, so an urgent item never waits for memory
// that paused ordinary work holds; urgent items may use the whole budget.
// The parameters of an urgent circuit that stay resident count against
// the reserve. A job that could only fit with the reserve is refused
// (ErrExceedsBudget) unless it is urgent. With device lanes only, a job
// whose partition needs more device memory (srs.Sizes.DeviceBytes) than
// the largest device has is refused too.
//
// # Pipeline
//
// Each prover lane runs Backend.Start (FFTs and G1 MSMs) and hands the
// pending proof to its own finisher goroutine, which runs Finish (G2 MSM
// and assembly) while the lane starts the next item. When all partitions of a job are
// proved, the job is self-checked (groth16.VerifyBatch against the prepared
// verifying key; Config.SkipSelfCheck turns it off) and completes, or fails
// with ErrSelfCheck and no proof bytes.
//
// # Lanes
//
// A lane is one prover slot: a goroutine running Start for one item at a
// time, and a finisher. The general lanes are Options.Lanes (the daemon
// gives one per GPU, all over the CUDA backend, which spreads each call
// over every device under one process-wide lock) or one lane over
// Options.Backend. Config.ReservedLane adds a synthesis worker and a lane
// ("synthesis reserved", "prover reserved", "finisher reserved", over
// Options.UrgentBackend) that only urgent items use: jobs of HIGH or
// CRITICAL priority whose circuit has at most Config.UrgentMaxDomain rows
// (WinningPoSt at every sector size; no PoRep, SnapDeals or production
// WindowPoSt partition). General workers and lanes leave urgent items to
// the reserved ones while those are free, and take them when they are
// busy (a second urgent job at once).
//
// Urgent work must not wait for ordinary work: a WinningPoSt has seconds,
// and one PoRep partition keeps a CPU prover busy for minutes. A free
// lane alone does not achieve that on a CPU: the urgent job would share
// the cores with the ordinary partitions in synthesis and in Start, and
// on two cores its latency would be 2–3 times its idle latency
// (BenchmarkUrgentLatency, mode "lane"). So while an urgent item holds
// its memory (from its lease until it retires), ordinary work pauses at
// its next yield point (the gate): synthesis every r1cs.YieldRows rows
// (milliseconds), Start and Finish between FFTs, between MSMs, between
// chunks of the scalar scan and between pieces of groth16.YieldPoints
// points of the general MSM (prover.Yield, through the item's context),
// so the urgent job gets every core within the longest step between two
// yield points (an FFT or an MSM piece: under a second on two cores, less
// with more) and keeps them. Paused work keeps its memory, which is why
// the reserve exists; it resumes where it stopped, so no work is lost or
// redone. The ordinary stream loses the time the urgent jobs take; the
// yield points themselves cost it nothing measurable (pieces of 2^16
// points instead of one MultiExp; BenchmarkYieldOverhead). A device call cannot be paused (the CUDA backend ignores
// prover.Yield): on a GPU the urgent item waits for at most the call in
// progress. Config.NoPreempt (measurements only) keeps ordinary work
// running beside urgent work.
//
// The gate opens only once an urgent item holds its memory, and urgent
// items never wait for a paused worker (they have their own synthesis
// worker and lane, and their own memory), so pausing cannot deadlock.
//
// # Cancellation and shutdown
//
// Cancel removes a queued job at once. A running job is final at once too
// (waiters see CANCELLED); its partitions are dropped from the queues,
// queued memory is returned, and a partition inside a stage stops at the
// stage's next yield point, which is also a cancellation point: synthesis
// every r1cs.YieldRows rows (r1cs.SynthesizeYielding unwinds the circuit),
// the CPU prover's Start and Finish inside and between the transforms,
// every few thousand scalars of the MSM scans and between MSM pieces of
// groth16.YieldPoints points (each step a fraction of a second on two
// cores, also at 2^27), so the lane is free and the memory back in the
// budget well within a second (TestCancelStopsRunningWork,
// TestCancelStopsRealKinds). A part of a batch item stops alone; the
// item's other jobs go on. A device call cannot be interrupted: it is
// abandoned (LaneStatus.Abandoned) and runs to its end, keeping the memory
// the device reads; its result is then dropped without Finish or
// self-check, and the lane and the memory are free at once. Shutdown stops
// accepting, stops plans in progress, flushes batches, lets accepted jobs
// finish until its context ends, then fails the rest with ErrShuttingDown.
//
// # Orphaned jobs
//
// A Prove caller whose context ends leaves its job; when no other caller
// waits on it and no Submit caller owns it, the job is orphaned. Curio's
// client gives up on a Prove after its ProveTimeout (30 min by default)
// and retries the task with the same request id, and a 32 GiB proof can
// take longer than that on a small host, so an orphaned job with a
// request id keeps running (or planning) for Config.OrphanGrace: a Prove
// or Await with its request id attaches to it, ends the grace and gets
// the proof; a job that ends while orphaned keeps its result for at least
// the grace. When the grace passes with nobody back, the job is cancelled
// (its result says why) and its memory returns to the budget. A job
// without a request id (nobody could attach to it) and every job when
// the grace is off are cancelled at once, and Cancel always cancels at
// once. An orphaned job holds its memory and counts against
// Config.MaxPending like any other; Status shows it (JobStatus.OrphanedFor,
// CounterStatus.Orphaned and Reclaimed).
//
// # Panics
//
// A panic in a Planner's Plan, a circuit's synthesis, the backend's Start or
// Finish, or the self-check is recovered and logged at ERROR with its
// stack ("recovered from a panic"); the request is rejected or the job
// fails, and the engine keeps serving.
//
// # Logs
//
// One line per job state change ("job queued", "job running", "job
// completed", "job failed", "job cancelled", "job rejected"), each with
// job=<id>. Log lines are for people; no tool parses them and their
// wording may change.
//
// # Stage timings
//
// Each stage of each partition is a StageRecord: job, partition (-1: the
// whole job), stage, start, duration, the item's batch and circuit, and
// the worker that ran it ("synthesis N", "prover", "finisher",
// "verifier"; with several lanes "prover <lane>" and "finisher <lane>";
// the reserved lane's "synthesis reserved", "prover reserved" and
// "finisher reserved"). Stages: srs_load (the item's wait for its parameters, when
// they were not resident), synthesis, prove (Backend.Start), finish
// (Backend.Finish), and self_check (the whole job). Status lists the
// records of every job that is not final (JobStatus.Stages) and of the
// last MaxRecentJobs jobs that ended (RecentJobs, in the order they did);
// a job keeps at most MaxJobStages records (a 10-partition PoRep job has
// about 32, some 6 KiB). A prove or finish record carries the backend's
// steps inside it for its partition (StageRecord.Steps: the CPU prover's
// "msm l", "msm a", "msm b_g1", "msm b_g2", "h", "msm h" in prove,
// "assemble" in finish), and a job's Timings.ProveSteps sum them over its
// partitions (with the longest partition's), so its prove time is not one
// number: AwaitProof (prove_steps), GET /status (timings.prove_steps,
// stages[].steps) and `cuzk bench single` show them. The server publishes them in GET /status
// (jobs[].stages, recent_jobs) for `cuzk bench timeline`, and an Observer
// that implements StageObserver sees each record as it is made (the
// daemon's per-stage histograms).
//
// For people, each record is also logged as one line at DEBUG, or at INFO
// when Config.LogTiming is set (the daemon sets it for CUZK_TIMING=1):
//
//	msg=timing job=<id> partition=<i> stage=<stage> worker=<worker> start=<RFC 3339> duration_ms=<float> [batch=<n> circuit=<id>]
//
// That line is not an API: read the records from Status or /status.
package engine
