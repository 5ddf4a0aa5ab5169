package demo_test

import (
	"context"
	"fmt"

	"github.com/cuzk-dev/cuzk/demo"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// A fixture is a request of a kind made from sectors sealed in memory,
// as Curio would send it, with the public values its proof is verified
// against: `cuzk demo` proves it through the in-process engine
// (oneshot.Prove) and checks the proof with Fixture.Verify.
func ExampleNewFixture() {
	f, err := demo.NewFixture(context.Background(), proofkind.WinningPoSt, filecoin.SectorSize2KiB, 1000, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	inputs, err := f.Public.Inputs()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %v of miner %d, %d vanilla proof(s)\n", f.Circuit, f.Request.Kind, f.Request.MinerID, len(f.Request.VanillaProofs))
	fmt.Printf("checked as %s: %d partition(s), %d public inputs each\n", f.Check, f.Public.Partitions(), len(inputs[0]))
	// Output:
	// winning-2k: winning-post of miner 1000, 1 vanilla proof(s)
	// checked as verify-post: 1 partition(s), 132 public inputs each
}
