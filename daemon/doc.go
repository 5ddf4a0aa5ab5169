// Package daemon assembles cuzk's proving daemon from a configuration
// (config.Config, the TOML of `cuzk daemon`): one memory budget shared by
// the parameter manager (srs) and the pipeline, the proof kinds served
// (the four Filecoin kinds, the test circuits with Options.EnableTest, and
// a caller's own in Options.Kinds), the backends (the CPU, or the CUDA
// devices of [gpus], each with a prover lane), the engine over them, and
// the gRPC and status HTTP servers (server). It owns all of them:
//
//	d, err := daemon.New(cfg, daemon.Options{Log: log}) // listeners open
//	if err != nil { ... }
//	err = d.Serve(ctx)                                  // until ctx ends
//	err = errors.Join(err, d.Close(shutdownCtx))        // drain, release, close
//
// Run does exactly that, with Options.ShutdownTimeout as Close's deadline;
// `cuzk daemon` is flag parsing around it. Close stops in order: health
// NOT_SERVING and new jobs refused
// while GetStatus keeps answering, the jobs held given until the deadline
// and then aborted with its cause, gRPC and HTTP stopped, the parameters
// released, and the backends closed last (a GPU's pinned copies of the
// parameters are freed only once no proof can use them).
//
// The one-shot commands (prove-c2, prove-post, prove-update, demo) prove
// through the same assembly without servers: Prove builds it, proves one
// request and closes it, so a proof is planned, proved, self-checked and
// encoded by one pipeline whichever door it came in by.
//
// A device joins through the optional interfaces of package prover
// (prover.ParamsHolder, prover.ResidencyPreference, prover.DeviceLister,
// io.Closer), which the daemon finds on its backend by type assertion
// (provers.go): the daemon names no device's hooks.
package daemon
