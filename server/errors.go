package server

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/engine"
)

// statusError maps an engine error to a gRPC status; see the package
// documentation for the table.
func statusError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return status.FromContextError(err).Err()
	}
	if errors.Is(err, engine.ErrDraining) {
		// The wire's fixed text, so that clients recognise it
		// (cuzkv1.DrainingMessage); the engine's adds nothing to it.
		return status.Error(codes.Unavailable, cuzkv1.DrainingMessage)
	}
	code := codes.Internal
	switch {
	case errors.Is(err, engine.ErrInvalidRequest), errors.Is(err, engine.ErrUnknownKind), errors.Is(err, engine.ErrUnknownCircuit):
		code = codes.InvalidArgument
	case errors.Is(err, engine.ErrJobNotFound):
		code = codes.NotFound
	case errors.Is(err, engine.ErrRequestIDConflict):
		code = codes.AlreadyExists
	case errors.Is(err, engine.ErrParamsUnusable), errors.Is(err, engine.ErrParamsInUse):
		code = codes.FailedPrecondition
	case errors.Is(err, engine.ErrExceedsBudget), errors.Is(err, engine.ErrTooManyJobs), errors.Is(err, engine.ErrIntakeFull):
		code = codes.ResourceExhausted
	case errors.Is(err, engine.ErrShuttingDown):
		code = codes.Unavailable
	}
	return status.Error(code, clip(err.Error(), maxMessageLen))
}

// maxMessageLen bounds the text of an error the daemon sends. Ours are
// far shorter (ids are bounded, decoders quote bounded excerpts); the clip
// keeps it so whatever an error wraps.
const maxMessageLen = 4 << 10
