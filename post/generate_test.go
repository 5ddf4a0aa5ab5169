package post_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/post"
	"github.com/cuzk-dev/cuzk/sectordir"
)

// The vanilla proofs of sealed sectors decode and verify natively against
// the sealed commitments, are deterministic, number the sectors by
// partition before V1_2, and misuse is refused.
func TestGenerateVanillaProofs(t *testing.T) {
	ctx := context.Background()
	sectors := testkit.CCSectors(t, filecoin.StackedDrg2KiBV1_1, 1, 2)
	rnd := testkit.Randomness(7)
	window := filecoin.StackedDrgWindow2KiBV1_2
	for _, k := range []int{0, 3} {
		raw, err := post.GenerateVanillaProofs(ctx, window, rnd, sectors, k, 1)
		if err != nil {
			t.Fatal(err)
		}
		vs, err := post.DecodeVanillaProofs(raw, window)
		if err != nil {
			t.Fatal(err)
		}
		pt, err := post.NewWindowPartition(window, rnd, vs, k)
		if err != nil {
			t.Fatal(err)
		}
		if err := pt.Verify(ctx, 1); err != nil {
			t.Fatalf("partition %d: %v", k, err)
		}
		if err := pt.CheckSectors(post.PublicSectors(sectors)); err != nil {
			t.Fatal(err)
		}
		again, _ := post.GenerateVanillaProofs(ctx, window, rnd, sectors, k, 2)
		if !bytes.Equal(again[1], raw[1]) {
			t.Fatal("not deterministic")
		}
	}
	// Before V1_2 the partition index enters the challenges.
	v1 := filecoin.StackedDrgWindow2KiBV1
	raw, err := post.GenerateVanillaProofs(ctx, v1, rnd, sectors, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	vs, _ := post.DecodeVanillaProofs(raw, v1)
	pt, _ := post.NewWindowPartition(v1, rnd, vs, 0)
	if err := pt.Verify(ctx, 1); !errors.Is(err, post.ErrChallenge) {
		t.Fatalf("V1 proofs of partition 1 checked as partition 0: %v", err)
	}

	winning := filecoin.StackedDrgWinning2KiBV1
	raw, err = post.GenerateVanillaProofs(ctx, winning, rnd, sectors[:1], 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	vs, _ = post.DecodeVanillaProofs(raw, winning)
	wp, err := post.NewWinningPartition(winning, rnd, vs)
	if err != nil {
		t.Fatal(err)
	}
	if err := wp.Verify(ctx, 1); err != nil {
		t.Fatal(err)
	}
	// A random stand-in sector's proofs verify like a sealed one's.
	rs := testkit.RandomSector(t, filecoin.StackedDrg2KiBV1_1, 5, 1)
	if _, err := post.GenerateVanillaProofs(ctx, winning, rnd, []*sectordir.Sector{rs}, 0, 1); err != nil {
		t.Fatalf("random sector: %v", err)
	}

	damaged := *sectors[1]
	damaged.CommC.SetUint64(9) // comm_r no longer H(comm_c, comm_r_last)
	for name, c := range map[string]struct {
		p       filecoin.RegisteredPoStProof
		sectors []*sectordir.Sector
		k       int
		is      error
	}{
		"winning, two sectors":         {winning, sectors, 0, post.ErrSectors},
		"winning, partition 1":         {winning, sectors[:1], 1, post.ErrSectors},
		"three sectors in a partition": {window, append(sectors[:2:2], sectors[0]), 0, post.ErrSectors},
		"a sector twice":               {window, []*sectordir.Sector{sectors[0], sectors[0]}, 0, post.ErrSectors},
		"8 MiB proof of 2 KiB sectors": {filecoin.StackedDrgWinning8MiBV1, sectors[:1], 0, post.ErrSectors},
		"no sectors":                   {window, nil, 0, post.ErrSectors},
		"negative partition":           {window, sectors, -1, post.ErrSectors},
		"unknown proof":                {15, sectors, 0, post.ErrRegisteredProof},
		"damaged sector":               {window, []*sectordir.Sector{sectors[0], &damaged}, 0, post.ErrInvalidProof},
	} {
		if _, err := post.GenerateVanillaProofs(ctx, c.p, rnd, c.sectors, c.k, 1); !errors.Is(err, c.is) {
			t.Errorf("%s: %v, want %v", name, err, c.is)
		}
	}
}
