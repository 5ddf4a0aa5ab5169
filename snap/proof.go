package snap

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/bincode"
	"github.com/cuzk-dev/cuzk/merkle"
)

// Decoding errors are post's: a *post.DecodeError (offset and field path)
// wrapping post.ErrDecode and one specific sentinel (they live in
// internal/bincode, which both packages decode with).

// ErrRegisteredProof is returned for an invalid registered update proof.
var ErrRegisteredProof = errors.New("snap: invalid registered update proof")

// ChallengeProof is one challenge's three openings: tree_r_old, tree_d_new
// (binary SHA-254, always a Single proof) and tree_r_new.
type ChallengeProof struct {
	ROld *merkle.PoseidonProof
	DNew *merkle.Sha254Proof
	RNew *merkle.PoseidonProof
}

// PartitionProof is storage_proofs_update::PartitionProof: comm_c, the
// partition's apex leaves of tree_d_new and one ChallengeProof per
// challenge.
type PartitionProof struct {
	CommC           fr.Element
	ApexLeafs       [][32]byte
	ChallengeProofs []ChallengeProof
}

// layouts are the Merkle proof layouts of an update proof's trees.
type layouts struct {
	r, d bincode.Tree
}

func layoutsOf(p filecoin.RegisteredUpdateProof) (layouts, error) {
	if !p.Valid() {
		return layouts{}, fmt.Errorf("%w: %d", ErrRegisteredProof, int64(p))
	}
	t := p.TreeShape()
	n := int(p.Nodes())
	r, err := bincode.NewTree(t, n)
	if err != nil {
		return layouts{}, err
	}
	d, err := bincode.NewTree(merkle.ShapeBinary, n)
	if err != nil {
		return layouts{}, err
	}
	return layouts{r: r, d: d}, nil
}

func (l layouts) challengeSize() int { return 2*l.r.EncodedSize() + l.d.EncodedSize() }

// TreeRShape is tree_r's shape for p (8-0-0, 8-8-0 or 8-8-2).
func TreeRShape(p filecoin.RegisteredUpdateProof) merkle.Shape {
	return p.TreeShape()
}

// DecodePartitionProof decodes a bincode PartitionProof of update proof p:
// tree_r proofs must have p's tree shape, tree_d proofs are binary over
// the sector's nodes. Counts are checked by Verify; here they are bounded
// by the input size.
func DecodePartitionProof(data []byte, p filecoin.RegisteredUpdateProof) (*PartitionProof, error) {
	l, err := layoutsOf(p)
	if err != nil {
		return nil, err
	}
	r := bincode.NewReader(data)
	pp := &PartitionProof{}
	r.Push("comm_c", -1)
	if pp.CommC, err = r.Fr(); err != nil {
		return nil, err
	}
	r.Pop()
	r.Push("apex_leafs", -1)
	n, err := r.Len(-1, 32)
	if err != nil {
		return nil, err
	}
	pp.ApexLeafs = make([][32]byte, n)
	r.Index(0)
	for i := range pp.ApexLeafs {
		r.Index(i)
		if pp.ApexLeafs[i], err = r.Bytes32(); err != nil {
			return nil, err
		}
	}
	r.Pop()
	r.Push("challenge_proofs", -1)
	if n, err = r.Len(-1, l.challengeSize()); err != nil {
		return nil, err
	}
	pp.ChallengeProofs = make([]ChallengeProof, n)
	r.Index(0)
	for i := range pp.ChallengeProofs {
		r.Index(i)
		c := &pp.ChallengeProofs[i]
		r.Push("proof_r_old", -1)
		if c.ROld, err = bincode.ReadPoseidonProof(r, l.r); err != nil {
			return nil, err
		}
		r.Pop()
		r.Push("proof_d_new", -1)
		if c.DNew, err = bincode.ReadSha254Proof(r, l.d); err != nil {
			return nil, err
		}
		r.Pop()
		r.Push("proof_r_new", -1)
		if c.RNew, err = bincode.ReadPoseidonProof(r, l.r); err != nil {
			return nil, err
		}
		r.Pop()
	}
	r.Pop()
	if err := r.Done(); err != nil {
		return nil, err
	}
	return pp, nil
}

// Encode returns the bincode PartitionProof, byte-identical to upstream's.
func (pp *PartitionProof) Encode(p filecoin.RegisteredUpdateProof) ([]byte, error) {
	l, err := layoutsOf(p)
	if err != nil {
		return nil, err
	}
	w := &bincode.Writer{Buf: make([]byte, 0, 32+8+32*len(pp.ApexLeafs)+8+len(pp.ChallengeProofs)*l.challengeSize())}
	w.Fr(&pp.CommC)
	w.Len(len(pp.ApexLeafs))
	for i := range pp.ApexLeafs {
		w.Bytes32(&pp.ApexLeafs[i])
	}
	w.Len(len(pp.ChallengeProofs))
	for i := range pp.ChallengeProofs {
		c := &pp.ChallengeProofs[i]
		if c.ROld == nil || c.DNew == nil || c.RNew == nil {
			return nil, fmt.Errorf("challenge_proofs[%d]: missing proof: %w", i, merkle.ErrMalformedProof)
		}
		if err := bincode.WritePoseidonProof(w, l.r, c.ROld); err != nil {
			return nil, fmt.Errorf("challenge_proofs[%d].proof_r_old: %w", i, err)
		}
		if err := bincode.WriteSha254Proof(w, l.d, c.DNew); err != nil {
			return nil, fmt.Errorf("challenge_proofs[%d].proof_d_new: %w", i, err)
		}
		if err := bincode.WritePoseidonProof(w, l.r, c.RNew); err != nil {
			return nil, fmt.Errorf("challenge_proofs[%d].proof_r_new: %w", i, err)
		}
	}
	return w.Buf, nil
}

// DecodePartitionProofs decodes the vanilla_proofs entries of a SnapDeals
// Prove request, entry k being partition k's proof; an error names the
// entry ("vanilla_proofs[3]: …") and still unwraps to the *bincode.Error.
func DecodePartitionProofs(entries [][]byte, p filecoin.RegisteredUpdateProof) ([]*PartitionProof, error) {
	return bincode.DecodeEntries(entries, func(e []byte) (*PartitionProof, error) { return DecodePartitionProof(e, p) })
}
