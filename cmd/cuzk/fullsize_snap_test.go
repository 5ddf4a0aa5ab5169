package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// snapFullsize holds partition 0 of a 32 GiB SnapDeals update made
// without a sector (cuzk snap gen --sector-size 32GiB), proven alone by
// `cuzk prove-update --partition 0` on a 24 GiB, 2-core machine with
// INSECURE test parameters (scripts/fullsize-snap.sh DIR --partition 0;
// docs/performance.md) and accepted by rust-fil-proofs (tools/rustref
// verify-update --partition 0): the proof, the verifying key under its
// official name and the public values (update.json; its vproofs.json,
// 12 MB, is made again by snap gen).
// snap-update-64GiB-partition0 is the same at 64 GiB (tree 8-8-2).
var snapFullsize = []struct{ size, dir, vk string }{
	{"32GiB", "../../testdata/fullsize/snap-update-32GiB-partition0", "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.vk"},
	{"64GiB", "../../testdata/fullsize/snap-update-64GiB-partition0", "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.vk"},
}

// TestFullSizeSnapPartitionGolden: verify-update --partition 0 accepts the
// partition's 192 bytes with the golden's public values and rejects them
// with comm_r_new, comm_d_new or comm_r_old changed, with A negated, and
// against partition 1's inputs.
func TestFullSizeSnapPartitionGolden(t *testing.T) {
	for _, g := range snapFullsize {
		t.Run(g.size, func(t *testing.T) {
			if _, err := os.Stat(g.dir); os.IsNotExist(err) {
				t.Skipf("no %s golden", g.size)
			}
			snapPartitionGolden(t, filepath.Join(g.dir, g.vk), filepath.Join(g.dir, "proof.bin"), filepath.Join(g.dir, "update.json"))
		})
	}
}

func snapPartitionGolden(t *testing.T, vk, proof, update string) {
	raw := readGoldenProof(t, proof, 1)
	want, err := os.ReadFile(update)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	changed := func(field string) string { return withHexFlipped(t, want, dir, field) }
	flippedPath := withANegated(t, raw, dir, 0)
	cases := []struct {
		name, proof, update, partition string
		want                           int
	}{
		{"partition 0", proof, update, "0", exitOK},
		{"comm_r_new changed", proof, changed("comm_r_new"), "0", exitInvalid},
		{"comm_d_new changed", proof, changed("comm_d_new"), "0", exitInvalid},
		{"comm_r_old changed", proof, changed("comm_r_old"), "0", exitInvalid},
		{"a proof byte changed", flippedPath, update, "0", exitInvalid},
		{"partition 1's inputs", proof, update, "1", exitInvalid},
	}
	for _, tc := range cases {
		var out, errb bytes.Buffer
		args := []string{"verify-update", "--vk", vk, "--proof", tc.proof, "--update", tc.update, "--partition", tc.partition}
		if got := run(context.Background(), args, &out, &errb); got != tc.want {
			t.Errorf("%s: exit %d, want %d\n%s%s", tc.name, got, tc.want, out.String(), errb.String())
		}
	}
}

// snapWholeDir holds a whole 32 GiB SnapDeals update (16 partitions) made
// without a sector (cuzk snap gen --sector-size 32GiB) and proven through
// the daemon as Curio's Snap task sends it, on a 24 GiB, 2-core machine
// with INSECURE test parameters (scripts/fullsize-snap.sh DIR;
// docs/performance.md), accepted by rust-fil-proofs (tools/rustref
// verify-update): the 3,072-byte proof, the verifying key under its
// official name and the public values (update.json, the same as the
// partition-0 golden's: snap gen is deterministic).
const snapWholeDir = "../../testdata/fullsize/snap-update-32GiB"

// TestFullSizeSnapGolden: verify-update accepts the whole proof and each
// partition of it, and rejects it with comm_r_new changed or the last
// partition's A negated (that partition alone too, while partition 0 of
// the same bytes still passes).
func TestFullSizeSnapGolden(t *testing.T) {
	vk := filepath.Join(snapWholeDir, snapFullsize[0].vk)
	proof := filepath.Join(snapWholeDir, "proof.bin")
	update := filepath.Join(snapWholeDir, "update.json")
	const partitions = 16
	raw := readGoldenProof(t, proof, partitions)
	want, err := os.ReadFile(update)
	if err != nil {
		t.Fatal(err)
	}
	if p0, err := os.ReadFile(filepath.Join(snapFullsize[0].dir, "update.json")); err != nil || !bytes.Equal(p0, want) {
		t.Fatalf("update.json differs from the partition-0 golden's (the same snap gen output): %v", err)
	}
	dir := t.TempDir()
	flippedPath := withANegated(t, raw, dir, partitions-1)
	last := strconv.Itoa(partitions - 1)
	type check struct {
		name, proof, update string
		partition           []string
		want                int
	}
	cases := []check{
		{"whole proof", proof, update, nil, exitOK},
		{"comm_r_new changed", proof, withHexFlipped(t, want, dir, "comm_r_new"), nil, exitInvalid},
		{"a proof byte changed", flippedPath, update, nil, exitInvalid},
		{"last partition, byte changed", flippedPath, update, []string{"--partition", last}, exitInvalid},
		{"first partition of the changed proof", flippedPath, update, []string{"--partition", "0"}, exitOK},
	}
	for k := range partitions {
		cases = append(cases, check{fmt.Sprintf("partition %d", k), proof, update, []string{"--partition", strconv.Itoa(k)}, exitOK})
	}
	for _, tc := range cases {
		var out, errb bytes.Buffer
		args := append([]string{"verify-update", "--vk", vk, "--proof", tc.proof, "--update", tc.update}, tc.partition...)
		if got := run(context.Background(), args, &out, &errb); got != tc.want {
			t.Errorf("%s: exit %d, want %d\n%s%s", tc.name, got, tc.want, out.String(), errb.String())
		}
	}
}
