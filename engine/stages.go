package engine

import "github.com/cuzk-dev/cuzk/proofkind"

// stageCounts counts the items in each stage of the pipeline. The
// counts change only through its methods, one per transition of an item, so
// the invariants hold in one place (all under Engine.mu):
//
//   - credits: items from the start of their synthesis until the prover
//     takes them (or they leave earlier). Synthesis stops starting items
//     when credits reach Lookahead + SynthesisWorkers, the backpressure.
//   - inFlight: items from the start of their synthesis until they retire;
//     NoPipeline lets one in at a time.
//   - synthesizing = the sum of synthByPrio; activeBatches is the number of
//     batches with an item in synthesis (batch.active > 0), bounded by
//     SynthesisConcurrency.
//   - proving and finishing: items inside Backend.Start and Finish.
type stageCounts struct {
	credits       int
	inFlight      int
	activeBatches int
	synthesizing  int
	synthByPrio   [proofkind.PriorityCritical + 1]int
	proving       int
	finishing     int
}

// startSynthesis: a synthesis worker took an item of b.
func (c *stageCounts) startSynthesis(b *batch) {
	if b.active == 0 {
		c.activeBatches++
	}
	b.active++
	c.synthByPrio[b.prio]++
	c.synthesizing++
	c.credits++
	c.inFlight++
}

// endSynthesis: an item of b left synthesis (ready, failed or dropped). It
// says whether b has no item in synthesis any more, which frees a batch
// slot.
func (c *stageCounts) endSynthesis(b *batch) (batchSlotFreed bool) {
	c.synthesizing--
	c.synthByPrio[b.prio]--
	b.active--
	if b.active == 0 {
		c.activeBatches--
		return true
	}
	return false
}

// leftBeforeProver: an item that started synthesis ended before the prover
// took it (it failed, or all its parts were dropped); retire it too.
func (c *stageCounts) leftBeforeProver() { c.credits-- }

// takenByProver: the prover took a synthesised item for Start.
func (c *stageCounts) takenByProver() {
	c.credits--
	c.proving++
}

// endStart: Start returned; toFinisher says the item goes on to Finish.
func (c *stageCounts) endStart(toFinisher bool) {
	c.proving--
	if toFinisher {
		c.finishing++
	}
}

// endFinish: Finish returned, or a finishing item was dropped at shutdown.
func (c *stageCounts) endFinish() { c.finishing-- }

// retire: an item is done with the pipeline.
func (c *stageCounts) retire() { c.inFlight-- }

// highestInSynthesis is the highest priority of an item in synthesis
// (proofkind.PriorityUnspecified when none is).
func (c *stageCounts) highestInSynthesis() proofkind.Priority {
	p := proofkind.PriorityUnspecified
	for i, n := range c.synthByPrio {
		if n > 0 {
			p = proofkind.Priority(i)
		}
	}
	return p
}
