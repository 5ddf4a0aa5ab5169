package seal

import "context"

// Progress is where a seal stands: the phase and, where the phase counts
// units (nodes labelled, challenges proven), Done of Total; Total is 0 for
// the phases that report only their start.
type Progress struct {
	Phase       string
	Done, Total int64
}

type progressKey struct{}

// WithProgress returns a context under which PreCommit and Commit report
// to fn at every phase change and about every thousand nodes or every
// challenge inside a phase. It rides on the context, as httptrace's hooks
// do, because progress is an observer of the call, not one of its inputs.
// fn may be called from several goroutines at once and must be cheap.
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// report calls the context's progress hook, if any.
func report(ctx context.Context, phase string, done, total int64) {
	if fn, _ := ctx.Value(progressKey{}).(func(Progress)); fn != nil {
		fn(Progress{Phase: phase, Done: done, Total: total})
	}
}
