package main

import (
	"encoding/json"
	"fmt"

	"github.com/cuzk-dev/cuzk/bench"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/seal"
)

// benchSpec is a bench request with what checking its proofs needs
// besides the wire fields (package bench knows only the wire).
type benchSpec struct {
	*bench.Spec
	c1      *c1.Output // PoRep: the parsed C1, for verify-seal
	logRows int        // test circuits: log2 of the rows, for groth16 verify
}

// poRepOptions say how a C1 becomes a request.
type poRepOptions struct {
	// sectorNumber: 0 takes the envelope's (a plain C1 gets
	// seal.DefaultSector); a value that contradicts the envelope is an
	// error.
	sectorNumber uint64
	// minerID is sent as miner_id and is what verify-seal derives the
	// prover id from.
	minerID uint64
	// registeredProof: -1 takes the C1's; another value must equal it.
	registeredProof int64
}

// poRepSpec builds a PoRep C2 request from C1 output, plain or in Curio's
// envelope. A plain C1 is wrapped (the daemon takes only the envelope).
func poRepSpec(data []byte, opt poRepOptions) (*benchSpec, error) {
	o, w, err := c1.ParseAny(data)
	if err != nil {
		return nil, fmt.Errorf("C1: %w", err)
	}
	if opt.registeredProof >= 0 && uint64(opt.registeredProof) != uint64(o.RegisteredProof) {
		return nil, fmt.Errorf("--registered-proof %d, but the C1 is for %v (%d)", opt.registeredProof, o.RegisteredProof, uint64(o.RegisteredProof))
	}
	sector := opt.sectorNumber
	envelope := data
	switch {
	case w != nil && sector != 0 && sector != w.SectorNum:
		return nil, fmt.Errorf("sector number %d, but the C1 envelope says %d", sector, w.SectorNum)
	case w != nil:
		sector = w.SectorNum
	default:
		if sector == 0 {
			sector = seal.DefaultSector
		}
		if envelope, err = c1.Wrap(o, sector).MarshalJSON(); err != nil {
			return nil, fmt.Errorf("wrapping the C1: %w", err)
		}
	}
	cid, err := filecoin.PoRepCircuitID(o.RegisteredProof.SectorSize())
	if err != nil {
		return nil, err
	}
	return &benchSpec{Spec: &bench.Spec{
		Type: bench.TypePoRep, RegisteredProof: uint64(o.RegisteredProof), SectorSize: uint64(o.RegisteredProof.SectorSize()),
		SectorNumber: sector, MinerID: opt.minerID, VanillaProof: envelope,
		Circuit: string(cid), Partitions: len(o.VanillaProofs),
	}, c1: o}, nil
}

// testSpec builds a request for the daemon's test circuit with 2^logRows
// rows (served only by `cuzk daemon --enable-test-circuits`).
func testSpec(logRows int, opt testkind.Options) (*benchSpec, error) {
	if logRows < testkind.MinLog || logRows > testkind.MaxLog {
		return nil, fmt.Errorf("test circuit: log rows %d outside %d..%d", logRows, testkind.MinLog, testkind.MaxLog)
	}
	var options []byte
	if opt != (testkind.Options{}) {
		var err error
		if options, err = json.Marshal(opt); err != nil {
			return nil, err
		}
	}
	parts := max(opt.Partitions, 1)
	r := client.TestRequest("", logRows, options)
	return &benchSpec{Spec: &bench.Spec{
		Type: bench.TypeTest, RegisteredProof: r.RegisteredProof, SectorSize: r.SectorSize, VanillaProof: r.VanillaProof,
		Circuit: testkind.CircuitID(logRows), Partitions: parts,
	}, logRows: logRows}, nil
}
