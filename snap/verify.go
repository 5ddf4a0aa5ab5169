package snap

import (
	"context"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/hash"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/sectordir"
)

// Verification sentinels; each wraps ErrInvalidProof.
var (
	// ErrInvalidProof is wrapped by every vanilla verification failure.
	ErrInvalidProof = errors.New("snap: invalid vanilla proof")
	// ErrPartition is returned for a partition index out of range.
	ErrPartition = fmt.Errorf("%w: partition index out of range", ErrInvalidProof)
	// ErrApexCount is returned for the wrong number of apex leaves.
	ErrApexCount = fmt.Errorf("%w: wrong number of apex leaves", ErrInvalidProof)
	// ErrChallengeCount is returned for the wrong number of challenge proofs.
	ErrChallengeCount = fmt.Errorf("%w: wrong number of challenge proofs", ErrInvalidProof)
	// ErrCommROld is returned when H(comm_c, root of tree_r_old) is not comm_r_old.
	ErrCommROld = fmt.Errorf("%w: comm_r_old is not H(comm_c, root_r_old)", ErrInvalidProof)
	// ErrCommRNew is returned when H(comm_c, root of tree_r_new) is not comm_r_new.
	ErrCommRNew = fmt.Errorf("%w: comm_r_new is not H(comm_c, root_r_new)", ErrInvalidProof)
	// ErrCommD is returned when comm_d_new is not a canonical element or a
	// tree_d proof's root is not comm_d_new.
	ErrCommD = fmt.Errorf("%w: comm_d_new mismatch", ErrInvalidProof)
	// ErrRoot is returned when a tree_r proof's root differs from the first
	// challenge's.
	ErrRoot = fmt.Errorf("%w: tree_r root mismatch", ErrInvalidProof)
	// ErrChallenge is returned when a proof opens another node than its
	// challenge.
	ErrChallenge = fmt.Errorf("%w: challenged node mismatch", ErrInvalidProof)
	// ErrMerklePath is returned when a path does not hash to its root.
	ErrMerklePath = fmt.Errorf("%w: Merkle path does not verify", ErrInvalidProof)
	// ErrLabel is returned when label_r_new != label_r_old + label_d_new·ρ.
	ErrLabel = fmt.Errorf("%w: replica encoding mismatch", ErrInvalidProof)
	// ErrApex is returned when a tree_d path leaves the partition's apex tree.
	ErrApex = fmt.Errorf("%w: tree_d path not in the apex tree", ErrInvalidProof)
)

// Public are the public values an update proof is verified against, as
// verify_empty_sector_update_proof takes them: the registered proof and
// the three commitments. Every partition's public inputs follow from
// them (Inputs).
type Public struct {
	Proof    filecoin.RegisteredUpdateProof
	CommROld fr.Element
	CommDNew [32]byte
	CommRNew fr.Element
}

// Partitions is the number of partition proofs of an update proof.
func (pub *Public) Partitions() int { return pub.Proof.Partitions() }

// PartitionInputs are the public inputs of partition k:
// circuit::PublicInputs::to_vec without ONE, k_and_h_select = k |
// h_select << log2(partitions), comm_r_old, comm_d_new (as a field
// element), comm_r_new. h is h_default, as filecoin-proofs uses.
func (pub *Public) PartitionInputs(k int) ([]fr.Element, error) {
	p := pub.Proof
	if err := checkPartition(p, k); err != nil {
		return nil, err
	}
	d, err := fr.LittleEndian.Element(&pub.CommDNew)
	if err != nil {
		return nil, fmt.Errorf("%w: comm_d_new %x is not a field element", ErrCommD, pub.CommDNew)
	}
	var kh fr.Element
	kh.SetUint64(uint64(k) | p.HSelect()<<p.PartitionBits())
	return []fr.Element{kh, pub.CommROld, d, pub.CommRNew}, nil
}

// checkPartition refuses an invalid registered proof and a partition
// index outside it.
func checkPartition(p filecoin.RegisteredUpdateProof, k int) error {
	if !p.Valid() {
		return fmt.Errorf("%w: %d", ErrRegisteredProof, int64(p))
	}
	if k < 0 || k >= p.Partitions() {
		return fmt.Errorf("%w: %d of %d", ErrPartition, k, p.Partitions())
	}
	return nil
}

// Verify checks partition proof pp for pub as EmptySectorUpdate::verify
// does with h = h_default: counts, comm_r_old and comm_r_new against
// comm_c and the first challenge's roots, then for every challenge the
// three paths (opening the challenge, rooted at root_r_old, comm_d_new,
// root_r_new, hashing to their roots), the encoding label_r_new =
// label_r_old + label_d_new·ρ(φ, high bits), and the apex part of the
// tree_d path (each sibling in its apex tree row, upstream's membership
// test). ctx is checked between challenges.
func Verify(ctx context.Context, pub Public, k int, pp *PartitionProof) error {
	p := pub.Proof
	if err := checkPartition(p, k); err != nil {
		return err
	}
	if len(pp.ApexLeafs) != p.ApexLeafCount() {
		return fmt.Errorf("apex_leafs: %d, want %d: %w", len(pp.ApexLeafs), p.ApexLeafCount(), ErrApexCount)
	}
	if len(pp.ChallengeProofs) != p.ChallengeCount() {
		return fmt.Errorf("challenge_proofs: %d, want %d: %w", len(pp.ChallengeProofs), p.ChallengeCount(), ErrChallengeCount)
	}
	for i, c := range pp.ChallengeProofs {
		if c.ROld == nil || c.DNew == nil || c.RNew == nil {
			return fmt.Errorf("challenge_proofs[%d]: missing proof: %w", i, ErrMerklePath)
		}
	}
	// The apex tree, row by row from the leaves.
	apex := [][][32]byte{pp.ApexLeafs}
	for len(apex[len(apex)-1]) > 1 {
		row := apex[len(apex)-1]
		next := make([][32]byte, len(row)/2)
		for i := range next {
			next[i] = hash.Sha254Pair(&row[2*i], &row[2*i+1])
		}
		apex = append(apex, next)
	}
	apexHeight := p.ChallengeBits() - p.PartitionBits() - p.ApexLeafBits()

	rootROld, rootRNew := pp.ChallengeProofs[0].ROld.Root, pp.ChallengeProofs[0].RNew.Root
	if sectordir.CommR(pp.CommC, rootROld) != pub.CommROld {
		return ErrCommROld
	}
	if sectordir.CommR(pp.CommC, rootRNew) != pub.CommRNew {
		return ErrCommRNew
	}
	phi, err := Phi(pub.CommDNew, pub.CommROld)
	if err != nil {
		return err
	}
	challenges, err := Challenges(p, pub.CommRNew, k)
	if err != nil {
		return err
	}
	shape, nodes, shift := TreeRShape(p), int(p.Nodes()), HighShift(p)
	for i, c := range challenges {
		if err := ctx.Err(); err != nil {
			return err
		}
		cp := &pp.ChallengeProofs[i]
		fail := func(field string, format string, args ...any) error {
			return fmt.Errorf("challenge_proofs[%d]%s (challenge %d): "+format, append([]any{i, field, c}, args...)...)
		}
		for _, o := range []struct {
			field string
			proof *merkle.PoseidonProof
			root  fr.Element
		}{{".proof_r_old", cp.ROld, rootROld}, {".proof_r_new", cp.RNew, rootRNew}} {
			if got := o.proof.LeafIndex(); got != uint64(c) {
				return fail(o.field, "opens node %d: %w", got, ErrChallenge)
			}
			if o.proof.Root != o.root {
				return fail(o.field, "%w", ErrRoot)
			}
			if err := merkle.VerifyPoseidon(o.proof, shape, nodes); err != nil {
				return fail(o.field, "%w: %w", ErrMerklePath, err)
			}
		}
		if got := cp.DNew.LeafIndex(); got != uint64(c) {
			return fail(".proof_d_new", "opens node %d: %w", got, ErrChallenge)
		}
		if cp.DNew.Root != pub.CommDNew {
			return fail(".proof_d_new", "root is not comm_d_new: %w", ErrCommD)
		}
		if err := merkle.VerifySha254(cp.DNew, nodes); err != nil {
			return fail(".proof_d_new", "%w: %w", ErrMerklePath, err)
		}
		d, err := fr.LittleEndian.Element(&cp.DNew.Leaf)
		if err != nil {
			return fail(".proof_d_new.leaf", "not a field element: %w", ErrLabel)
		}
		rho := Rho(phi, c>>shift)
		var want fr.Element
		want.Mul(&d, &rho).Add(&want, &cp.ROld.Leaf)
		if want != cp.RNew.Leaf {
			return fail("", "%w", ErrLabel)
		}
		for lvl, row := range apex[:p.ApexLeafBits()] {
			sib := &cp.DNew.Path[apexHeight+lvl].Hashes[0]
			if !contains(row, sib) {
				return fail(".proof_d_new", "path[%d] sibling not in apex row %d: %w", apexHeight+lvl, lvl, ErrApex)
			}
		}
	}
	return nil
}

func contains(row [][32]byte, x *[32]byte) bool {
	for i := range row {
		if row[i] == *x {
			return true
		}
	}
	return false
}

// ErrPartitionCount is returned when a sector's update proof does not have
// one partition proof per partition.
var ErrPartitionCount = fmt.Errorf("%w: wrong number of partition proofs", ErrInvalidProof)

// VerifyAll is verify_all_partitions: exactly pub.Proof.Partitions()
// proofs, proof k verified as partition k.
func VerifyAll(ctx context.Context, pub Public, proofs []*PartitionProof) error {
	p := pub.Proof
	if !p.Valid() {
		return fmt.Errorf("%w: %d", ErrRegisteredProof, int64(p))
	}
	if len(proofs) != p.Partitions() {
		return fmt.Errorf("%w: %d, %v has %d", ErrPartitionCount, len(proofs), p, p.Partitions())
	}
	for k, pp := range proofs {
		if err := Verify(ctx, pub, k, pp); err != nil {
			return fmt.Errorf("partition %d: %w", k, err)
		}
	}
	return nil
}
