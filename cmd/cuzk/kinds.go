package main

import (
	"fmt"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// circuitFor picks the circuit of a kind: from an explicit registered
// proof id of that kind (seal 0–19, PoSt 0–14 winning/window, update 0–4),
// which must agree with size when both are given, else from the size.
func circuitFor(kind proofkind.Kind, size sectorSizeFlag, id int64) (filecoin.CircuitID, error) {
	if kind == proofkind.PoRep {
		p, err := sealProofFor(size, id)
		if err != nil {
			return "", err
		}
		return p.CircuitID(), nil
	}
	var c filecoin.CircuitID
	var name string
	var proofSize filecoin.SectorSize
	switch {
	case id < 0 && !size.set:
		return "", fmt.Errorf("give --sector-size or --registered-proof")
	case id < 0:
		return filecoin.CircuitIDFor(kind, size.v)
	case kind == proofkind.SnapDeals:
		p, err := filecoin.UpdateProofFromID(uint64(id))
		if err != nil {
			return "", err
		}
		c, name, proofSize = p.CircuitID(), p.String(), p.SectorSize()
	default:
		p, err := filecoin.PoStProofFromID(uint64(id))
		if err != nil {
			return "", err
		}
		c, name, proofSize = p.CircuitID(), p.String(), p.SectorSize()
		if c.Kind() != kind {
			return "", fmt.Errorf("registered proof %d is %v, not a %v proof", id, p, kind)
		}
	}
	if size.set && proofSize != size.v {
		return "", fmt.Errorf("registered proof %s is for %v sectors, not %v", name, proofSize, size.v)
	}
	return c, nil
}
