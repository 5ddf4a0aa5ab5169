package snap

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/internal/jsonfile"
	"github.com/cuzk-dev/cuzk/sectordir"
)

// The files EncodeDir writes besides the updated sector.
const (
	UpdateFileName = "update.json"
	ProofsFileName = "vproofs.json"
)

// UpdateFile is update.json: an update's public values, what
// verify-update needs. Its field names are those of the rustref update
// goldens (testdata/rustref/update/*/update.json), so either reads.
type UpdateFile struct {
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
	// MadeWithoutSealing is set, to what made them, on the public values of
	// an update made without a sector (cuzk snap gen).
	MadeWithoutSealing string `json:"made_without_sealing,omitempty"`
}

// ReadUpdateFile reads update.json (EncodeDir's, or a rustref one).
func ReadUpdateFile(path string) (*UpdateFile, error) {
	return jsonfile.Read(path, ParseUpdateFile)
}

// ParseUpdateFile decodes update.json's contents.
func ParseUpdateFile(raw []byte) (*UpdateFile, error) {
	var u UpdateFile
	if err := json.Unmarshal(raw, &u); err != nil {
		return nil, err
	}
	if !jsonfile.Has(raw, "registered_proof") { // not 0, 2 KiB
		return nil, errors.New("no registered_proof")
	}
	return &u, nil
}

// LoadKey loads the sector key an update starts from: a sealed CC sector
// in sectordir's layout, not updated yet. Its errors name dir and wrap
// ErrSectorKey.
func LoadKey(dir string) (*sectordir.Sector, error) {
	key, err := sectordir.Load(dir)
	if err != nil {
		return nil, err
	}
	if key.Update != nil {
		return nil, fmt.Errorf("%w: sector dir %s holds an updated sector (%v); SnapDeals updates a sealed CC sector", ErrSectorKey, dir, key.Update.Proof)
	}
	if !key.CC() {
		return nil, fmt.Errorf("%w: sector dir %s: sector %d is not committed capacity (comm_d %x is not an all-zero sector's; seal it with --cc)", ErrSectorKey, dir, key.ID, key.CommD)
	}
	return key, nil
}

// EncodeDir updates key with padded data (EncodeSector, the update proof
// of its size) and writes to out (made if missing) update.json, the
// vanilla partition proofs Curio would send (vproofs.json) and the updated
// sector in sectordir's layout. dataName says in update.json where the
// data came from.
func EncodeDir(ctx context.Context, key *sectordir.Sector, padded []byte, dataName, out string, workers int) (*UpdateFile, error) {
	size := key.SectorSize()
	p, err := filecoin.UpdateProofForSize(size)
	if err != nil {
		return nil, err
	}
	u, err := EncodeSector(ctx, p, key, padded, workers)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	if err := sectordir.WriteProofList(filepath.Join(out, ProofsFileName), u.VanillaProofs); err != nil {
		return nil, err
	}
	commRLastNew := u.Sector.CommRLast()
	uf := &UpdateFile{
		RegisteredProof: int64(p), RegisteredProofAPI: p.String(), SealRegisteredProof: int64(key.SealProof),
		SectorSize: uint64(size), SectorNumber: key.ID, MinerID: key.MinerID,
		CommROld: frHex(&key.CommR), CommRNew: frHex(&u.Sector.CommR), CommDNew: hex.EncodeToString(u.Sector.CommD[:]),
		CommDOld: hex.EncodeToString(key.CommD[:]), CommC: frHex(&key.CommC), CommRLastNew: frHex(&commRLastNew),
		Partitions: p.Partitions(), NewData: dataName, VProofsFile: ProofsFileName,
	}
	uj, err := json.MarshalIndent(uf, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(out, UpdateFileName), append(uj, '\n'), 0o644); err != nil {
		return nil, err
	}
	if err := sectordir.Write(out, u.Sector); err != nil {
		return nil, err
	}
	return uf, nil
}

// frHex is a field element as update.json writes it: its 32
// little-endian bytes in hex.
func frHex(e *fr.Element) string {
	b := fr32.FromElement(e)
	return hex.EncodeToString(b[:])
}
