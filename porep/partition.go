package porep

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/porep/c1"
)

// PathLevel is one level of a Merkle inclusion path as the circuit
// allocates it (AuthPath): the arity-1 sibling values in order and the
// position of the current node among its arity children, whose bits are the
// level's index bits, least significant first.
type PathLevel struct {
	Siblings []fr.Element
	Index    int
}

// ColumnOpening is a parent column: its labels and their inclusion path in
// tree_c (the circuit hashes the rows into the leaf).
type ColumnOpening struct {
	Node uint32       // column.index
	Rows []fr.Element // labels of layers 1..L
	Path []PathLevel  // leaf side first: base levels, then sub, then top
}

// ChallengeInputs is the witness of one challenge
// (stacked::circuit::params::Proof, built from a vanilla proof). Labels of
// the challenged node, the encoded node and the column hash of the
// challenged column are not here: the circuit recomputes them.
type ChallengeInputs struct {
	// Challenge is labeling_proofs[0].node, allocated as a UInt64 and
	// packed into a public input.
	Challenge uint64
	// DataLeaf is the challenged data node (comm_d_proofs leaf).
	DataLeaf fr.Element
	// CommDPath opens DataLeaf in tree_d (binary, SHA-254).
	CommDPath []PathLevel
	// CommRLastPath opens the encoded node in tree_r_last.
	CommRLastPath []PathLevel
	// CommCPath opens the challenged column's hash in tree_c (c_x).
	CommCPath []PathLevel
	// DRGParents (6) and ExpParents (8) in graph order.
	DRGParents []ColumnOpening
	ExpParents []ColumnOpening
}

// PartitionInputs is everything the stacked circuit of one partition takes
// (StackedCompound::circuit): the public commitments, the partition's
// private roots and one ChallengeInputs per challenge in vanilla order.
type PartitionInputs struct {
	Proof     filecoin.RegisteredSealProof
	Partition int
	ReplicaID fr.Element
	CommD     fr.Element
	CommR     fr.Element
	// CommRLast and CommC are the roots every proof of the partition
	// agrees on (proofs[0].comm_r_last_proof.root and
	// proofs[0].replica_column_proofs.c_x.inclusion_proof.root).
	CommRLast  fr.Element
	CommC      fr.Element
	Challenges []ChallengeInputs
}

// CircuitInputs validates o ([c1.Output.Validate]) and extracts the circuit
// inputs of partition k. Like upstream it requires the partition's proofs
// to agree on comm_r_last and comm_c (ErrInconsistentRoots) but checks
// nothing else semantically, so a tampered C1 reaches the circuit and makes
// it unsatisfied; run [VerifyVanilla] to reject such a C1 up front.
func CircuitInputs(o *c1.Output, k int) (*PartitionInputs, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return ValidatedCircuitInputs(o, k)
}

// ValidatedCircuitInputs is CircuitInputs for an Output that has already
// passed Validate (re-validating the whole C1 for each of its partitions
// is quadratic in the partition count: 126 for a 32 GiB NI-PoRep).
func ValidatedCircuitInputs(o *c1.Output, k int) (*PartitionInputs, error) {
	if k < 0 || k >= len(o.VanillaProofs) {
		return nil, fmt.Errorf("%w: partition %d of %d", ErrPartition, k, len(o.VanillaProofs))
	}
	proofs := o.VanillaProofs[k]
	in := &PartitionInputs{
		Proof:      o.RegisteredProof,
		Partition:  k,
		ReplicaID:  element(&o.ReplicaID),
		CommD:      element(&o.CommD),
		CommR:      element(&o.CommR),
		CommRLast:  element(&proofs[0].CommRLastProof.Root),
		CommC:      element(&proofs[0].ReplicaColumnProofs.CX.InclusionProof.Root),
		Challenges: make([]ChallengeInputs, len(proofs)),
	}
	for i := range proofs {
		p := &proofs[i]
		if p.CommRLastProof.Root != proofs[0].CommRLastProof.Root {
			return nil, fmt.Errorf("%w at %s.comm_r_last_proof: root differs from proof 0's", ErrInconsistentRoots, proofPath(o, k, i))
		}
		if p.ReplicaColumnProofs.CX.InclusionProof.Root != proofs[0].ReplicaColumnProofs.CX.InclusionProof.Root {
			return nil, fmt.Errorf("%w at %s.replica_column_proofs.c_x: comm_c differs from proof 0's", ErrInconsistentRoots, proofPath(o, k, i))
		}
		r := &p.ReplicaColumnProofs
		in.Challenges[i] = ChallengeInputs{
			Challenge:     p.LabelingProofs[0].Node,
			DataLeaf:      element(&p.CommDProofs.Leaf),
			CommDPath:     pathLevels(&p.CommDProofs),
			CommRLastPath: pathLevels(&p.CommRLastProof),
			CommCPath:     pathLevels(&r.CX.InclusionProof),
			DRGParents:    openings(r.DRGParents),
			ExpParents:    openings(r.ExpParents),
		}
	}
	return in, nil
}

// PublicInputs are the values the circuit for these inputs puts into its
// public inputs, in order: replica_id, comm_d, comm_r, then per challenge
// the leaf indexes its paths open and the challenge. For an honest C1 they
// equal [SealPublic.PublicInputs] (VerifyVanilla checks the parts that could
// differ).
func (p *PartitionInputs) PublicInputs() []fr.Element {
	out := make([]fr.Element, 0, 3+InputsPerChallenge*len(p.Challenges))
	out = append(out, p.ReplicaID, p.CommD, p.CommR)
	push := func(v uint64) {
		var e fr.Element
		e.SetUint64(v)
		out = append(out, e)
	}
	for i := range p.Challenges {
		c := &p.Challenges[i]
		push(leafIndex(c.CommDPath))
		for _, cols := range [2][]ColumnOpening{c.DRGParents, c.ExpParents} {
			for j := range cols {
				push(leafIndex(cols[j].Path))
			}
		}
		push(c.Challenge)
		push(leafIndex(c.CommRLastPath))
		push(leafIndex(c.CommCPath))
	}
	return out
}

// leafIndex is the leaf a path opens: the concatenated index bits.
func leafIndex(path []PathLevel) uint64 {
	var idx, weight uint64 = 0, 1
	for _, l := range path {
		idx += uint64(l.Index) * weight
		weight *= uint64(len(l.Siblings) + 1)
	}
	return idx
}

func proofPath(o *c1.Output, k, i int) string {
	return fmt.Sprintf("vanilla_proofs.%s[%d][%d]", o.VanillaProofsKey(), k, i)
}

// element converts a validated domain; Validate has already rejected
// non-canonical ones, so an error here is a bug.
func element(b *[32]byte) fr.Element {
	e, err := fr32.ToElement(*b)
	if err != nil {
		panic(fmt.Sprintf("porep: unvalidated field element %x", *b))
	}
	return e
}

func elements(ds [][32]byte) []fr.Element {
	out := make([]fr.Element, len(ds))
	for i := range ds {
		out[i] = element(&ds[i])
	}
	return out
}

func pathLevels(m *c1.MerkleProof) []PathLevel {
	out := make([]PathLevel, 0, m.Levels())
	for _, part := range [3][]c1.PathElement{m.Base, m.Sub, m.Top} {
		for _, e := range part {
			out = append(out, PathLevel{Siblings: elements(e.Hashes), Index: int(e.Index)})
		}
	}
	return out
}

func openings(cols []c1.ColumnProof) []ColumnOpening {
	out := make([]ColumnOpening, len(cols))
	for i := range cols {
		out[i] = ColumnOpening{
			Node: cols[i].Column.Index,
			Rows: elements(cols[i].Column.Rows),
			Path: pathLevels(&cols[i].InclusionProof),
		}
	}
	return out
}
