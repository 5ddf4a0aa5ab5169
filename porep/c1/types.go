package c1

import (
	"fmt"

	"github.com/cuzk-dev/cuzk/filecoin"
)

// Output is the api-level SealCommitPhase1Output. Fields are in serde order.
type Output struct {
	// RegisteredProof is "registered_proof".
	RegisteredProof filecoin.RegisteredSealProof
	// VanillaProofs is the content of "vanilla_proofs": one slice per
	// partition, each with one Proof per challenge in derivation order.
	VanillaProofs [][]Proof
	CommR         [32]byte
	CommD         [32]byte
	ReplicaID     [32]byte
	Seed          [32]byte
	Ticket        [32]byte

	// vanillaKey is the enum tag read by Unmarshal ("StackedDrg2KiBV1").
	// Empty means RegisteredProof.VanillaProofKey(), which is what it must
	// be; Validate reports a disagreement and AppendJSON writes what was read.
	vanillaKey string
}

// VanillaProofsKey is the "vanilla_proofs" enum tag the output carries: the
// one read by Unmarshal, or RegisteredProof.VanillaProofKey() for an
// Output built in code.
func (o *Output) VanillaProofsKey() string {
	if o.vanillaKey != "" {
		return o.vanillaKey
	}
	return o.RegisteredProof.VanillaProofKey()
}

// Proof is the vanilla proof of one challenge (stacked::Proof).
type Proof struct {
	// CommDProofs proves the data node in tree_d (binary SHA-254, always
	// the Single variant).
	CommDProofs MerkleProof
	// CommRLastProof proves the replica node in tree_r_last.
	CommRLastProof      MerkleProof
	ReplicaColumnProofs ReplicaColumnProof
	// LabelingProofs holds one proof per layer, layer 1 first.
	LabelingProofs []LabelingProof
	EncodingProof  EncodingProof
}

// ReplicaColumnProof opens the challenged column and its parents' columns
// in tree_c.
type ReplicaColumnProof struct {
	CX ColumnProof // "c_x": the challenged node's column
	// DRGParents follow graph.BaseParents order (6), ExpParents
	// graph.ExpanderParents order (8).
	DRGParents []ColumnProof
	ExpParents []ColumnProof
}

// ColumnProof is a column and its inclusion proof in tree_c.
type ColumnProof struct {
	Column         Column
	InclusionProof MerkleProof
}

// Column is the labels of one node in every layer. JSON writes the
// PhantomData "_h" as null after the rows.
type Column struct {
	Index uint32
	Rows  [][32]byte // layer 1 first
}

// LabelingProof lists the 37 parent labels that produced the label of Node
// in layer LayerIndex (1-based).
type LabelingProof struct {
	Parents    [][32]byte
	LayerIndex uint32
	Node       uint64
}

// EncodingProof is the labeling proof of the last layer (the encoding key).
type EncodingProof struct {
	Parents    [][32]byte
	LayerIndex uint32
	Node       uint64
}

// ProofVariant is the ProofData enum tag of a MerkleProof.
type ProofVariant uint8

// Merkle proof variants. Trees without sub or top levels give Single.
const (
	Single ProofVariant = iota
	Sub
	Top
)

// String returns the JSON tag.
func (v ProofVariant) String() string {
	switch v {
	case Single:
		return "Single"
	case Sub:
		return "Sub"
	case Top:
		return "Top"
	}
	return fmt.Sprintf("ProofVariant(%d)", uint8(v))
}

// MerkleProof is storage-proofs-core's MerkleProof. The path is kept in
// the parts the JSON has: Base is "path" of a Single proof or "base_proof"
// of a Sub or Top proof, Sub is "sub_proof" and Top is "top_proof". Parts a
// variant does not have are nil and are not written.
type MerkleProof struct {
	Variant ProofVariant
	Root    [32]byte // root of the whole (compound) tree
	Leaf    [32]byte
	Base    []PathElement
	Sub     []PathElement
	Top     []PathElement
}

// PathElement is one tree level, leaf side first: the arity-1 sibling hashes
// in order (the node itself left out) and the node's position among its
// arity children.
type PathElement struct {
	Hashes [][32]byte
	Index  uint64
}

// Path returns the levels from the leaf up: Base, then Sub, then Top. It
// aliases Base when the other parts are empty.
func (p *MerkleProof) Path() []PathElement {
	if len(p.Sub) == 0 && len(p.Top) == 0 {
		return p.Base
	}
	out := make([]PathElement, 0, len(p.Base)+len(p.Sub)+len(p.Top))
	out = append(out, p.Base...)
	out = append(out, p.Sub...)
	return append(out, p.Top...)
}

// Levels is the number of path elements.
func (p *MerkleProof) Levels() int { return len(p.Base) + len(p.Sub) + len(p.Top) }

// LeafIndex is upstream's path_index: each level's index weighted by the
// product of the arities below it, i.e. the leaf the path opens. It wraps
// silently on absurd inputs; Validate bounds every index first.
func (p *MerkleProof) LeafIndex() uint64 {
	var idx, weight uint64 = 0, 1
	for _, part := range [3][]PathElement{p.Base, p.Sub, p.Top} {
		for _, e := range part {
			idx += e.Index * weight
			weight *= uint64(len(e.Hashes) + 1)
		}
	}
	return idx
}
