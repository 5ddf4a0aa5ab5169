package proofkind_test

import (
	"errors"
	"fmt"

	"github.com/cuzk-dev/cuzk/proofkind"
)

// A kind is its wire value; everything else cuzk says about it (its name,
// the spellings the CLI accepts, its priority and batching) comes from its
// descriptor.
func Example() {
	for _, s := range []string{"porep", "WPOST", "snap_update"} {
		k, err := proofkind.Parse(s)
		if err != nil {
			panic(err)
		}
		d, _ := proofkind.Lookup(k)
		fmt.Printf("%-12s -> %d %s: default priority %s, batched %v, circuits %s-*\n",
			s, int32(k), d.Name, d.DefaultPriority, d.Batchable, d.CircuitPrefix)
	}

	// A request that names no priority gets its kind's.
	d, _ := proofkind.Lookup(proofkind.WinningPoSt)
	fmt.Println(d.EffectivePriority(proofkind.PriorityUnspecified), d.EffectivePriority(proofkind.PriorityLow))

	// A kind of one's own joins a set under a wire value and names no
	// other kind has; a clash is refused.
	mine := proofkind.Descriptor{Kind: 2001, Name: "square", DefaultPriority: proofkind.PriorityNormal}
	set, err := proofkind.Builtin().With(mine)
	fmt.Println(set.Name(2001), err)
	_, err = proofkind.Builtin().With(proofkind.Descriptor{Kind: 2002, Name: "wpost"})
	fmt.Println(errors.Is(err, proofkind.ErrConflict), err)
	// Output:
	// porep        -> 1 porep-c2: default priority normal, batched true, circuits porep-*
	// WPOST        -> 3 window-post: default priority high, batched false, circuits wpost-*
	// snap_update  -> 2 snap-update: default priority normal, batched true, circuits snap-*
	// critical low
	// square <nil>
	// true conflicting proof kind descriptors: "wpost" names both "window-post" and "wpost"
}
