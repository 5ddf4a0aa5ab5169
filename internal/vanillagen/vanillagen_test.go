package vanillagen

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/post"
	"github.com/cuzk-dev/cuzk/snap"
)

// The vanilla proofs of sectors sealed here decode and verify natively
// against the sealed commitments, and are deterministic.
func TestVanillaProofsVerify(t *testing.T) {
	ctx := context.Background()
	sectors, err := SealMany(ctx, filecoin.StackedDrg2KiBV1_1, 1000, 1, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	rnd := Randomness(7)
	if err := post.CheckRandomness(rnd); err != nil {
		t.Fatal(err)
	}
	window := filecoin.StackedDrgWindow2KiBV1_2
	for _, k := range []int{0, 3} {
		raw, err := WindowPoSt(window, rnd, sectors, k)
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
		if err := pt.CheckSectors([]post.PublicSector{sectors[0].Public(), sectors[1].Public()}); err != nil {
			t.Fatal(err)
		}
		again, _ := WindowPoSt(window, rnd, sectors, k)
		if !bytes.Equal(again[1], raw[1]) {
			t.Fatal("not deterministic")
		}
	}
	// Before V1_2 the partition index enters the challenges.
	v1 := filecoin.StackedDrgWindow2KiBV1
	raw, err := WindowPoSt(v1, rnd, sectors, 1)
	if err != nil {
		t.Fatal(err)
	}
	vs, _ := post.DecodeVanillaProofs(raw, v1)
	pt, _ := post.NewWindowPartition(v1, rnd, vs, 1)
	if err := pt.Verify(ctx, 1); err != nil {
		t.Fatal(err)
	}
	pt.Index = 0
	if err := pt.Verify(ctx, 1); !errors.Is(err, post.ErrChallenge) {
		t.Fatalf("V1 proofs of partition 1 checked as partition 0: %v", err)
	}

	winning := filecoin.StackedDrgWinning2KiBV1
	raw, err = WinningPoSt(winning, rnd, sectors[0])
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

	up := filecoin.StackedDrg2KiBUpdateV1
	u, err := SnapUpdate(up, sectors[1], 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(u.VanillaProofs) != up.Partitions() || u.CommROld != sectors[1].CommR {
		t.Fatalf("%d partitions", len(u.VanillaProofs))
	}
	pps, err := snap.DecodePartitionProofs(u.VanillaProofs, up)
	if err != nil {
		t.Fatal(err)
	}
	if err := snap.VerifyAll(ctx, up, u.Public(0), pps); err != nil {
		t.Fatal(err)
	}

	// Misuse is refused.
	if _, err := WindowPoSt(winning, rnd, sectors, 0); !errors.Is(err, ErrSectors) {
		t.Errorf("winning proof as window: %v", err)
	}
	if _, err := WindowPoSt(window, rnd, append(sectors, sectors[0]), 0); !errors.Is(err, ErrSectors) {
		t.Errorf("three sectors in a 2 KiB partition: %v", err)
	}
	if _, err := WinningPoSt(filecoin.StackedDrgWinning8MiBV1, rnd, sectors[0]); !errors.Is(err, ErrSectors) {
		t.Errorf("8 MiB proof of a 2 KiB sector: %v", err)
	}
}

// A random stand-in sector gives vanilla proofs that verify like a sealed
// one's.
func TestRandomSector(t *testing.T) {
	ctx := context.Background()
	s, err := RandomSector(filecoin.StackedDrg2KiBV1_1, 1000, 5, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	rnd := Randomness(1)
	p := filecoin.StackedDrgWinning2KiBV1
	raw, err := WinningPoSt(p, rnd, s)
	if err != nil {
		t.Fatal(err)
	}
	vs, _ := post.DecodeVanillaProofs(raw, p)
	wp, err := post.NewWinningPartition(p, rnd, vs)
	if err != nil {
		t.Fatal(err)
	}
	if err := wp.Verify(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := wp.CheckSectors([]post.PublicSector{s.Public()}); err != nil {
		t.Fatal(err)
	}
	u, err := SnapUpdate(filecoin.StackedDrg2KiBUpdateV1, s, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	pps, _ := snap.DecodePartitionProofs(u.VanillaProofs, u.Proof)
	if err := snap.VerifyAll(ctx, u.Proof, u.Public(0), pps); err != nil {
		t.Fatal(err)
	}
	o, n, d := u.Request()
	if len(o) != 32 || len(n) != 32 || len(d) != 32 || [32]byte(d) != u.CommDNew || [32]byte(o) != Bytes(s.CommR) {
		t.Fatal("request fields")
	}
}
