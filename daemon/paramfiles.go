package daemon

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// assumedSize is the sector size whose files a parameter directory without
// any is reported against: the one Curio seals.
const assumedSize = filecoin.SectorSize32GiB

// warnMissingParams logs one WARN per Filecoin kind the daemon serves whose
// .params or .vk files dir lacks, naming dir and the files, so that an
// operator sees a wrong or empty directory at start-up rather than as the
// first job's rejection. The sizes checked are those dir holds any kind's
// .params for (an operator fetches parameters per size), or 32GiB when it
// holds none; an unreadable dir is one WARN.
func warnMissingParams(log *slog.Logger, dir string) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		}
		log.Warn("parameter directory unusable: every proof will be rejected", "dir", dir, "err", err)
		return
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}
	type files struct{ params, vk string }
	byKind := map[proofkind.Kind]map[filecoin.SectorSize]files{}
	var sizes []filecoin.SectorSize
	for _, k := range filecoin.Kinds() {
		byKind[k] = map[filecoin.SectorSize]files{}
	}
	for _, size := range filecoin.PublishedSectorSizes() {
		held := false
		for _, k := range filecoin.Kinds() {
			c, err := filecoin.CircuitIDFor(k, size)
			if err != nil {
				continue
			}
			ps, err := c.ParameterSetID()
			if err != nil {
				continue
			}
			f := files{ps.ParamsFileName(), ps.VerifyingKeyFileName()}
			byKind[k][size] = f
			held = held || exists(f.params)
		}
		if held {
			sizes = append(sizes, size)
		}
	}
	if len(sizes) == 0 {
		sizes = []filecoin.SectorSize{assumedSize}
	}
	for _, k := range filecoin.Kinds() {
		var missing []string
		for _, size := range sizes {
			f, ok := byKind[k][size]
			if !ok {
				continue
			}
			for _, name := range []string{f.params, f.vk} {
				if !exists(name) {
					missing = append(missing, name)
				}
			}
		}
		if len(missing) > 0 {
			d, _ := proofkind.Lookup(k)
			log.Warn("parameter files missing: these proofs will be rejected", "kind", d.Name, "dir", dir,
				"sizes", sizeNames(sizes), "missing", strings.Join(missing, " "))
		}
	}
}

func sizeNames(sizes []filecoin.SectorSize) string {
	names := make([]string, len(sizes))
	for i, s := range sizes {
		names[i] = s.String()
	}
	return strings.Join(names, ",")
}
