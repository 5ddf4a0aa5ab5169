package srs_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/r1cs"
	"github.com/cuzk-dev/cuzk/srs"
)

// squarings proves x^(2^rows) = y, y public: rows rows, each squaring the
// previous value.
type squarings struct {
	rows int
	x    uint64
}

func (c squarings) Synthesize(cs *r1cs.CS) error {
	vals := make([]fr.Element, c.rows+1)
	vals[0].SetUint64(c.x)
	for i := 1; i <= c.rows; i++ {
		vals[i].Square(&vals[i-1])
	}
	y := cs.AllocInput(vals[c.rows])
	prev := cs.Alloc(vals[0])
	for i := 1; i <= c.rows; i++ {
		next := y
		if i < c.rows {
			next = cs.Alloc(vals[i])
		}
		cs.Enforce(func(a, b, cc *r1cs.LC) { a.Add(prev); b.Add(prev); cc.Add(next) })
		prev = next
	}
	return nil
}

// A parameter file's header says what proving with it takes, without
// decoding a point: the engine asks it whether a partition fits in the
// memory budget before it loads anything. The file here is a small
// circuit's; ReadSizes reads a 32 GiB PoRep's 47 GB file the same way.
func ExampleReadSizes() {
	dir, err := os.MkdirTemp("", "srs-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	tw, err := groth16.RandomToxicWaste()
	if err != nil {
		log.Fatal(err)
	}
	params, err := groth16.Setup(squarings{rows: 100}, tw, groth16.SetupOptions{})
	if err != nil {
		log.Fatal(err)
	}
	path := filepath.Join(dir, "squarings.params")
	if err := groth16.WriteParamsFile(path, params); err != nil {
		log.Fatal(err)
	}

	s, err := srs.ReadSizes(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("domain %d, inputs %d (ONE included), aux %d, A %d, B %d, H %d\n", s.Domain, s.Inputs, s.Aux, s.A, s.B, s.H)
	fmt.Printf("file %d bytes; decoded %d bytes, working set %d bytes per partition\n", s.FileLen, s.DecodedBytes(), s.WorkingSet())

	// A truncated file is refused, naming it and what is wrong.
	if err := os.Truncate(path, 1000); err != nil {
		log.Fatal(err)
	}
	_, err = srs.ReadSizes(path)
	fmt.Println(errors.Is(err, srs.ErrParamsUnusable))
	fmt.Println(strings.ReplaceAll(err.Error(), dir, "DIR"))
	// Output:
	// domain 128, inputs 2 (ONE included), aux 100, A 102, B 100, H 127
	// file 61464 bytes; decoded 60576 bytes, working set 26792 bytes per partition
	// true
	// parameter file unusable: DIR/squarings.params: header: malformed groth16 parameters: ic count at offset 864 says 2 points, ending at byte 1060, past the end of the file (1000 bytes): truncated
}
