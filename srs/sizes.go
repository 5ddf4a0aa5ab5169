package srs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/regfile"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// ErrParamsNotFound is returned when a circuit's parameter file does not exist.
// Its errors also wrap ErrParamsUnusable.
var ErrParamsNotFound = errors.New("parameter file not found")

// ErrParamsUnusable is wrapped by every error that comes from a circuit's
// parameter files rather than from the request or the machine: missing,
// unreadable, truncated, malformed header or lengths, a point off the
// curve or outside the subgroup, a verifying key that differs from the one
// inside, an official name with another digest (and points that fail the
// check), a file that does not fit its circuit. The message names the file
// and, where there is one, the byte offset or field. The engine ends the
// job FAILED with it: the request was fine, and the next request may find
// the file repaired.
var ErrParamsUnusable = errors.New("parameter file unusable")

// unusable wraps err, a problem with the file at path, in
// ErrParamsUnusable, naming path unless err already does.
func unusable(path string, err error) error {
	if strings.Contains(err.Error(), path) {
		return fmt.Errorf("%w: %w", ErrParamsUnusable, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrParamsUnusable, path, err)
}

// notFound is the error of a missing parameter file.
func notFound(path string) error {
	return fmt.Errorf("%w: %w: %s", ErrParamsUnusable, ErrParamsNotFound, path)
}

// Sizes is what a parameter file says about its circuit, read from the
// vector lengths in the file header without decoding any point.
type Sizes struct {
	Domain  int // evaluation domain m = len(H)+1
	Inputs  int // len(IC), ONE included
	Aux     int // len(L)
	A       int // len(A)
	B       int // len(BG1) = len(BG2)
	H       int
	FileLen int64
	// Mapped says the manager maps the file instead of decoding it
	// (Options.Residency): the parameters cost the budget their verifying
	// key only, and the prover reads the points from the page cache.
	Mapped bool
	// KeepC says partitions keep their c vector (the CUDA backend takes
	// it; the CPU prover recomputes it, r1cs.AssignmentOptions.OmitC).
	KeepC bool
}

const (
	g1Mem = 96  // in-memory size of a bls.G1Affine
	g2Mem = 192 // in-memory size of a bls.G2Affine
	frMem = 32
)

// DecodedBytes is the heap the parameters occupy decoded (resident), one
// copy.
func (s Sizes) DecodedBytes() int64 {
	return int64(s.H+s.Aux+s.A+s.B+s.Inputs)*g1Mem + int64(s.B)*g2Mem
}

// ParamsBytes is the memory the parameters cost the budget: decoded, all
// of it; mapped, the verifying key alone (the points are file-backed, see
// FileBytes).
func (s Sizes) ParamsBytes() int64 {
	if s.Mapped {
		return int64(s.Inputs)*g1Mem + 3*g1Mem + 3*g2Mem
	}
	return s.DecodedBytes()
}

// FileBytes is the size of the mapping of mapped parameters (0 when they
// are decoded): page cache the kernel may evict, never the budget's.
func (s Sizes) FileBytes() int64 {
	if s.Mapped {
		return s.FileLen
	}
	return 0
}

// DeviceBytes is the least device memory one partition needs in the CUDA
// backend: supraseal keeps two domain-sized vectors of field elements for
// the NTTs (a third, and larger MSM windows, only when the device has
// room), so a device with less can never prove the circuit. A 32 GiB PoRep
// partition (2^27 rows) needs 8 GiB: it fits a 16 GB card, as the Rust
// cuzk shows.
func (s Sizes) DeviceBytes() int64 { return 2 * frMem * int64(s.Domain) }

// ProvingHint is the capacity hint for r1cs.NewAssignment: a, b and c get
// room for the whole domain, so neither synthesis nor the prover's FFT
// padding ever reallocates them.
func (s Sizes) ProvingHint() r1cs.Size {
	return r1cs.Size{Constraints: s.Domain, Inputs: s.Inputs, Aux: s.Aux}
}

// AssignmentOptions are the options of a partition's assignment.
func (s Sizes) AssignmentOptions() r1cs.AssignmentOptions {
	return r1cs.AssignmentOptions{OmitC: !s.KeepC}
}

func (s Sizes) proveShape() groth16.ProveShape {
	return groth16.ProveShape{Domain: s.Domain, Inputs: s.Inputs, Aux: s.Aux, B: s.B, KeepC: s.KeepC, Mapped: s.Mapped}
}

// WorkingSet is the memory reserved for one partition from synthesis until
// its proof is finished: its peak (groth16.ProveMemory).
func (s Sizes) WorkingSet() int64 {
	peak, _ := groth16.ProveMemory(s.proveShape())
	return peak
}

// WitnessBytes is one partition's input and aux assignment plus its three
// density bitmaps.
func (s Sizes) WitnessBytes() int64 {
	_, w := groth16.ProveMemory(s.proveShape())
	return w
}

// ABCBytes is the part of the working set returned to the budget when the
// prover's Start returns (everything but the witness's share, which the
// engine returns after Finish): Start consumes a, b, c and the scratch.
func (s Sizes) ABCBytes() int64 { return s.WorkingSet() - s.WitnessBytes() }

// ReadSizes reads the sizes of the .params file at path from its header.
func ReadSizes(path string) (Sizes, error) {
	// Opened without blocking: a FIFO put where the file was would
	// otherwise hold every Submit of the circuit in open(2).
	f, st, err := regfile.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Sizes{}, notFound(path)
		}
		return Sizes{}, unusable(path, err)
	}
	defer f.Close()
	s, err := readSizes(f, st.Size())
	if err != nil {
		return Sizes{}, unusable(path, fmt.Errorf("header: %w", err))
	}
	return s, nil
}

// readSizes walks the vector counts of a .params image: the verifying key
// (fixed points, then the IC count and points), then h, l, a, b_g1 (G1) and
// b_g2 (G2), each a big-endian u32 count followed by uncompressed points.
func readSizes(r io.ReaderAt, size int64) (Sizes, error) {
	const g1, g2 = groth16.G1Uncompressed, groth16.G2Uncompressed
	off := int64(3*g1 + 3*g2)
	var at int64 // where the vector count just read is
	count := func(what string, elem int64) (int, error) {
		at = off
		var b [4]byte
		if _, err := r.ReadAt(b[:], off); err != nil {
			return 0, fmt.Errorf("%w: reading %s count at offset %d: %w", groth16.ErrParamsFormat, what, off, err)
		}
		n := int64(binary.BigEndian.Uint32(b[:]))
		off += 4 + n*elem
		if off > size {
			return 0, fmt.Errorf("%w: %s count at offset %d says %d points, ending at byte %d, past the end of the file (%d bytes): %w",
				groth16.ErrParamsFormat, what, at, n, off, size, groth16.ErrTruncated)
		}
		return int(n), nil
	}
	var s Sizes
	var err error
	if s.Inputs, err = count("ic", g1); err != nil {
		return s, err
	}
	if s.H, err = count("h", g1); err != nil {
		return s, err
	}
	if s.Aux, err = count("l", g1); err != nil {
		return s, err
	}
	if s.A, err = count("a", g1); err != nil {
		return s, err
	}
	if s.B, err = count("b_g1", g1); err != nil {
		return s, err
	}
	nb2, err := count("b_g2", g2)
	if err != nil {
		return s, err
	}
	if nb2 != s.B {
		return s, fmt.Errorf("%w: b_g1 has %d points but b_g2 (count at offset %d) %d", groth16.ErrParamsFormat, s.B, at, nb2)
	}
	if off != size {
		return s, fmt.Errorf("%w: %d trailing bytes after b_g2, from offset %d", groth16.ErrParamsFormat, size-off, off)
	}
	if s.Inputs == 0 {
		return s, fmt.Errorf("%w: empty ic vector (count at offset %d)", groth16.ErrParamsFormat, int64(3*g1+3*g2))
	}
	s.Domain = s.H + 1
	if s.Domain&(s.Domain-1) != 0 {
		return s, fmt.Errorf("%w: h (count at offset %d) has %d points; a domain of %d is no power of two",
			groth16.ErrParamsFormat, int64(3*g1+3*g2)+4+int64(s.Inputs)*g1, s.H, s.Domain)
	}
	s.FileLen = size
	return s, nil
}
