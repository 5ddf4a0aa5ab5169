package post

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/bincode"
	"github.com/cuzk-dev/cuzk/merkle"
)

// DecodeError is the error every decoder returns: it names the byte offset
// and the field path, and wraps ErrDecode plus one of ErrTruncated,
// ErrLength, ErrVariant, ErrIndex, ErrNotCanonical or ErrTrailing.
type DecodeError = bincode.Error

// Decoding sentinels (shared with package snap).
var (
	// ErrDecode is returned (wrapped) for any undecodable vanilla proof.
	ErrDecode = bincode.ErrInvalid
	// ErrTruncated is returned when the input ends inside a field or a
	// length cannot fit in the remaining input.
	ErrTruncated = bincode.ErrTruncated
	// ErrLength is returned when a length differs from the one the tree
	// shape of the registered proof requires.
	ErrLength = bincode.ErrLength
	// ErrVariant is returned when a Merkle proof's variant does not match
	// the tree shape.
	ErrVariant = bincode.ErrVariant
	// ErrIndex is returned when a path index is outside its arity.
	ErrIndex = bincode.ErrIndex
	// ErrNotCanonical is returned when a Poseidon element is not a
	// canonical field element.
	ErrNotCanonical = bincode.ErrNotCanonical
	// ErrTrailing is returned when bytes follow the proof.
	ErrTrailing = bincode.ErrTrailing
)

// ErrRegisteredProof is returned for an invalid or unsupported registered
// PoSt proof.
var ErrRegisteredProof = errors.New("post: invalid registered post proof")

// SectorProof is storage-proofs-post's SectorProof: the inclusion proofs of
// the challenged tree_r_last leaves and the sector's comm_c and comm_r_last.
type SectorProof struct {
	InclusionProofs []*merkle.PoseidonProof
	CommC           fr.Element
	CommRLast       fr.Element
}

// VanillaProof is filecoin-proofs' FallbackPoStSectorProof, what Curio sends
// per sector: sector id, comm_r and the vanilla proof's sectors (one for
// proofs from generate_single_vanilla_proof).
type VanillaProof struct {
	SectorID uint64
	CommR    fr.Element
	Sectors  []SectorProof
}

// TreeShape is the tree_r_last shape of a sector size (8-0-0, 8-8-0 or
// 8-8-2 for the published sizes).
func TreeShape(size filecoin.SectorSize) (merkle.Shape, error) {
	sh, err := size.SealSpec()
	if err != nil {
		return merkle.Shape{}, err
	}
	return sh.Tree(), nil
}

// proofTree is the layout of inclusion proofs for a sector size.
func proofTree(size filecoin.SectorSize) (bincode.Tree, error) {
	shape, err := TreeShape(size)
	if err != nil {
		return bincode.Tree{}, err
	}
	return bincode.NewTree(shape, int(size.Nodes()))
}

func checkProof(p filecoin.RegisteredPoStProof) error {
	if !p.Valid() {
		return fmt.Errorf("%w: %d", ErrRegisteredProof, int64(p))
	}
	return nil
}

// DecodeVanillaProof decodes the bincode FallbackPoStSectorProof of a
// sector proven under p: every Merkle proof must have the tree shape of p's
// sector size. Counts (sectors, inclusion proofs) are checked by
// verification, not here; they are bounded by the input size.
func DecodeVanillaProof(data []byte, p filecoin.RegisteredPoStProof) (*VanillaProof, error) {
	if err := checkProof(p); err != nil {
		return nil, err
	}
	t, err := proofTree(p.SectorSize())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRegisteredProof, err)
	}
	r := bincode.NewReader(data)
	v, err := readVanilla(r, t)
	if err != nil {
		return nil, err
	}
	if err := r.Done(); err != nil {
		return nil, err
	}
	return v, nil
}

func readVanilla(r *bincode.Reader, t bincode.Tree) (*VanillaProof, error) {
	v := &VanillaProof{}
	var err error
	r.Push("sector_id", -1)
	if v.SectorID, err = r.U64(); err != nil {
		return nil, err
	}
	r.Pop()
	r.Push("comm_r", -1)
	if v.CommR, err = r.Fr(); err != nil {
		return nil, err
	}
	r.Pop()
	// vanilla_proof.sectors: each at least two lengths and two commitments.
	r.Push("sectors", -1)
	n, err := r.Len(-1, 8+64)
	if err != nil {
		return nil, err
	}
	r.Pop()
	v.Sectors = make([]SectorProof, n)
	psize := t.EncodedSize()
	r.Push("sectors", 0)
	for i := range v.Sectors {
		r.Index(i)
		s := &v.Sectors[i]
		r.Push("inclusion_proofs", -1)
		m, err := r.Len(-1, psize)
		if err != nil {
			return nil, err
		}
		r.Pop()
		s.InclusionProofs = make([]*merkle.PoseidonProof, m)
		r.Push("inclusion_proofs", 0)
		for j := range s.InclusionProofs {
			r.Index(j)
			if s.InclusionProofs[j], err = bincode.ReadPoseidonProof(r, t); err != nil {
				return nil, err
			}
		}
		r.Pop()
		r.Push("comm_c", -1)
		if s.CommC, err = r.Fr(); err != nil {
			return nil, err
		}
		r.Pop()
		r.Push("comm_r_last", -1)
		if s.CommRLast, err = r.Fr(); err != nil {
			return nil, err
		}
		r.Pop()
	}
	r.Pop()
	return v, nil
}

// Encode returns the bincode FallbackPoStSectorProof, byte-identical to
// upstream's serialisation; every Merkle proof must fit p's tree shape.
func (v *VanillaProof) Encode(p filecoin.RegisteredPoStProof) ([]byte, error) {
	if err := checkProof(p); err != nil {
		return nil, err
	}
	t, err := proofTree(p.SectorSize())
	if err != nil {
		return nil, err
	}
	size := 8 + 32 + 8
	for _, s := range v.Sectors {
		size += 8 + len(s.InclusionProofs)*t.EncodedSize() + 64
	}
	w := &bincode.Writer{Buf: make([]byte, 0, size)}
	w.U64(v.SectorID)
	w.Fr(&v.CommR)
	w.Len(len(v.Sectors))
	for i := range v.Sectors {
		s := &v.Sectors[i]
		w.Len(len(s.InclusionProofs))
		for j, ip := range s.InclusionProofs {
			if err := bincode.WritePoseidonProof(w, t, ip); err != nil {
				return nil, fmt.Errorf("sectors[%d].inclusion_proofs[%d]: %w", i, j, err)
			}
		}
		w.Fr(&s.CommC)
		w.Fr(&s.CommRLast)
	}
	return w.Buf, nil
}

// DecodeVanillaProofs decodes the vanilla_proofs entries of a Prove
// request (one bincode FallbackPoStSectorProof each); an error names the
// entry ("vanilla_proofs[3]: …") and still unwraps to the *DecodeError.
func DecodeVanillaProofs(entries [][]byte, p filecoin.RegisteredPoStProof) ([]*VanillaProof, error) {
	return bincode.DecodeEntries(entries, func(e []byte) (*VanillaProof, error) { return DecodeVanillaProof(e, p) })
}
