package c1gen

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/seal"
)

// MarkerSuffix names the file written beside every generated C1, as
// `params gen` marks its INSECURE parameters: the C1 format has no field
// for it and strict readers (upstream's, ours) refuse unknown ones.
const MarkerSuffix = ".MADE-WITHOUT-SEALING"

// Provenance is what commdr.json's made_without_sealing says.
const Provenance = "cuzk c1 gen: a consistent C1 output made without sealing (labels computed at the challenged nodes only, sparse tree_c and tree_r_last, data one block repeated); for proving and benchmarks, never a sealed sector"

// WrappedJSON is the C1 in Curio's envelope, as Curio's PoRep task sends
// it to cuzk.
func (r *Result) WrappedJSON() ([]byte, error) {
	return json.Marshal(c1.Wrap(r.Output, r.Params.Sector))
}

// Files are the paths WriteFiles writes.
type Files struct {
	C1, CommDR, Marker string
}

// WriteFiles writes the C1 of r to path (Curio's envelope when wrapped),
// its public values as commdr.json in the same directory (what `cuzk
// verify-seal --commdr` and `rustref verify-seal` read), and the marker
// path+MarkerSuffix. The directory is made if missing.
func WriteFiles(path string, wrapped bool, r *Result) (Files, error) {
	f := Files{C1: path, CommDR: filepath.Join(filepath.Dir(path), seal.CommDRName), Marker: path + MarkerSuffix}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return f, err
	}
	o := r.Output
	raw := o.AppendJSON(nil)
	if wrapped {
		var err error
		if raw, err = r.WrappedJSON(); err != nil {
			return f, err
		}
	}
	cdr := seal.CommDRFor(o, r.Params.ProverID, r.Params.Sector)
	cdr.MadeWithoutSealing = Provenance
	cdrJSON, err := json.MarshalIndent(cdr, "", "  ")
	if err != nil {
		return f, err
	}
	marker := fmt.Sprintf("%s\n%s: %v sector %d, comm_r %x\n", Provenance, filepath.Base(path), o.RegisteredProof, r.Params.Sector, o.CommR)
	for _, w := range []struct {
		path string
		b    []byte
	}{{f.C1, raw}, {f.CommDR, append(cdrJSON, '\n')}, {f.Marker, []byte(marker)}} {
		if err := os.WriteFile(w.path, w.b, 0o644); err != nil {
			return f, err
		}
	}
	return f, nil
}
