package r1cs

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// ChunkRows is the number of rows per chunk digest.
const ChunkRows = 1 << 16

// Digest is the canonical fingerprint of a synthesised circuit. The same
// definition is implemented by the Rust reference harness (tools/rustref), so
// comparing a Go circuit with rust-fil-proofs is one equality.
//
// Rows are the circuit's own rows, recorded from input 0 = ONE onwards,
// without the prover's trailing input rows. Each row is serialised as A, B, C,
// each LC as u32 LE term count followed by terms (u8 kind: 0 input / 1 aux,
// u32 LE index, 32-byte LE canonical coefficient), canonical order (merged,
// zero coefficients dropped, inputs before aux, by index).
type Digest struct {
	Constraints int      `json:"constraints"`
	Inputs      int      `json:"inputs"`
	Aux         int      `json:"aux"`
	R1CS        string   `json:"r1cs_sha256"`
	ChunkRows   int      `json:"chunk_rows"`
	Chunks      []string `json:"chunks"`
	InputsHash  string   `json:"inputs_sha256"`
	AuxHash     string   `json:"aux_sha256"`
	// Non-zero term counts of A, B and C over all rows (ONE included).
	NNZ [3]int64 `json:"nnz"`
}

// Recorder computes a Digest while a circuit is synthesised, streaming
// everything through SHA-256 (nothing is kept per row).
type Recorder struct {
	all, chunk, inputs, aux hash.Hash
	rows                    int
	chunks                  []string
	nInputs, nAux           int
	nnz                     [3]int64
	buf                     []byte
	terms                   []Term
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	return &Recorder{all: sha256.New(), chunk: sha256.New(), inputs: sha256.New(), aux: sha256.New()}
}

// Needs implements Sink.
func (r *Recorder) Needs() Needs { return NeedValues | NeedRows }

// AllocInput implements Sink.
func (r *Recorder) AllocInput(v *fr.Element) {
	var le [32]byte
	fr.LittleEndian.PutElement(&le, *v)
	r.inputs.Write(le[:])
	r.nInputs++
}

// Alloc implements Sink.
func (r *Recorder) Alloc(v *fr.Element) {
	var le [32]byte
	fr.LittleEndian.PutElement(&le, *v)
	r.aux.Write(le[:])
	r.nAux++
}

// Enforce implements Sink.
func (r *Recorder) Enforce(_ *CS, a, b, c *LC) {
	r.buf = r.buf[:0]
	for k, lc := range [3]*LC{a, b, c} {
		r.terms = CanonicalTerms(lc, r.terms)
		r.nnz[k] += int64(len(r.terms))
		r.buf = AppendRowLC(r.buf, r.terms)
	}
	r.all.Write(r.buf)
	r.chunk.Write(r.buf)
	r.rows++
	if r.rows%ChunkRows == 0 {
		r.chunks = append(r.chunks, hex.EncodeToString(r.chunk.Sum(nil)))
		r.chunk.Reset()
	}
}

// AppendRowLC appends the canonical serialisation of one LC's sorted terms.
func AppendRowLC(dst []byte, terms []Term) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(terms)))
	for i := range terms {
		kind := byte(0)
		if terms[i].Var.IsAux() {
			kind = 1
		}
		dst = append(dst, kind)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(terms[i].Var.Index()))
		var le [32]byte
		fr.LittleEndian.PutElement(&le, terms[i].Coeff)
		dst = append(dst, le[:]...)
	}
	return dst
}

// Digest returns the digest of everything recorded so far.
func (r *Recorder) Digest() Digest {
	chunks := append([]string(nil), r.chunks...)
	if r.rows%ChunkRows != 0 {
		chunks = append(chunks, hex.EncodeToString(r.chunk.Sum(nil)))
	}
	return Digest{
		Constraints: r.rows,
		Inputs:      r.nInputs,
		Aux:         r.nAux,
		R1CS:        hex.EncodeToString(r.all.Sum(nil)),
		ChunkRows:   ChunkRows,
		Chunks:      chunks,
		InputsHash:  hex.EncodeToString(r.inputs.Sum(nil)),
		AuxHash:     hex.EncodeToString(r.aux.Sum(nil)),
		NNZ:         r.nnz,
	}
}
