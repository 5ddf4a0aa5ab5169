package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/bytesize"
	"github.com/cuzk-dev/cuzk/testparams"
)

// checkParamsFit refuses up front a job whose parameters cannot fit in
// this machine's memory, instead of growing until the kernel kills it.
func checkParamsFit(p filecoin.RegisteredSealProof, memTotal func() (uint64, error)) error {
	return checkCircuitFits(p.CircuitID(), memTotal)
}

// checkCircuitFits is checkParamsFit for any circuit id.
func checkCircuitFits(c filecoin.CircuitID, memTotal func() (uint64, error)) error {
	need, err := testparams.MemoryFloor(c)
	if err != nil {
		return err
	}
	have, err := memTotal()
	if err != nil {
		return nil // nothing to compare with: let it try
	}
	if uint64(need) > have {
		size, _ := c.SectorSize()
		return fmt.Errorf("the %v %v circuit's (%s) parameters need more than %s of memory (H, L and IC alone; A and B come on top), this machine has %s",
			size, c.Kind(), c, bytesize.Format(need), bytesize.Format(int64(have)))
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
