package c1

import (
	"fmt"
	"math"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cuzk-dev/cuzk/filecoin"
)

// Unmarshal decodes a C1 JSON document (syntax and types only; see
// [Output.Validate] and [Parse]).
func Unmarshal(data []byte) (*Output, error) {
	d := newDecoder(data)
	out := new(Output)
	if err := d.document(func() error { return d.output(out) }); err != nil {
		return nil, err
	}
	return out, nil
}

// UnmarshalJSON implements json.Unmarshaler with [Unmarshal] (no
// validation), so an Output can sit inside other encoding/json types.
func (o *Output) UnmarshalJSON(data []byte) error {
	v, err := Unmarshal(data)
	if err != nil {
		return err
	}
	*o = *v
	return nil
}

// UnmarshalVanillaProofs decodes the rust-fil-proofs-level vanilla proofs
// JSON, a bare Vec<Vec<Proof>> (partition-major), as written by
// serde_json::to_vec(&vanilla_proofs).
func UnmarshalVanillaProofs(data []byte) ([][]Proof, error) {
	d := newDecoder(data)
	var proofs [][]Proof
	if err := d.document(func() (err error) { proofs, err = d.partitions(); return }); err != nil {
		return nil, err
	}
	return proofs, nil
}

// slabSize is the number of domains allocated at once; a 2 KiB C1 needs
// about 3,000 and a 32 GiB one about 300,000.
const slabSize = 4096

// decoder is a recursive-descent reader for exactly the C1 schema. It keeps
// the JSON path of the value being read so that errors can name it.
type decoder struct {
	data    []byte
	pos     int
	path    path
	slab    [][32]byte // unused tail of the current domain slab
	scratch [][32]byte // domains of the list being read
}

func newDecoder(data []byte) *decoder {
	return &decoder{data: data, path: make(path, 0, 16)}
}

func (d *decoder) document(value func() error) error {
	if err := value(); err != nil {
		return err
	}
	d.ws()
	if d.pos != len(d.data) {
		return d.fail(ErrSyntax, "trailing data after the JSON value: %s", d.found())
	}
	return nil
}

// fail reports an error at the current path and position.
func (d *decoder) fail(sentinel error, format string, args ...any) error {
	return &Error{Path: d.path.String(), Offset: d.pos, Msg: fmt.Sprintf(format, args...), Err: sentinel}
}

// found describes the input at the current position for error messages.
func (d *decoder) found() string {
	if d.pos >= len(d.data) {
		return "end of input"
	}
	c := d.data[d.pos]
	switch {
	case c == '"':
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == 'n':
		return "null"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a number"
	case c >= 0x20 && c < 0x7f:
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// typeOrSyntax picks ErrType when the input holds some other JSON value and
// ErrSyntax when it holds no value at all.
func (d *decoder) typeOrSyntax() error {
	if d.pos < len(d.data) {
		switch c := d.data[d.pos]; {
		case c == '"' || c == '{' || c == '[' || c == 'n' || c == 't' || c == 'f' || c == '-' || (c >= '0' && c <= '9'):
			return ErrType
		}
	}
	return ErrSyntax
}

func (d *decoder) ws() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// consume skips whitespace and reports whether the next byte is c, consuming
// it if so.
func (d *decoder) consume(c byte) bool {
	d.ws()
	if d.pos < len(d.data) && d.data[d.pos] == c {
		d.pos++
		return true
	}
	return false
}

func (d *decoder) expectColon() error {
	if !d.consume(':') {
		return d.fail(ErrSyntax, "expected ':' after object key, found %s", d.found())
	}
	return nil
}

// object reads an object whose keys must all be in fields (at most 32),
// calling field(i) with the path extended by the key to read each value.
// Every field is required.
func (d *decoder) object(what string, fields []string, field func(i int) error) error {
	if !d.consume('{') {
		return d.fail(d.typeOrSyntax(), "expected %s (an object), found %s", what, d.found())
	}
	var seen uint32
	if !d.consume('}') {
		for {
			d.ws()
			keyPos := d.pos
			key, err := d.str("an object key")
			if err != nil {
				return err
			}
			i := indexOf(fields, key)
			if i < 0 {
				k := clipKey(key)
				return &Error{Path: d.path.withKey(k), Offset: keyPos, Err: ErrUnknownField,
					Msg: fmt.Sprintf("%s has no field %q", what, k)}
			}
			if seen&(1<<i) != 0 {
				return &Error{Path: d.path.withKey(fields[i]), Offset: keyPos, Err: ErrDuplicateField,
					Msg: fmt.Sprintf("field %q appears twice", fields[i])}
			}
			seen |= 1 << i
			if err := d.expectColon(); err != nil {
				return err
			}
			d.path.key(fields[i])
			if err := field(i); err != nil {
				return err
			}
			d.path.pop()
			if d.consume(',') {
				continue
			}
			if d.consume('}') {
				break
			}
			return d.fail(ErrSyntax, "expected ',' or '}' in %s, found %s", what, d.found())
		}
	}
	for i, f := range fields {
		if seen&(1<<i) == 0 {
			return &Error{Path: d.path.withKey(f), Offset: d.pos - 1, Err: ErrMissingField,
				Msg: fmt.Sprintf("%s lacks field %q", what, f)}
		}
	}
	return nil
}

// enum reads an externally tagged enum: an object with exactly one key, one
// of variants. It calls value(i) with the path extended by the tag.
func (d *decoder) enum(what string, variants []string, value func(i int) error) error {
	if !d.consume('{') {
		return d.fail(d.typeOrSyntax(), "expected %s (an object with one variant key), found %s", what, d.found())
	}
	if d.consume('}') {
		return d.fail(ErrType, "%s has no variant key", what)
	}
	d.ws()
	keyPos := d.pos
	key, err := d.str("a variant key")
	if err != nil {
		return err
	}
	i := indexOf(variants, key)
	if i < 0 {
		k := clipKey(key)
		return &Error{Path: d.path.withKey(k), Offset: keyPos, Err: ErrUnknownVariant,
			Msg: fmt.Sprintf("%s has no variant %q (expected one of %q)", what, k, variants)}
	}
	if err := d.expectColon(); err != nil {
		return err
	}
	d.path.key(variants[i])
	if err := value(i); err != nil {
		return err
	}
	d.path.pop()
	if d.consume(',') {
		return d.fail(ErrType, "%s has more than one variant key", what)
	}
	if !d.consume('}') {
		return d.fail(ErrSyntax, "expected '}' after the variant of %s, found %s", what, d.found())
	}
	return nil
}

// maxShownKey is the longest unknown key an error message repeats: a
// hostile megabyte-long key is named by its start, so rejecting it costs
// no more than reading it.
const maxShownKey = 64

// clipKey returns key for an error message, cut to maxShownKey bytes.
func clipKey(key []byte) string {
	if len(key) <= maxShownKey {
		return string(key)
	}
	return fmt.Sprintf("%s...(%d bytes)", key[:maxShownKey], len(key))
}

func indexOf(list []string, key []byte) int {
	for i, s := range list {
		if s == string(key) {
			return i
		}
	}
	return -1
}

// array reads a JSON array, calling elem(i) with the path extended by [i].
func (d *decoder) array(what string, elem func(i int) error) error {
	if !d.consume('[') {
		return d.fail(d.typeOrSyntax(), "expected %s (an array), found %s", what, d.found())
	}
	if d.consume(']') {
		return nil
	}
	for i := 0; ; i++ {
		d.path.idx(i)
		if err := elem(i); err != nil {
			return err
		}
		d.path.pop()
		if d.consume(',') {
			continue
		}
		if d.consume(']') {
			return nil
		}
		return d.fail(ErrSyntax, "expected ',' or ']' in %s, found %s", what, d.found())
	}
}

// uint reads an unsigned integer literal no larger than max.
func (d *decoder) uint(what string, max uint64) (uint64, error) {
	d.ws()
	start := d.pos
	if d.pos < len(d.data) && d.data[d.pos] == '-' {
		return 0, d.fail(ErrType, "expected %s (an unsigned integer), found a negative number", what)
	}
	var v uint64
	overflow := false
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		if c < '0' || c > '9' {
			break
		}
		if v > (math.MaxUint64-uint64(c-'0'))/10 {
			overflow = true
		}
		v = v*10 + uint64(c-'0')
		d.pos++
	}
	n := d.pos - start
	if n == 0 {
		return 0, d.fail(d.typeOrSyntax(), "expected %s (an unsigned integer), found %s", what, d.found())
	}
	if n > 1 && d.data[start] == '0' {
		d.pos = start
		return 0, d.fail(ErrSyntax, "invalid number: leading zero")
	}
	if d.pos < len(d.data) {
		if c := d.data[d.pos]; c == '.' || c == 'e' || c == 'E' {
			d.pos = start
			return 0, d.fail(ErrType, "expected %s (an integer), found a floating-point number", what)
		}
	}
	if overflow || v > max {
		d.pos = start
		return 0, d.fail(ErrType, "%s %s is out of range (max %d)", what, d.data[start:start+n], max)
	}
	return v, nil
}

// domain reads a JSON array of exactly 32 integers 0..255.
func (d *decoder) domain(dst *[32]byte) error {
	if !d.consume('[') {
		return d.fail(d.typeOrSyntax(), "expected a field element (an array of 32 integers), found %s", d.found())
	}
	for i := range dst {
		if i > 0 && !d.consume(',') {
			if d.consume(']') {
				return d.fail(ErrType, "field element has %d bytes, want 32", i)
			}
			return d.fail(ErrSyntax, "expected ',' in field element, found %s", d.found())
		}
		d.ws()
		// Fast path: one to three digits followed by a delimiter.
		p := d.pos
		v, n := 0, 0
		for p < len(d.data) && n < 4 {
			c := d.data[p]
			if c < '0' || c > '9' {
				break
			}
			v = v*10 + int(c-'0')
			p++
			n++
		}
		if n >= 1 && n <= 3 && v <= 255 && (n == 1 || d.data[d.pos] != '0') && p < len(d.data) {
			if c := d.data[p]; c == ',' || c == ']' || c == ' ' || c == '\n' || c == '\t' || c == '\r' {
				dst[i] = byte(v)
				d.pos = p
				continue
			}
		}
		if i == 0 && d.pos < len(d.data) && d.data[d.pos] == ']' {
			return d.fail(ErrType, "field element has 0 bytes, want 32")
		}
		b, err := d.uint("a field element byte", 255)
		if err != nil {
			return err
		}
		dst[i] = byte(b)
	}
	if !d.consume(']') {
		if d.consume(',') {
			return d.fail(ErrType, "field element has more than 32 bytes")
		}
		return d.fail(ErrSyntax, "expected ']' after 32 bytes of a field element, found %s", d.found())
	}
	return nil
}

// domains reads an array of field elements into a slice carved from the
// slab.
func (d *decoder) domains(what string) ([][32]byte, error) {
	d.scratch = d.scratch[:0]
	err := d.array(what, func(int) error {
		d.scratch = append(d.scratch, [32]byte{})
		return d.domain(&d.scratch[len(d.scratch)-1])
	})
	if err != nil {
		return nil, err
	}
	n := len(d.scratch)
	if n == 0 {
		return [][32]byte{}, nil
	}
	if len(d.slab) < n {
		d.slab = make([][32]byte, max(n, slabSize))
	}
	out := d.slab[:n:n]
	d.slab = d.slab[n:]
	copy(out, d.scratch)
	return out, nil
}

func (d *decoder) null(what string) error {
	d.ws()
	if len(d.data)-d.pos >= 4 && string(d.data[d.pos:d.pos+4]) == "null" {
		d.pos += 4
		return nil
	}
	return d.fail(d.typeOrSyntax(), "expected %s (null), found %s", what, d.found())
}

// str reads a string. Without escapes it returns a slice of the input;
// otherwise a fresh unescaped copy.
func (d *decoder) str(what string) ([]byte, error) {
	d.ws()
	if d.pos >= len(d.data) || d.data[d.pos] != '"' {
		return nil, d.fail(d.typeOrSyntax(), "expected %s (a string), found %s", what, d.found())
	}
	d.pos++
	start := d.pos
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			s := d.data[start:d.pos]
			d.pos++
			return s, nil
		case c == '\\':
			return d.strEscaped(start)
		case c < 0x20:
			return nil, d.fail(ErrSyntax, "control character 0x%02x in string", c)
		}
		d.pos++
	}
	return nil, d.fail(ErrSyntax, "unterminated string")
}

func (d *decoder) strEscaped(start int) ([]byte, error) {
	out := append([]byte(nil), d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return out, nil
		case c < 0x20:
			return nil, d.fail(ErrSyntax, "control character 0x%02x in string", c)
		case c != '\\':
			out = append(out, c)
			d.pos++
			continue
		}
		if d.pos+1 >= len(d.data) {
			break
		}
		e := d.data[d.pos+1]
		d.pos += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return nil, d.fail(ErrSyntax, "invalid \\u escape")
			}
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
					d.pos += 2
					if lo, ok := d.hex4(); ok {
						r2 = utf16.DecodeRune(r, lo)
					}
				}
				if r2 == utf8.RuneError {
					return nil, d.fail(ErrSyntax, "invalid UTF-16 surrogate pair")
				}
				r = r2
			}
			out = utf8.AppendRune(out, r)
		default:
			d.pos--
			return nil, d.fail(ErrSyntax, "invalid escape %q", rune(e))
		}
	}
	return nil, d.fail(ErrSyntax, "unterminated string")
}

func (d *decoder) hex4() (rune, bool) {
	if len(d.data)-d.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d.data[d.pos : d.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	d.pos += 4
	return r, true
}

// The schema. Field lists are in serde declaration order.

var (
	outputFields        = []string{"registered_proof", "vanilla_proofs", "comm_r", "comm_d", "replica_id", "seed", "ticket"}
	proofFields         = []string{"comm_d_proofs", "comm_r_last_proof", "replica_column_proofs", "labeling_proofs", "encoding_proof"}
	merkleProofFields   = []string{"data"}
	proofVariants       = []string{"Single", "Sub", "Top"}
	singleProofFields   = []string{"root", "leaf", "path"}
	subProofFields      = []string{"base_proof", "sub_proof", "root", "leaf"}
	topProofFields      = []string{"base_proof", "sub_proof", "top_proof", "root", "leaf"}
	inclusionPathFields = []string{"path"}
	pathElementFields   = []string{"hashes", "index"}
	replicaColumnFields = []string{"c_x", "drg_parents", "exp_parents"}
	columnProofFields   = []string{"column", "inclusion_proof"}
	columnFields        = []string{"index", "rows", "_h"}
	labelingFields      = []string{"parents", "layer_index", "node"}
)

// vanillaKeys are the five VanillaSealProof variants, in sector size order.
var vanillaKeys = func() []string {
	sizes := []filecoin.SectorSize{filecoin.SectorSize2KiB, filecoin.SectorSize8MiB,
		filecoin.SectorSize512MiB, filecoin.SectorSize32GiB, filecoin.SectorSize64GiB}
	keys := make([]string, len(sizes))
	for i, s := range sizes {
		keys[i] = "StackedDrg" + s.String() + "V1"
	}
	return keys
}()

func (d *decoder) output(o *Output) error {
	return d.object("SealCommitPhase1Output", outputFields, func(i int) error {
		switch i {
		case 0:
			d.ws()
			start := d.pos
			name, err := d.str("registered_proof")
			if err != nil {
				return err
			}
			p, err := filecoin.ParseSealProof(string(name))
			if err != nil {
				d.pos = start
				return d.fail(ErrUnknownProof, "%q is not a registered seal proof name", name)
			}
			o.RegisteredProof = p
			return nil
		case 1:
			return d.enum("vanilla_proofs", vanillaKeys, func(k int) (err error) {
				o.vanillaKey = vanillaKeys[k]
				o.VanillaProofs, err = d.partitions()
				return err
			})
		case 2:
			return d.domain(&o.CommR)
		case 3:
			return d.domain(&o.CommD)
		case 4:
			return d.domain(&o.ReplicaID)
		case 5:
			return d.domain(&o.Seed)
		default:
			return d.domain(&o.Ticket)
		}
	})
}

func (d *decoder) partitions() ([][]Proof, error) {
	var parts [][]Proof
	err := d.array("the partitions", func(int) error {
		var proofs []Proof
		err := d.array("the challenge proofs of a partition", func(int) error {
			proofs = append(proofs, Proof{})
			return d.proof(&proofs[len(proofs)-1])
		})
		if proofs == nil {
			proofs = []Proof{}
		}
		parts = append(parts, proofs)
		return err
	})
	if err != nil {
		return nil, err
	}
	if parts == nil {
		parts = [][]Proof{}
	}
	return parts, nil
}

func (d *decoder) proof(p *Proof) error {
	return d.object("Proof", proofFields, func(i int) error {
		switch i {
		case 0:
			return d.merkleProof(&p.CommDProofs)
		case 1:
			return d.merkleProof(&p.CommRLastProof)
		case 2:
			return d.replicaColumnProof(&p.ReplicaColumnProofs)
		case 3:
			return d.array("labeling_proofs", func(int) error {
				p.LabelingProofs = append(p.LabelingProofs, LabelingProof{})
				lp := &p.LabelingProofs[len(p.LabelingProofs)-1]
				return d.labeling("LabelingProof", &lp.Parents, &lp.LayerIndex, &lp.Node)
			})
		default:
			e := &p.EncodingProof
			return d.labeling("EncodingProof", &e.Parents, &e.LayerIndex, &e.Node)
		}
	})
}

func (d *decoder) labeling(what string, parents *[][32]byte, layer *uint32, node *uint64) error {
	return d.object(what, labelingFields, func(i int) (err error) {
		switch i {
		case 0:
			*parents, err = d.domains("parents")
		case 1:
			var v uint64
			v, err = d.uint("layer_index", math.MaxUint32)
			*layer = uint32(v)
		default:
			*node, err = d.uint("node", math.MaxUint64)
		}
		return err
	})
}

func (d *decoder) merkleProof(m *MerkleProof) error {
	return d.object("MerkleProof", merkleProofFields, func(int) error {
		return d.enum("ProofData", proofVariants, func(v int) error {
			m.Variant = ProofVariant(v)
			switch m.Variant {
			case Single:
				return d.object("SingleProof", singleProofFields, func(i int) (err error) {
					switch i {
					case 0:
						return d.domain(&m.Root)
					case 1:
						return d.domain(&m.Leaf)
					default:
						m.Base, err = d.inclusionPath()
						return err
					}
				})
			case Sub:
				return d.object("SubProof", subProofFields, func(i int) (err error) {
					switch i {
					case 0:
						m.Base, err = d.inclusionPath()
					case 1:
						m.Sub, err = d.inclusionPath()
					case 2:
						err = d.domain(&m.Root)
					default:
						err = d.domain(&m.Leaf)
					}
					return err
				})
			default:
				return d.object("TopProof", topProofFields, func(i int) (err error) {
					switch i {
					case 0:
						m.Base, err = d.inclusionPath()
					case 1:
						m.Sub, err = d.inclusionPath()
					case 2:
						m.Top, err = d.inclusionPath()
					case 3:
						err = d.domain(&m.Root)
					default:
						err = d.domain(&m.Leaf)
					}
					return err
				})
			}
		})
	})
}

func (d *decoder) inclusionPath() ([]PathElement, error) {
	elems := []PathElement{}
	err := d.object("InclusionPath", inclusionPathFields, func(int) error {
		return d.array("path", func(int) error {
			elems = append(elems, PathElement{})
			e := &elems[len(elems)-1]
			return d.object("PathElement", pathElementFields, func(i int) (err error) {
				if i == 0 {
					e.Hashes, err = d.domains("hashes")
				} else {
					e.Index, err = d.uint("index", math.MaxUint64)
				}
				return err
			})
		})
	})
	return elems, err
}

func (d *decoder) replicaColumnProof(r *ReplicaColumnProof) error {
	return d.object("ReplicaColumnProof", replicaColumnFields, func(i int) error {
		switch i {
		case 0:
			return d.columnProof(&r.CX)
		case 1:
			return d.columnProofs("drg_parents", &r.DRGParents)
		default:
			return d.columnProofs("exp_parents", &r.ExpParents)
		}
	})
}

func (d *decoder) columnProofs(what string, dst *[]ColumnProof) error {
	*dst = []ColumnProof{}
	return d.array(what, func(int) error {
		*dst = append(*dst, ColumnProof{})
		return d.columnProof(&(*dst)[len(*dst)-1])
	})
}

func (d *decoder) columnProof(c *ColumnProof) error {
	return d.object("ColumnProof", columnProofFields, func(i int) error {
		if i == 1 {
			return d.merkleProof(&c.InclusionProof)
		}
		return d.object("Column", columnFields, func(j int) (err error) {
			switch j {
			case 0:
				var v uint64
				v, err = d.uint("index", math.MaxUint32)
				c.Column.Index = uint32(v)
			case 1:
				c.Column.Rows, err = d.domains("rows")
			default:
				err = d.null("_h")
			}
			return err
		})
	})
}
