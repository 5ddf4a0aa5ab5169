// Package server serves the proving engine over gRPC (cuzk.v1
// ProvingEngine, plus the standard health and reflection services) and
// HTTP (GET /status as JSON, GET /metrics for Prometheus, /debug/pprof with
// WithPprof), answering only to the Host names hostCheck allows.
//
// It mirrors the Rust cuzk's server (Curio
// extern/cuzk/cuzk-server/src/service.rs) field for field, with the
// behaviour api/cuzk/v1/README.md marks "Ours": working CancelProof and
// EvictSRS, honoured Await timeouts, request-id deduplication, real sizes
// and reference counts in GetStatus.
//
// This is the only package that knows gRPC status codes: statusError maps
// the engine's sentinel errors to codes in one place.
//
//	engine.ErrInvalidRequest, ErrUnknownKind, ErrUnknownCircuit  InvalidArgument
//	engine.ErrJobNotFound                                       NotFound
//	engine.ErrRequestIDConflict                                 AlreadyExists
//	engine.ErrParamsUnusable (NotFound too), ErrParamsInUse    FailedPrecondition
//	engine.ErrExceedsBudget, ErrTooManyJobs, ErrIntakeFull      ResourceExhausted
//	engine.ErrDraining        Unavailable "daemon draining, retry on another"
//	engine.ErrShuttingDown                                      Unavailable
//	context errors                                              Canceled / DeadlineExceeded
//	anything else                                               Internal
//
// A proof that fails (synthesis error, self-check, a parameter file that is
// missing, unreadable or corrupt: engine.ErrParamsUnusable) is not an RPC
// error: Prove and AwaitProof return it as status FAILED with the message,
// which names the file and the byte offset or field. (PreloadSRS, which
// makes no job, answers FailedPrecondition for the same errors.) The one
// exception is a job aborted by daemon shutdown, which Prove and
// AwaitProof report as Unavailable so a client retries elsewhere.
//
// Durations on the wire are whole milliseconds, rounded up, so a stage that
// took any time at all reports at least 1 ms; a stage that did not happen
// (srs_load with resident parameters) reports 0.
//
// Authentication (WithAuth, docs/security.md): bearer tokens from a file
// that is re-read when it changes, and TLS on TCP listeners with optional
// client certificates the TLS handshake requires and verifies against a
// CA. The token is checked from a stream's headers when the stream is
// created (a grpc.InTapHandle), for every RPC, health and reflection
// included, before gRPC reads its message, and a refused one is answered
// Unauthenticated with the reason; the status
// listener checks the same credentials (an Authorization header, or the
// session cookie its /login form sets for browsers: a random id of a
// session held in memory, never the token). The caller's name (Caller)
// namespaces its job ids through engine.Request.IDPrefix, so a caller
// awaits and cancels only its own jobs. PreloadSRS and EvictSRS take only
// strings shaped like circuit ids.
//
// Shutdown order (Server.Shutdown): health NOT_SERVING; the engine drains
// until the deadline and then aborts what is left, which ends the pending
// Prove/Await calls with Unavailable. While it drains, gRPC keeps serving:
// GetStatus (draining = true), AwaitProof and CancelProof work as before,
// and new SubmitProof and Prove calls answer Unavailable "daemon draining,
// retry on another" (cuzkv1.DrainingMessage), so clients see the drain and
// move their work instead of losing the daemon to a transport error. Then
// gRPC stops taking new RPCs; every
// other call still in flight (a SubmitProof being planned, a PreloadSRS, a
// health Watch) has its context ended and answers Unavailable with the
// shutdown reason (the cause of Shutdown's context: the daemon names the
// signal and --shutdown-timeout), never a transport error; calls that do
// not return within callsFlush (2 s) of the deadline are cut; the HTTP
// listeners shut down, also within the same deadline; the status page's
// history sampler stops; the parameters are released. Every step shares the one deadline, so Shutdown returns
// shortly after it.
package server
