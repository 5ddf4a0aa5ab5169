package main

import (
	"fmt"
	"math/bits"
	"os"
	"path/filepath"

	"github.com/cuzk-dev/cuzk/budget"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep/circuit"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// g1Bytes is a G1 point in memory (gnark-crypto affine).
const g1Bytes = 96

// paramsMemoryFloor is a lower bound on the memory that generating (or
// holding) p's Groth16 parameters takes: the H, L and IC vectors alone,
// H over the domain 2^⌈log2(rows + inputs)⌉, counted on the blank circuit
// in a couple of seconds even at 32 GiB. A and B come on top.
func paramsMemoryFloor(p filecoin.RegisteredSealProof) (int64, error) {
	d, in, err := circuit.Blank(p)
	if err != nil {
		return 0, err
	}
	c, err := circuit.New(d, in)
	if err != nil {
		return 0, err
	}
	cs, err := r1cs.Synthesize(c, r1cs.Counter{})
	if err != nil {
		return 0, err
	}
	rows := cs.NumConstraints() + cs.NumInputs()
	domain := 1 << bits.Len(uint(rows-1))
	return int64(domain+cs.NumAux()+cs.NumInputs()) * g1Bytes, nil
}

// checkParamsFit refuses up front a job whose parameters cannot fit in
// this machine's memory, instead of growing until the kernel kills it.
func checkParamsFit(p filecoin.RegisteredSealProof, memTotal func() (uint64, error)) error {
	need, err := paramsMemoryFloor(p)
	if err != nil {
		return err
	}
	have, err := memTotal()
	if err != nil {
		return nil // nothing to compare with: let it try
	}
	if uint64(need) > have {
		return fmt.Errorf("the %v PoRep circuit's parameters need more than %s of memory (H, L and IC alone; A and B come on top), this machine has %s",
			p.SectorSize(), budget.FormatBytes(need), budget.FormatBytes(int64(have)))
	}
	return nil
}

// isOfficialCache says whether dir is the official parameter cache
// ($FIL_PROOFS_PARAMETER_CACHE or its default), where INSECURE test
// parameters under official names must never go.
func isOfficialCache(dir string) bool {
	same := func(a, b string) bool {
		ca, err1 := filepath.Abs(a)
		cb, err2 := filepath.Abs(b)
		if err1 != nil || err2 != nil {
			return false
		}
		if ra, err := filepath.EvalSymlinks(ca); err == nil {
			ca = ra
		}
		if rb, err := filepath.EvalSymlinks(cb); err == nil {
			cb = rb
		}
		return filepath.Clean(ca) == filepath.Clean(cb)
	}
	return same(dir, filecoin.ParameterCacheDir(os.LookupEnv)) || same(dir, filecoin.DefaultParameterCacheDir)
}
