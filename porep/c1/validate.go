package c1

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/merkle"
)

// Parse decodes and validates a C1 JSON document.
func Parse(data []byte) (*Output, error) {
	o, err := Unmarshal(data)
	if err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return o, nil
}

// Layout is the shape every vanilla proof of one sector configuration must
// have. [LayoutFor] gives it for a registered proof; tests of upstream's
// small circuit shapes (8 nodes, 8-4-0 trees…) build one by hand.
type Layout struct {
	Nodes                  uint64
	Layers                 int
	Tree                   merkle.Shape // tree_c and tree_r_last
	Partitions             int
	ChallengesPerPartition int
}

// LayoutFor is the layout of a registered proof's C1.
func LayoutFor(p filecoin.RegisteredSealProof) (Layout, error) {
	if !p.Valid() {
		return Layout{}, fmt.Errorf("%w: %v", ErrUnknownProof, p)
	}
	sh := p.SealSpec()
	return Layout{
		Nodes:                  sh.Nodes(),
		Layers:                 sh.Layers(),
		Tree:                   sh.Tree(),
		Partitions:             p.Partitions(),
		ChallengesPerPartition: p.ChallengesPerPartition(),
	}, nil
}

// Variant is the Merkle proof variant of tree_c and tree_r_last proofs.
func (l Layout) Variant() ProofVariant {
	switch {
	case l.Tree.Top != 0:
		return Top
	case l.Tree.Sub != 0:
		return Sub
	}
	return Single
}

// TreeArities lists the arity of every tree_c/tree_r_last level, leaf side
// first.
func (l Layout) TreeArities() ([]int, error) {
	if l.Nodes > 1<<40 {
		return nil, fmt.Errorf("%d nodes: %w", l.Nodes, merkle.ErrLeafCount)
	}
	return l.Tree.Arities(int(l.Nodes))
}

// TreeDDepth is the number of levels of tree_d (log2 of the node count).
func (l Layout) TreeDDepth() int { return bits.Len64(l.Nodes) - 1 }

// Validate checks proofs (partition-major, as in a C1) against the layout.
// Paths in errors start at the outer array ("[0][1].comm_d_proofs…").
func (l Layout) Validate(proofs [][]Proof) error {
	v, err := l.validator()
	if err != nil {
		return err
	}
	return v.partitions(proofs)
}

// Validate checks everything C2 relies on that needs no hashing: the
// registered proof against the vanilla proof key, the shape of every proof,
// canonical field elements, and non-zero comm_d, comm_r and seed. See the
// package documentation.
func (o *Output) Validate() error {
	v := &validator{}
	if !o.RegisteredProof.Valid() {
		return v.fail("registered_proof", ErrUnknownProof, "%v is not a registered seal proof", o.RegisteredProof)
	}
	l, err := LayoutFor(o.RegisteredProof)
	if err != nil {
		return err
	}
	if v, err = l.validator(); err != nil {
		return err
	}
	key := o.VanillaProofsKey()
	v.path.key("vanilla_proofs")
	v.path.key(key)
	if want := o.RegisteredProof.VanillaProofKey(); key != want {
		return v.fail("", ErrProofMismatch, "registered_proof %v needs vanilla_proofs key %q", o.RegisteredProof, want)
	}
	if err := v.partitions(o.VanillaProofs); err != nil {
		return err
	}
	v.path = v.path[:0]
	if isZero(&o.CommR) {
		return v.fail("comm_r", ErrZeroCommitment, "comm_r is all zero")
	}
	if !belowR(&o.CommR) {
		return v.fail("comm_r", ErrNonCanonical, "not below the scalar field modulus")
	}
	if isZero(&o.CommD) {
		return v.fail("comm_d", ErrZeroCommitment, "comm_d is all zero")
	}
	if !below254(&o.CommD) {
		return v.fail("comm_d", ErrNonCanonical, "not below 2^254, so no SHA-254 tree root")
	}
	if !belowR(&o.ReplicaID) {
		return v.fail("replica_id", ErrNonCanonical, "not below the scalar field modulus")
	}
	if isZero(&o.Seed) {
		return v.fail("seed", ErrZeroSeed, "the challenge seed is all zero")
	}
	return nil
}

// validator walks proofs keeping the JSON path for errors.
type validator struct {
	l       Layout
	arities []int // tree_c / tree_r_last levels
	base    int   // base levels among them
	variant ProofVariant
	path    path
}

func (l Layout) validator() (*validator, error) {
	arities, err := l.TreeArities()
	if err != nil {
		return nil, &Error{Offset: -1, Err: ErrShape, Msg: fmt.Sprintf("layout: %v", err)}
	}
	if l.Layers < 1 || l.Nodes < 2 || l.Nodes&(l.Nodes-1) != 0 || l.Partitions < 1 || l.ChallengesPerPartition < 1 {
		return nil, &Error{Offset: -1, Err: ErrShape, Msg: fmt.Sprintf("layout %+v is impossible", l)}
	}
	base := len(arities)
	if l.Tree.Sub != 0 {
		base--
	}
	if l.Tree.Top != 0 {
		base--
	}
	return &validator{l: l, arities: arities, base: base, variant: l.Variant(), path: make(path, 0, 16)}, nil
}

// fail reports an error at the current path extended by key (if any).
func (v *validator) fail(key string, sentinel error, format string, args ...any) error {
	p := v.path.String()
	if key != "" {
		p = v.path.withKey(key)
	}
	return &Error{Path: p, Offset: -1, Err: sentinel, Msg: fmt.Sprintf(format, args...)}
}

func (v *validator) partitions(parts [][]Proof) error {
	if len(parts) != v.l.Partitions {
		return v.fail("", ErrShape, "%d partitions, want %d", len(parts), v.l.Partitions)
	}
	for k, part := range parts {
		v.path.idx(k)
		if len(part) != v.l.ChallengesPerPartition {
			return v.fail("", ErrShape, "%d challenge proofs in partition %d, want %d", len(part), k, v.l.ChallengesPerPartition)
		}
		for i := range part {
			v.path.idx(i)
			if err := v.proof(&part[i]); err != nil {
				return err
			}
			v.path.pop()
		}
		v.path.pop()
	}
	return nil
}

func (v *validator) proof(p *Proof) error {
	v.path.key("comm_d_proofs")
	if err := v.commDProof(&p.CommDProofs); err != nil {
		return err
	}
	v.path.pop()
	v.path.key("comm_r_last_proof")
	if err := v.treeProof(&p.CommRLastProof); err != nil {
		return err
	}
	v.path.pop()

	v.path.key("replica_column_proofs")
	r := &p.ReplicaColumnProofs
	v.path.key("c_x")
	if err := v.columnProof(&r.CX); err != nil {
		return err
	}
	v.path.pop()
	for _, g := range [...]struct {
		name string
		cols []ColumnProof
		want int
	}{{"drg_parents", r.DRGParents, filecoin.DRGDegree}, {"exp_parents", r.ExpParents, filecoin.ExpansionDegree}} {
		v.path.key(g.name)
		if len(g.cols) != g.want {
			return v.fail("", ErrShape, "%d parent columns, want %d", len(g.cols), g.want)
		}
		for i := range g.cols {
			v.path.idx(i)
			if err := v.columnProof(&g.cols[i]); err != nil {
				return err
			}
			v.path.pop()
		}
		v.path.pop()
	}
	v.path.pop()

	v.path.key("labeling_proofs")
	if len(p.LabelingProofs) != v.l.Layers {
		return v.fail("", ErrShape, "%d labeling proofs, want one per layer (%d)", len(p.LabelingProofs), v.l.Layers)
	}
	for i := range p.LabelingProofs {
		v.path.idx(i)
		if err := v.parents(p.LabelingProofs[i].Parents); err != nil {
			return err
		}
		v.path.pop()
	}
	v.path.pop()
	v.path.key("encoding_proof")
	if err := v.parents(p.EncodingProof.Parents); err != nil {
		return err
	}
	v.path.pop()
	return nil
}

func (v *validator) parents(ps [][32]byte) error {
	if len(ps) != filecoin.TotalParents {
		return v.fail("parents", ErrShape, "%d parent labels, want %d", len(ps), filecoin.TotalParents)
	}
	v.path.key("parents")
	if err := v.domainsBelowR(ps); err != nil {
		return err
	}
	v.path.pop()
	return nil
}

func (v *validator) columnProof(c *ColumnProof) error {
	v.path.key("column")
	if len(c.Column.Rows) != v.l.Layers {
		return v.fail("rows", ErrShape, "column has %d rows, want one per layer (%d)", len(c.Column.Rows), v.l.Layers)
	}
	v.path.key("rows")
	if err := v.domainsBelowR(c.Column.Rows); err != nil {
		return err
	}
	v.path.pop()
	v.path.pop()
	v.path.key("inclusion_proof")
	if err := v.treeProof(&c.InclusionProof); err != nil {
		return err
	}
	v.path.pop()
	return nil
}

// commDProof checks a tree_d proof: Single, binary, log2(nodes) levels,
// SHA-254 domains.
func (v *validator) commDProof(m *MerkleProof) error {
	v.path.key("data")
	if m.Variant != Single {
		return v.fail(m.Variant.String(), ErrShape, "tree_d proofs are Single, not %v", m.Variant)
	}
	v.path.key("Single")
	for _, f := range [...]struct {
		name string
		d    *[32]byte
	}{{"root", &m.Root}, {"leaf", &m.Leaf}} {
		if !below254(f.d) {
			return v.fail(f.name, ErrNonCanonical, "SHA-254 domain not below 2^254")
		}
	}
	v.path.key("path")
	v.path.key("path")
	if depth := v.l.TreeDDepth(); len(m.Base) != depth {
		return v.fail("", ErrShape, "%d levels, tree_d has %d", len(m.Base), depth)
	}
	for i := range m.Base {
		v.path.idx(i)
		if err := v.pathElement(&m.Base[i], 2, true); err != nil {
			return err
		}
		v.path.pop()
	}
	v.path = v.path[:len(v.path)-4]
	return nil
}

// treeProof checks a tree_c / tree_r_last proof against the layout.
func (v *validator) treeProof(m *MerkleProof) error {
	v.path.key("data")
	if m.Variant != v.variant {
		return v.fail(m.Variant.String(), ErrShape, "a %d-node %s tree gives %v proofs, not %v",
			v.l.Nodes, v.l.Tree, v.variant, m.Variant)
	}
	v.path.key(m.Variant.String())
	for _, f := range [...]struct {
		name string
		d    *[32]byte
	}{{"root", &m.Root}, {"leaf", &m.Leaf}} {
		if !belowR(f.d) {
			return v.fail(f.name, ErrNonCanonical, "not below the scalar field modulus")
		}
	}
	type part struct {
		name    string
		elems   []PathElement
		arities []int
	}
	parts := []part{{"path", m.Base, v.arities[:v.base]}}
	if m.Variant != Single {
		parts = []part{{"base_proof", m.Base, v.arities[:v.base]}, {"sub_proof", m.Sub, v.arities[v.base : v.base+1]}}
		if m.Variant == Top {
			parts = append(parts, part{"top_proof", m.Top, v.arities[v.base+1:]})
		}
	}
	for _, pt := range parts {
		v.path.key(pt.name)
		v.path.key("path")
		if len(pt.elems) != len(pt.arities) {
			return v.fail("", ErrShape, "%d levels, want %d", len(pt.elems), len(pt.arities))
		}
		for i := range pt.elems {
			v.path.idx(i)
			if err := v.pathElement(&pt.elems[i], pt.arities[i], false); err != nil {
				return err
			}
			v.path.pop()
		}
		v.path = v.path[:len(v.path)-2]
	}
	v.path = v.path[:len(v.path)-2]
	return nil
}

// pathElement checks one level; sha selects the SHA-254 canonicity rule.
func (v *validator) pathElement(e *PathElement, arity int, sha bool) error {
	if len(e.Hashes) != arity-1 {
		return v.fail("hashes", ErrShape, "%d sibling hashes, an arity-%d level has %d", len(e.Hashes), arity, arity-1)
	}
	if e.Index >= uint64(arity) {
		return v.fail("index", ErrShape, "index %d outside arity %d", e.Index, arity)
	}
	v.path.key("hashes")
	for i := range e.Hashes {
		if sha && !below254(&e.Hashes[i]) {
			v.path.idx(i)
			return v.fail("", ErrNonCanonical, "SHA-254 domain not below 2^254")
		}
		if !belowR(&e.Hashes[i]) {
			v.path.idx(i)
			return v.fail("", ErrNonCanonical, "not below the scalar field modulus")
		}
	}
	v.path.pop()
	return nil
}

func (v *validator) domainsBelowR(ds [][32]byte) error {
	for i := range ds {
		if !belowR(&ds[i]) {
			v.path.idx(i)
			return v.fail("", ErrNonCanonical, "not below the scalar field modulus")
		}
	}
	return nil
}

// modulus is r as little-endian 64-bit limbs.
var modulus = [4]uint64{0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48}

// belowR reports whether the little-endian integer b is below r.
func belowR(b *[32]byte) bool {
	for i := 3; i >= 0; i-- {
		w := binary.LittleEndian.Uint64(b[8*i:])
		if w != modulus[i] {
			return w < modulus[i]
		}
	}
	return false
}

// below254 reports whether b's two top bits are clear (a SHA-254 value).
func below254(b *[32]byte) bool { return b[31]&0xc0 == 0 }

func isZero(b *[32]byte) bool { return *b == [32]byte{} }
