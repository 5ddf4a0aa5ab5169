// Package porepkind serves POREP_SEAL_COMMIT requests (seal commit phase 2)
// in the engine: it decodes Curio's C1 envelope, checks it against the
// request, validates the C1 natively and plans one stacked circuit per
// partition with porep/c2.Plan.
//
// Request fields used (api/cuzk/v1/README.md): registered_proof (the
// RegisteredSealProof id; it selects the circuit, "porep-<size>"),
// vanilla_proof (the envelope {"SectorNum","Phase1Out","SectorSize"}),
// sector_size and sector_number (checked against the envelope when set).
// Every mismatch or malformed input is an error wrapping
// engine.ErrInvalidRequest, reported before the job is queued.
//
// It mirrors the Rust cuzk's PoRep path (Curio extern/cuzk/cuzk-core/src/
// prover.rs and pipeline.rs: C1OutputWrapper, seal_commit_phase2 per
// partition).
package porepkind
