package engine

import (
	"context"
	"time"

	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/srs"
)

// The parameter operations the server offers (PreloadSRS, EvictSRS,
// loaded_srs) go through these methods, so that nothing above the engine
// reaches into its parameter manager.

// PreloadParams makes a circuit's parameters resident at normal priority,
// waiting for memory like any job would. already says they were resident.
func (e *Engine) PreloadParams(ctx context.Context, circuitID string) (already bool, d time.Duration, err error) {
	return e.params.Preload(ctx, circuitID, int(proofkind.PriorityNormal))
}

// EvictParams drops a circuit's resident parameters unless a job uses them.
func (e *Engine) EvictParams(circuitID string) (wasLoaded bool, freed int64, err error) {
	return e.params.Evict(circuitID)
}

// ParamStatus lists every parameter set the engine knows, resident or not.
func (e *Engine) ParamStatus() []srs.EntryStatus { return e.params.Status() }

// ReleaseParams frees every resident parameter set. Call it after
// Shutdown, when no job can use them any more.
func (e *Engine) ReleaseParams() { e.params.Close() }
