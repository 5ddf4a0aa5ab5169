package seal

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/cuzk-dev/cuzk/internal/jsonfile"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/sectordir"
)

// The files WriteDir writes besides the sector.
const (
	C1Name        = "c1.json"
	C1WrappedName = "c1-wrapped.json"
	CommDRName    = "commdr.json"
)

// SectorFiles names the sector's files in sectordir's layout, for people.
const SectorFiles = sectordir.ManifestName + ", " + sectordir.SealedName + ", " + sectordir.PAuxName + ", " + sectordir.TreeRLastName

// CommDR is commdr.json: everything verify-seal needs about a sector, in
// hex (the byte strings) and decimal.
type CommDR struct {
	CommD           string `json:"comm_d"`
	CommR           string `json:"comm_r"`
	ProverID        string `json:"prover_id"`
	Ticket          string `json:"ticket"`
	Seed            string `json:"seed"`
	PoRepID         string `json:"porep_id"`
	Sector          uint64 `json:"sector"`
	RegisteredProof uint64 `json:"registered_proof"`
	SectorSize      uint64 `json:"sector_size"`
	// MadeWithoutSealing is set, to what made them, on the public values of
	// an input made without sealing (cuzk c1 gen): no sector has them.
	MadeWithoutSealing string `json:"made_without_sealing,omitempty"`
}

// CommDRFor is the commdr.json of the C1 output o of sector of proverID.
func CommDRFor(o *c1.Output, proverID [32]byte, sector uint64) CommDR {
	porepID := o.RegisteredProof.PoRepID()
	return CommDR{
		CommD: hex.EncodeToString(o.CommD[:]), CommR: hex.EncodeToString(o.CommR[:]),
		ProverID: hex.EncodeToString(proverID[:]), Ticket: hex.EncodeToString(o.Ticket[:]),
		Seed: hex.EncodeToString(o.Seed[:]), PoRepID: hex.EncodeToString(porepID[:]),
		Sector: sector, RegisteredProof: uint64(o.RegisteredProof), SectorSize: uint64(o.RegisteredProof.SectorSize()),
	}
}

// ReadCommDR reads a commdr.json.
func ReadCommDR(path string) (*CommDR, error) {
	return jsonfile.Read(path, func(raw []byte) (*CommDR, error) {
		var c CommDR
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, err
		}
		return &c, nil
	})
}

// WriteDir writes what `cuzk seal --out` leaves in dir (made if missing):
// the C1 output of the seal of in with seed (c1.json), the same in
// Curio's envelope (c1-wrapped.json), its public values (commdr.json) and
// the sector of miner that PoSt and SnapDeals prove from (sectordir's
// layout).
func WriteDir(dir string, in Input, seed [32]byte, o *c1.Output, r *Replica, miner uint64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	raw, err := o.MarshalJSON()
	if err != nil {
		return err
	}
	wrapped, err := json.Marshal(c1.Wrap(o, in.Sector))
	if err != nil {
		return err
	}
	cdr, err := json.MarshalIndent(CommDRFor(o, in.ProverID, in.Sector), "", "  ")
	if err != nil {
		return err
	}
	for name, b := range map[string][]byte{C1Name: raw, C1WrappedName: wrapped, CommDRName: append(cdr, '\n')} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return sectordir.Write(dir, r.Sector(miner))
}
