package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/sectordir"
	"github.com/cuzk-dev/cuzk/snap"
)

// updateFile is update.json. Its field names are those of the rustref
// update goldens (testdata/rustref/update/*/update.json), so verify-update
// --update reads either.
type updateFile struct {
	RegisteredProof     int64   `json:"registered_proof"`
	RegisteredProofAPI  string  `json:"registered_proof_api,omitempty"`
	SealRegisteredProof int64   `json:"seal_registered_proof,omitempty"`
	SectorSize          uint64  `json:"sector_size,omitempty"`
	SectorNumber        uint64  `json:"sector_number"`
	MinerID             *uint64 `json:"miner_id,omitempty"`
	CommROld            string  `json:"comm_r_old"`
	CommRNew            string  `json:"comm_r_new"`
	CommDNew            string  `json:"comm_d_new"`
	CommDOld            string  `json:"comm_d_old,omitempty"`
	CommC               string  `json:"comm_c,omitempty"`
	CommRLastNew        string  `json:"comm_r_last_new,omitempty"`
	Partitions          int     `json:"partitions,omitempty"`
	NewData             string  `json:"new_data,omitempty"`
	VProofsFile         string  `json:"vproofs_file,omitempty"`
}

func runSnapEncode(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("snap encode", stderr)
	dir := fs.String("sector-dir", "", "sealed CC sector `directory` (cuzk seal --cc --out DIR)")
	out := fs.String("out", "", "output `directory`: update.json, vproofs.json and the updated sector (same layout as the sector dir)")
	dataPath := fs.String("data", "", "new data `file`: sector size × 127/128 raw bytes (fr32-padded here) or sector size padded bytes (default: deterministic data, label "+snap.DefaultDataLabel+")")
	workers := fs.Int("workers", 0, "worker goroutines (0 = all CPUs)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk snap encode")
	if *dir == "" || *out == "" {
		return fail("--sector-dir and --out are required")
	}
	if *workers <= 0 {
		*workers = runtime.NumCPU()
	}
	if sameDir(*dir, *out) {
		return fail("--out %s is the sector dir: the sector key is kept, write the update elsewhere", *out)
	}
	key, err := sectordir.Load(*dir)
	if err != nil {
		return fail("%v", err)
	}
	size := key.SectorSize()
	if key.Update != nil {
		return fail("sector dir %s holds an updated sector (%v); SnapDeals updates a sealed CC sector", *dir, key.Update.Proof)
	}
	if !key.CC() {
		return fail("sector dir %s: sector %d is not committed capacity (comm_d %x is not an all-zero sector's; seal it with --cc)", *dir, key.ID, key.CommD)
	}
	p, err := filecoin.UpdateProofForSize(size)
	if err != nil {
		return fail("%v", err)
	}
	raw := snap.DefaultData(size)
	dataName := "detstream(" + snap.DefaultDataLabel + ")"
	if *dataPath != "" {
		if raw, err = os.ReadFile(*dataPath); err != nil {
			return fail("%v", err)
		}
		dataName = *dataPath
	}
	padded, err := seal.PadData(raw, size)
	if err != nil {
		return fail("--data %s: %v", dataName, err)
	}

	start := time.Now()
	u, err := snap.EncodeSector(ctx, p, key, padded, *workers)
	if err != nil {
		return fail("%v", err)
	}
	took := time.Since(start)
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fail("%v", err)
	}
	if err := writeBase64List(filepath.Join(*out, "vproofs.json"), u.VanillaProofs); err != nil {
		return fail("%v", err)
	}
	commRLastNew := u.Sector.CommRLast()
	uf := updateFile{
		RegisteredProof: int64(p), RegisteredProofAPI: p.String(), SealRegisteredProof: int64(key.SealProof),
		SectorSize: uint64(size), SectorNumber: key.ID, MinerID: key.MinerID,
		CommROld: frHex(&key.CommR), CommRNew: frHex(&u.Sector.CommR), CommDNew: hex.EncodeToString(u.Sector.CommD[:]),
		CommDOld: hex.EncodeToString(key.CommD[:]), CommC: frHex(&key.CommC), CommRLastNew: frHex(&commRLastNew),
		Partitions: p.Partitions(), NewData: dataName, VProofsFile: "vproofs.json",
	}
	uj, _ := json.MarshalIndent(&uf, "", "  ")
	if err := os.WriteFile(filepath.Join(*out, "update.json"), append(uj, '\n'), 0o644); err != nil {
		return fail("%v", err)
	}
	if err := sectordir.Write(*out, u.Sector); err != nil {
		return fail("%v", err)
	}
	fmt.Fprintf(stdout, "updated %v sector %d with %s in %v (%v, %d partitions)\ncomm_r_old %s\ncomm_r_new %s\ncomm_d_new %s\nwrote %s/{update.json,vproofs.json} and the updated sector\n",
		size, key.ID, dataName, took.Round(time.Millisecond), p, p.Partitions(), uf.CommROld, uf.CommRNew, uf.CommDNew, *out)
	fmt.Fprintf(stdout, "verify a proof of it with: cuzk verify-update --vk FILE --proof FILE --update %s\n", filepath.Join(*out, "update.json"))
	return exitOK
}

// sameDir reports whether a and b name the same existing directory (b may
// not exist yet; a missing a is reported by sectordir.Load).
func sameDir(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
