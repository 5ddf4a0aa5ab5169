package snapgen

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/sectordir"
	"github.com/cuzk-dev/cuzk/snap"
)

// MarkerSuffix names the file written beside the vanilla proofs, as `c1
// gen` marks its C1: their format (a JSON array of base64 strings, what
// Curio sends) has no field for it.
const MarkerSuffix = ".MADE-WITHOUT-SEALING"

// Provenance is what update.json's made_without_sealing says.
const Provenance = "cuzk snap gen: a consistent SnapDeals update made without a sector (uniform made-up sector key, new data one block repeated, tree_r_new built per h-range, made-up comm_c); for proving and benchmarks, never a sealed or updated sector"

// Files are the paths WriteFiles writes.
type Files struct {
	Update, VProofs, Marker string
}

// WriteFiles writes into dir (made if missing) update.json (the public
// values `cuzk verify-update`, `prove-update` and `rustref verify-update`
// read, marked made_without_sealing), vproofs.json (the vanilla partition
// proofs as Curio sends them, what `prove-update --vanilla` and `bench
// single --vanilla` read) and the marker vproofs.json+MarkerSuffix.
func WriteFiles(dir string, r *Result) (Files, error) {
	f := Files{Update: filepath.Join(dir, snap.UpdateFileName), VProofs: filepath.Join(dir, snap.ProofsFileName)}
	f.Marker = f.VProofs + MarkerSuffix
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return f, err
	}
	u := r.UpdateFile()
	uj, err := json.MarshalIndent(u, "", "  ")
	if err != nil {
		return f, err
	}
	if err := os.WriteFile(f.Update, append(uj, '\n'), 0o644); err != nil {
		return f, err
	}
	if err := sectordir.WriteProofList(f.VProofs, r.VanillaProofs); err != nil {
		return f, err
	}
	marker := fmt.Sprintf("%s\n%s: %v, %d partition proofs, comm_r_new %s\n", Provenance, snap.ProofsFileName, r.Params.Proof, len(r.VanillaProofs), u.CommRNew)
	return f, os.WriteFile(f.Marker, []byte(marker), 0o644)
}

// UpdateFile is update.json's contents for r.
func (r *Result) UpdateFile() *snap.UpdateFile {
	p, pub := r.Params.Proof, r.Public
	miner := r.Params.MinerID
	return &snap.UpdateFile{
		RegisteredProof: int64(p), RegisteredProofAPI: p.String(), SectorSize: uint64(p.SectorSize()),
		SectorNumber: r.Params.Sector, MinerID: &miner,
		CommROld: frHex(&pub.CommROld), CommRNew: frHex(&pub.CommRNew), CommDNew: hex.EncodeToString(pub.CommDNew[:]),
		CommC: frHex(&r.CommC), CommRLastNew: frHex(&r.CommRLastNew), Partitions: p.Partitions(),
		NewData:     fmt.Sprintf("the first %d nodes of detstream(%s), fr32-padded, repeated", r.Params.Period, snap.DefaultDataLabel),
		VProofsFile: snap.ProofsFileName, MadeWithoutSealing: Provenance,
	}
}

// frHex is a field element as update.json writes it: its 32
// little-endian bytes in hex.
func frHex(e *fr.Element) string {
	b := fr32.FromElement(e)
	return hex.EncodeToString(b[:])
}
