package main

import (
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep/seal"
)

// deprecatedFlag registers old as another spelling of the flag current,
// already defined on fs: setting it sets current, after a one-line note on
// fs's output that old is deprecated. One name per concept in help and
// docs, while scripts written for the old name keep working.
func deprecatedFlag(fs *flag.FlagSet, old, current string) {
	f := fs.Lookup(current)
	if f == nil {
		panic("deprecatedFlag: no flag --" + current)
	}
	arg, _ := flag.UnquoteUsage(f)
	usage := "deprecated: use --" + current
	if arg != "" {
		usage += " `" + arg + "`"
	}
	fs.Var(&aliasValue{fs: fs, old: old, current: current}, old, usage)
}

// aliasValue forwards a deprecated flag to its current name.
type aliasValue struct {
	fs           *flag.FlagSet
	old, current string
}

// String is empty so that help prints no default for the alias: the
// current flag shows it.
func (a *aliasValue) String() string { return "" }

func (a *aliasValue) Set(s string) error {
	dash := "--"
	if len(a.old) == 1 {
		dash = "-" // a shorthand
	}
	fmt.Fprintf(a.fs.Output(), "%s: %s%s is deprecated; use --%s\n", a.fs.Name(), dash, a.old, a.current)
	return a.fs.Set(a.current, s)
}

// IsBoolFlag lets a deprecated boolean flag be given without a value, as
// its current name can.
func (a *aliasValue) IsBoolFlag() bool {
	b, ok := a.fs.Lookup(a.current).Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// paramsUsage is the help of the verify commands' --params.
const paramsUsage = "parameter `directory` holding the verifying key, under its official name (default: $" + filecoin.ParameterCacheEnv + " or " + filecoin.DefaultParameterCacheDir + "); --vk names the file instead"

// vkFileFor is the .vk file a verify command reads: vkFlag when
// given, else circuit c's official file in the parameter directory
// (paramsFlag, else filecoin.ParamDir's rule). The Window and Winning keys
// differ only by a hash in their names, which nobody should have to type.
func vkFileFor(vkFlag, paramsFlag string, c filecoin.CircuitID) (string, error) {
	if vkFlag != "" {
		return vkFlag, nil
	}
	ps, err := c.ParameterSetID()
	if err != nil {
		return "", err
	}
	return filepath.Join(filecoin.ParamDir(paramsFlag, os.LookupEnv), ps.VerifyingKeyFileName()), nil
}

// hex32 is a flag holding 32 bytes given as 64 hex characters (Filecoin
// byte order: the bytes as they are stored, Fr little-endian).
type hex32 struct {
	v   [32]byte
	set bool
}

func (h *hex32) String() string { return hex.EncodeToString(h.v[:]) }

func (h *hex32) Set(s string) error {
	b, err := parseHex32(s)
	if err != nil {
		return err
	}
	h.v, h.set = b, true
	return nil
}

func parseHex32(s string) ([32]byte, error) {
	var out [32]byte
	s = strings.TrimPrefix(strings.TrimSpace(s), "0x")
	if len(s) != 64 {
		return out, fmt.Errorf("want 64 hex characters, got %d", len(s))
	}
	if _, err := hex.Decode(out[:], []byte(s)); err != nil {
		return out, err
	}
	return out, nil
}

// sectorSizeFlag accepts "2KiB", "8MiB", "512MiB", "32GiB", "64GiB" (any
// size the command supports), the same with "K", "KB", "M", "MB", "G",
// "GB" (binary, as Curio and lotus read sizes: 32G and 32GB are 32 GiB),
// or a byte count.
type sectorSizeFlag struct {
	v   filecoin.SectorSize
	set bool
	// allowed is what the command can work with, which its errors list;
	// nil means every size rust-fil-proofs accepts.
	allowed []filecoin.SectorSize
}

// sealableSizes are the sizes seal and demo seal in memory: published ones
// (a V1_1 seal proof exists) up to seal.MaxSectorSize.
func sealableSizes() []filecoin.SectorSize {
	var out []filecoin.SectorSize
	for _, sz := range filecoin.PublishedSectorSizes() {
		if sz <= seal.MaxSectorSize {
			out = append(out, sz)
		}
	}
	return out
}

func (f *sectorSizeFlag) String() string {
	if !f.set {
		return ""
	}
	return f.v.String()
}

func (f *sectorSizeFlag) sizes() []filecoin.SectorSize {
	if f.allowed != nil {
		return f.allowed
	}
	return filecoin.SupportedSectorSizes()
}

func (f *sectorSizeFlag) Set(s string) error {
	for _, sz := range f.sizes() {
		if strings.EqualFold(sz.String(), s) {
			f.v, f.set = sz, true
			return nil
		}
	}
	n, err := parseBinarySize(s)
	if err == nil {
		for _, sz := range f.sizes() {
			if uint64(sz) == n {
				f.v, f.set = sz, true
				return nil
			}
		}
	}
	names := make([]string, 0)
	for _, sz := range f.sizes() {
		names = append(names, sz.String())
	}
	return fmt.Errorf("unsupported sector size %q (one of %s, or bytes)", s, strings.Join(names, ", "))
}

// sealProofFor picks the registered seal proof: an explicit id, else the
// V1_1 proof of the sector size (what Curio seals today).
func sealProofFor(size sectorSizeFlag, id int64) (filecoin.RegisteredSealProof, error) {
	if id >= 0 {
		p, err := filecoin.SealProofFromID(uint64(id))
		if err != nil {
			return 0, err
		}
		if size.set && p.SectorSize() != size.v {
			return 0, fmt.Errorf("registered proof %v is for %v sectors, not %v", p, p.SectorSize(), size.v)
		}
		return p, nil
	}
	if !size.set {
		return 0, fmt.Errorf("give --sector-size or --registered-proof")
	}
	for _, p := range filecoin.SealProofs() {
		if p.SectorSize() == size.v && p.APIVersion() == filecoin.V1_1_0 && len(p.Features()) == 0 {
			return p, nil
		}
	}
	return 0, fmt.Errorf("no V1_1 seal proof for %v", size.v)
}

// parseBinarySize reads "2048", "2K", "2KB", "2KiB", "32G", "32 GiB"
// (case-insensitive; every unit a power of 1024, as go-units' RAMInBytes
// that Curio and lotus use for sector sizes).
func parseBinarySize(s string) (uint64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("size %q: no number", s)
	}
	n, err := strconv.ParseUint(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: %w", s, err)
	}
	unit := strings.TrimSpace(t[i:])
	shift := map[string]uint{"": 0, "b": 0,
		"k": 10, "kb": 10, "kib": 10, "m": 20, "mb": 20, "mib": 20,
		"g": 30, "gb": 30, "gib": 30, "t": 40, "tb": 40, "tib": 40}
	sh, ok := shift[unit]
	if !ok {
		return 0, fmt.Errorf("size %q: unknown unit %q", s, unit)
	}
	if n > (1<<64-1)>>sh {
		return 0, fmt.Errorf("size %q: too large", s)
	}
	return n << sh, nil
}
