package snap_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/sectordir"
	"github.com/cuzk-dev/cuzk/snap"
)

// An update of a sealed CC sector gives the updated sector (comm_d_new,
// comm_r_new, tree_r_new, the sector key's commitments) and partition
// proofs that verify natively; misuse is refused.
func TestEncodeSector(t *testing.T) {
	ctx := context.Background()
	p := filecoin.StackedDrg2KiBUpdateV1
	key := testkit.CCSector(t, filecoin.StackedDrg2KiBV1_1, 3)
	data := testkit.SnapData(p, 3)
	u, err := snap.EncodeSector(ctx, p, key, data, 1)
	if err != nil {
		t.Fatal(err)
	}
	s := u.Sector
	if len(u.VanillaProofs) != p.Partitions() || s.Update == nil || s.Update.Proof != p || s.Update.CommROld != key.CommR ||
		s.Update.CommDOld != key.CommD || s.CommC != key.CommC || s.ID != key.ID || s.CommR != sectordir.CommR(key.CommC, s.TreeRLast.Root()) {
		t.Fatalf("updated sector %+v", s)
	}
	pps, err := snap.DecodePartitionProofs(u.VanillaProofs, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := snap.VerifyAll(ctx, u.Public(), pps); err != nil {
		t.Fatal(err)
	}
	// It is a sector like any: it can be written and loaded back.
	dir := t.TempDir()
	if err := sectordir.Write(dir, s); err != nil {
		t.Fatal(err)
	}
	// A random stand-in for a CC sector updates like a sealed one.
	if _, err := snap.EncodeSector(ctx, p, testkit.RandomSector(t, filecoin.StackedDrg2KiBV1_1, 4, 1), data, 1); err != nil {
		t.Fatalf("random sector: %v", err)
	}

	withData := *key
	withData.CommD[0] ^= 1
	for name, c := range map[string]struct {
		p    filecoin.RegisteredUpdateProof
		key  *sectordir.Sector
		data []byte
		is   error
	}{
		"updated already":  {p, s, data, snap.ErrSectorKey},
		"not CC":           {p, &withData, data, snap.ErrSectorKey},
		"8 MiB update":     {filecoin.StackedDrg8MiBUpdateV1, key, data, snap.ErrSize},
		"short data":       {p, key, data[:1024], snap.ErrSize},
		"unknown proof":    {5, key, data, snap.ErrRegisteredProof},
		"data not in fr32": {p, key, append(append([]byte(nil), data[:31]...), append([]byte{0xff}, data[32:]...)...), nil},
	} {
		_, err := snap.EncodeSector(ctx, c.p, c.key, c.data, 1)
		if err == nil || (c.is != nil && !errors.Is(err, c.is)) {
			t.Errorf("%s: %v, want %v", name, err, c.is)
		}
	}
}
