package c1

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
)

// Wrapped is Curio's envelope around a C1 (lib/ffi/cuzk_funcs.go
// c1OutputWrapper, read by cuzk-core's C1OutputWrapper):
// {"SectorNum":n,"Phase1Out":"<base64 of the C1 JSON>","SectorSize":n}.
type Wrapped struct {
	SectorNum  uint64
	Phase1Out  []byte // the C1 JSON text (base64-decoded)
	SectorSize uint64
}

var wrapperFields = []string{"SectorNum", "Phase1Out", "SectorSize"}

// UnmarshalWrapped decodes the envelope. Phase1Out must be standard padded
// base64 without line breaks, as Rust's base64 STANDARD engine requires.
func UnmarshalWrapped(data []byte) (*Wrapped, error) {
	d := newDecoder(data)
	w := new(Wrapped)
	err := d.document(func() error {
		return d.object("C1OutputWrapper", wrapperFields, func(i int) (err error) {
			switch i {
			case 0:
				w.SectorNum, err = d.uint("SectorNum", math.MaxUint64)
			case 1:
				start := d.pos
				var s []byte
				if s, err = d.str("Phase1Out"); err != nil {
					return err
				}
				if w.Phase1Out, err = decodeBase64(s); err != nil {
					d.pos = start
					return d.fail(ErrBase64, "%v", err)
				}
			default:
				w.SectorSize, err = d.uint("SectorSize", math.MaxUint64)
			}
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	return w, nil
}

func decodeBase64(s []byte) ([]byte, error) {
	// Go's decoder skips CR and LF; Rust's does not.
	if i := bytes.IndexAny(s, "\r\n"); i >= 0 {
		return nil, fmt.Errorf("line break at character %d", i)
	}
	enc := base64.StdEncoding.Strict()
	out := make([]byte, enc.DecodedLen(len(s)))
	n, err := enc.Decode(out, s)
	if err != nil {
		return nil, err
	}
	return out[:n], nil
}

// MarshalJSON writes the envelope as Go's encoding/json writes Curio's
// struct: fields in declaration order, Phase1Out as padded standard base64.
func (w *Wrapped) MarshalJSON() ([]byte, error) {
	enc := base64.StdEncoding
	b := make([]byte, 0, enc.EncodedLen(len(w.Phase1Out))+64)
	b = append(b, `{"SectorNum":`...)
	b = strconv.AppendUint(b, w.SectorNum, 10)
	b = append(b, `,"Phase1Out":"`...)
	b = enc.AppendEncode(b, w.Phase1Out)
	b = append(b, `","SectorSize":`...)
	b = strconv.AppendUint(b, w.SectorSize, 10)
	return append(b, '}'), nil
}

// Wrap builds the envelope Curio sends for a C1.
func Wrap(o *Output, sectorNum uint64) *Wrapped {
	return &Wrapped{
		SectorNum:  sectorNum,
		Phase1Out:  o.AppendJSON(nil),
		SectorSize: uint64(o.RegisteredProof.SectorSize()),
	}
}

// ParseWrapped decodes the envelope, parses and validates the C1 inside it,
// and checks that SectorSize is the registered proof's sector size. Errors
// inside the C1 carry paths prefixed with "Phase1Out.".
func ParseWrapped(data []byte) (*Output, *Wrapped, error) {
	w, err := UnmarshalWrapped(data)
	if err != nil {
		return nil, nil, err
	}
	o, err := w.Parse()
	if err != nil {
		return nil, nil, err
	}
	return o, w, nil
}

// Parse parses and validates the wrapped C1 and checks SectorSize against
// its registered proof.
func (w *Wrapped) Parse() (*Output, error) {
	o, err := Parse(w.Phase1Out)
	if err != nil {
		if e, ok := err.(*Error); ok {
			e2 := *e
			e2.Path = "Phase1Out." + e.Path
			if e.Path == "" {
				e2.Path = "Phase1Out"
			}
			return nil, &e2
		}
		return nil, err
	}
	if want := uint64(o.RegisteredProof.SectorSize()); w.SectorSize != want {
		return nil, &Error{Path: "SectorSize", Offset: -1, Err: ErrProofMismatch,
			Msg: fmt.Sprintf("SectorSize %d, but %v seals %d-byte sectors", w.SectorSize, o.RegisteredProof, want)}
	}
	return o, nil
}

// ParseAny parses either a plain C1 or a wrapped one, telling them apart by
// the first key of the top-level object. w is nil for a plain C1.
func ParseAny(data []byte) (o *Output, w *Wrapped, err error) {
	if IsWrapped(data) {
		return ParseWrapped(data)
	}
	o, err = Parse(data)
	return o, nil, err
}

// IsWrapped reports whether data looks like Curio's envelope: an object
// whose first key is one of the envelope's.
func IsWrapped(data []byte) bool {
	d := newDecoder(data)
	if !d.consume('{') {
		return false
	}
	key, err := d.str("key")
	if err != nil {
		return false
	}
	return indexOf(wrapperFields, key) >= 0
}
