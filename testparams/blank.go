package testparams

import (
	"fmt"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/bytesize"
	porepcircuit "github.com/cuzk-dev/cuzk/porep/circuit"
	postcircuit "github.com/cuzk-dev/cuzk/post/circuit"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/r1cs"
	snapcircuit "github.com/cuzk-dev/cuzk/snap/circuit"
)

// Blank returns circuit c with every value zero, the circuit its
// parameters are set up for: one PoRep partition (porep/circuit.Blank), a
// WindowPoSt partition or the unrolled WinningPoSt (post/circuit.Blank of
// the kind's dimensions) or one EmptySectorUpdate partition
// (snap/circuit.Blank, k = 0, h = h_default). Groth16 parameters depend on
// the rows alone, which do not depend on the values, so a blank circuit
// gives the parameters every instance of the circuit proves with, as
// bellperson's setup of upstream's blank circuit does.
func Blank(c filecoin.CircuitID) (r1cs.Circuit, error) {
	switch c.Kind() {
	case proofkind.PoRep:
		p, err := c.SealProof()
		if err != nil {
			return nil, err
		}
		dims, in, err := porepcircuit.Blank(p)
		if err != nil {
			return nil, err
		}
		return porepcircuit.New(dims, in)
	case proofkind.WindowPoSt, proofkind.WinningPoSt:
		p, err := c.PoStProof()
		if err != nil {
			return nil, err
		}
		dims, err := postcircuit.DimsOf(p)
		if err != nil {
			return nil, err
		}
		return postcircuit.Blank(dims)
	case proofkind.SnapDeals:
		size, err := c.SectorSize()
		if err != nil {
			return nil, err
		}
		params, err := snapcircuit.ParamsFor(uint64(size))
		if err != nil {
			return nil, err
		}
		return snapcircuit.Blank(params)
	}
	return nil, fmt.Errorf("testparams: %w: %q", filecoin.ErrUnknownCircuit, string(c))
}

// describe names the proofs a circuit serves, for the marker note.
func describe(c filecoin.CircuitID) string {
	switch c.Kind() {
	case proofkind.PoRep:
		if p, err := c.SealProof(); err == nil {
			return "PoRep, as " + p.String() + " and every seal proof of the size"
		}
	case proofkind.WindowPoSt:
		if p, err := c.PoStProof(); err == nil {
			return "WindowPoSt, as " + p.String() + " and its V1"
		}
	case proofkind.WinningPoSt:
		if p, err := c.PoStProof(); err == nil {
			return "WinningPoSt, as " + p.String()
		}
	case proofkind.SnapDeals:
		if p, err := c.UpdateProof(); err == nil {
			return "SnapDeals, as update proof " + p.String()
		}
	}
	return c.Kind().String()
}

// g1Bytes is a G1 point in memory (gnark-crypto affine).
const g1Bytes = 96

// MemoryFloor is a lower bound on the memory that generating (or holding)
// circuit c's Groth16 parameters takes: the H, L and IC vectors
// alone, H over the domain 2^⌈log2(rows + inputs)⌉, counted on the blank
// circuit in a couple of seconds even at 32 GiB. A and B come on top.
func MemoryFloor(c filecoin.CircuitID) (int64, error) {
	blank, err := Blank(c)
	if err != nil {
		return 0, err
	}
	cs, err := r1cs.Synthesize(blank, r1cs.Counter{})
	if err != nil {
		return 0, err
	}
	domain, err := groth16.DomainSize(cs.NumConstraints() + cs.NumInputs())
	if err != nil {
		return 0, err
	}
	return int64(domain+cs.NumAux()+cs.NumInputs()) * g1Bytes, nil
}

// CheckFits refuses up front a circuit whose parameters cannot fit in
// this machine's memory (memTotal: config.ReadMemTotal for the real one),
// instead of a job growing until the kernel kills it. A machine whose
// memory cannot be read is let try.
func CheckFits(c filecoin.CircuitID, memTotal func() (uint64, error)) error {
	need, err := MemoryFloor(c)
	if err != nil {
		return err
	}
	have, err := memTotal()
	if err != nil {
		return nil
	}
	if uint64(need) > have {
		size, _ := c.SectorSize()
		return fmt.Errorf("the %v %v circuit's (%s) parameters need more than %s of memory (H, L and IC alone; A and B come on top), this machine has %s",
			size, c.Kind(), c, bytesize.Format(need), bytesize.Format(int64(have)))
	}
	return nil
}
