package circuit

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/gadgets"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// Dims are the dimensions that fix the circuit's structure: the tree shape
// of tree_c and tree_r_last, the number of layers, tree_d's depth and the
// challenge count. Every partition of a registered proof has the same Dims.
type Dims struct {
	Tree       merkle.Shape
	TreeLevels int // path length in tree_c and tree_r_last: base levels, then sub, then top
	Layers     int
	TreeDDepth int
	Challenges int // per partition
}

// DimsOf returns the circuit dimensions of a registered seal proof.
func DimsOf(p filecoin.RegisteredSealProof) (Dims, error) {
	if !p.Valid() {
		return Dims{}, fmt.Errorf("circuit: %w: %d", filecoin.ErrUnknownSealProof, int64(p))
	}
	s := p.SealSpec()
	return Dims{
		Tree:       s.Tree(),
		TreeLevels: s.TreePathLength(),
		Layers:     s.Layers(),
		TreeDDepth: s.TreeDDepth(),
		Challenges: p.ChallengesPerPartition(),
	}, nil
}

// pathArities are the arities, level by level, of a tree_c or tree_r_last
// path (tree) and of a tree_d path (treeD) in a circuit of dimensions d.
func (d Dims) pathArities() (tree, treeD []int, err error) {
	tree, err = d.Tree.AppendPathArities(nil, d.TreeLevels)
	if err != nil {
		return nil, nil, fmt.Errorf("circuit: %w", err)
	}
	treeD, err = merkle.ShapeBinary.AppendPathArities(nil, d.TreeDDepth)
	if err != nil {
		return nil, nil, fmt.Errorf("circuit: tree_d: %w", err)
	}
	return tree, treeD, nil
}

// Stacked is the circuit of one partition. It implements r1cs.Circuit;
// synthesising it twice emits the same rows (it keeps scratch space, so one
// value must not be synthesised by two goroutines at once).
type Stacked struct {
	Dims Dims
	In   *porep.PartitionInputs

	sha    gadgets.Sha256
	sha254 gadgets.Sha254Hasher
	por    gadgets.PoR
	path   []gadgets.PathElement
	tmp    []gadgets.Boolean
	msg    []gadgets.Boolean
	digest []gadgets.Boolean
	le     []gadgets.Boolean
	// bits[p] holds parent p's row bits for the current layer (256 each).
	bits [14][]gadgets.Boolean
}

// New returns the circuit for one partition's inputs, checking that they
// have the dimensions d everywhere (the C1 parser checks this too; a
// circuit must never silently emit a different R1CS).
func New(d Dims, in *porep.PartitionInputs) (*Stacked, error) {
	if len(in.Challenges) != d.Challenges {
		return nil, fmt.Errorf("circuit: %d challenges, dimensions need %d", len(in.Challenges), d.Challenges)
	}
	arities, binary, err := d.pathArities()
	if err != nil {
		return nil, err
	}
	checkPath := func(what string, path []porep.PathLevel, want []int) error {
		if len(path) != len(want) {
			return fmt.Errorf("%s has %d levels, want %d", what, len(path), len(want))
		}
		for l, a := range want {
			if len(path[l].Siblings) != a-1 {
				return fmt.Errorf("%s level %d has %d siblings, arity %d", what, l, len(path[l].Siblings), a)
			}
		}
		return nil
	}
	for i := range in.Challenges {
		c := &in.Challenges[i]
		if err := checkPath("tree_d path", c.CommDPath, binary); err != nil {
			return nil, fmt.Errorf("circuit: challenge %d: %w", i, err)
		}
		if err := checkPath("tree_r_last path", c.CommRLastPath, arities); err != nil {
			return nil, fmt.Errorf("circuit: challenge %d: %w", i, err)
		}
		if err := checkPath("c_x path", c.CommCPath, arities); err != nil {
			return nil, fmt.Errorf("circuit: challenge %d: %w", i, err)
		}
		if len(c.DRGParents) != filecoin.DRGDegree || len(c.ExpParents) != filecoin.ExpansionDegree {
			return nil, fmt.Errorf("circuit: challenge %d: %d DRG and %d expander parents", i, len(c.DRGParents), len(c.ExpParents))
		}
		for _, cols := range [][]porep.ColumnOpening{c.DRGParents, c.ExpParents} {
			for j := range cols {
				if len(cols[j].Rows) != d.Layers {
					return nil, fmt.Errorf("circuit: challenge %d: parent column with %d rows, want %d", i, len(cols[j].Rows), d.Layers)
				}
				if err := checkPath("parent column path", cols[j].Path, arities); err != nil {
					return nil, fmt.Errorf("circuit: challenge %d: %w", i, err)
				}
			}
		}
	}
	return &Stacked{Dims: d, In: in}, nil
}

// Synthesize implements r1cs.Circuit.
func (s *Stacked) Synthesize(cs *r1cs.CS) error {
	in := s.In

	replicaID := gadgets.AllocNum(cs, in.ReplicaID)
	replicaID.Inputize(cs)
	s.tmp = replicaID.ToBitsLE(cs, s.tmp[:0])
	replicaBits := gadgets.ReverseBitNumbering(make([]gadgets.Boolean, 0, 256), s.tmp)

	commD := gadgets.AllocNum(cs, in.CommD)
	commD.Inputize(cs)
	commR := gadgets.AllocNum(cs, in.CommR)
	commR.Inputize(cs)
	commRLast := gadgets.AllocNum(cs, in.CommRLast)
	commC := gadgets.AllocNum(cs, in.CommC)

	cs.Push("H_comm_c_comm_r_last")
	h := gadgets.PoseidonHasher{}.Hash2(cs, commC, commRLast)
	cs.Pop()
	gadgets.Equal(cs, commR, h)

	for i := range in.Challenges {
		cs.PushIdx("challenge", i)
		if err := s.challenge(cs, &in.Challenges[i], commD, commC, commRLast, replicaBits); err != nil {
			cs.Pop()
			return fmt.Errorf("circuit: challenge %d: %w", i, err)
		}
		cs.Pop()
	}
	return nil
}

func (s *Stacked) challenge(cs *r1cs.CS, c *porep.ChallengeInputs, commD, commC, commRLast gadgets.AllocatedNum, replicaBits []gadgets.Boolean) error {
	layers := s.Dims.Layers
	dataLeaf := gadgets.AllocNum(cs, c.DataLeaf)

	cs.Push("comm_d_inclusion")
	err := s.inclusion(cs, merkle.ShapeBinary, &s.sha254, c.CommDPath, commD, dataLeaf)
	cs.Pop()
	if err != nil {
		return fmt.Errorf("tree_d inclusion: %w", err)
	}

	// Parent columns: rows, column hash, inclusion in tree_c.
	var cols [14][]gadgets.AllocatedNum
	openings := [14]*porep.ColumnOpening{}
	for p := range c.DRGParents {
		openings[p] = &c.DRGParents[p]
	}
	for p := range c.ExpParents {
		openings[len(c.DRGParents)+p] = &c.ExpParents[p]
	}
	for p, o := range openings {
		if p < len(c.DRGParents) {
			cs.PushIdx("drg_parent", p)
		} else {
			cs.PushIdx("exp_parent", p-len(c.DRGParents))
		}
		rows := make([]gadgets.AllocatedNum, layers)
		for l := range rows {
			rows[l] = gadgets.AllocNum(cs, o.Rows[l])
		}
		colHash, err := gadgets.PoseidonHash(cs, rows)
		if err == nil {
			err = s.inclusion(cs, s.Dims.Tree, gadgets.PoseidonHasher{}, o.Path, commC, colHash)
		}
		cs.Pop()
		if err != nil {
			return fmt.Errorf("parent column %d: %w", p, err)
		}
		cols[p] = rows
	}

	challenge := gadgets.AllocUInt64(cs, c.Challenge)
	challenge.PackIntoInput(cs)

	labels := make([]gadgets.AllocatedNum, layers)
	for layer := 1; layer <= layers; layer++ {
		cs.PushIdx("labeling", layer)
		nParents := filecoin.DRGDegree
		if layer > 1 {
			nParents = len(openings)
		}
		for p := 0; p < nParents; p++ {
			row := layer - 1 // DRG parents: same layer
			if p >= filecoin.DRGDegree {
				row = layer - 2 // expander parents: previous layer
			}
			s.tmp = cols[p][row].ToBitsLE(cs, s.tmp[:0])
			s.bits[p] = gadgets.ReverseBitNumbering(s.bits[p][:0], s.tmp)
		}
		labels[layer-1] = s.label(cs, replicaBits, nParents, uint32(layer), &challenge)
		cs.Pop()
	}

	cs.Push("encode_node")
	encoded := gadgets.Add(cs, labels[layers-1], dataLeaf)
	cs.Pop()
	cs.Push("comm_r_last_data_inclusion")
	err = s.inclusion(cs, s.Dims.Tree, gadgets.PoseidonHasher{}, c.CommRLastPath, commRLast, encoded)
	cs.Pop()
	if err != nil {
		return fmt.Errorf("tree_r_last inclusion: %w", err)
	}

	cs.Push("c_x")
	colHash, err := gadgets.PoseidonHash(cs, labels)
	if err == nil {
		err = s.inclusion(cs, s.Dims.Tree, gadgets.PoseidonHasher{}, c.CommCPath, commC, colHash)
	}
	cs.Pop()
	if err != nil {
		return fmt.Errorf("c_x inclusion: %w", err)
	}
	return nil
}

// label is create_label_circuit: SHA-256 over replica_id (256 bits) ‖ layer
// (u32 BE, constant) ‖ challenge (u64 BE, allocated bits) ‖ zero padding to
// 512 bits ‖ 37 parents (256 bits each: the nParents parents repeated: for
// layer 1 the 6 DRG parents six times plus the first; later layers the 14
// parents twice plus the first 9), then reverse_bit_numbering and the first
// 254 bits packed into a number.
func (s *Stacked) label(cs *r1cs.CS, replicaBits []gadgets.Boolean, nParents int, layer uint32, challenge *gadgets.UInt64) gadgets.AllocatedNum {
	msg := append(s.msg[:0], replicaBits...)
	lay := gadgets.UInt32Constant(layer)
	msg = lay.AppendBitsBE(msg)
	msg = challenge.AppendBitsBE(msg)
	for len(msg) < 512 {
		msg = append(msg, gadgets.Constant(false))
	}
	for i := 0; i < filecoin.TotalParents; i++ {
		msg = append(msg, s.bits[i%nParents]...)
	}
	s.msg = msg
	s.digest = s.sha.Hash(cs, s.digest[:0], msg)
	s.le = gadgets.ReverseBitNumbering(s.le[:0], s.digest)
	return gadgets.PackBits(cs, s.le[:gadgets.Capacity])
}

// inclusion is enforce_inclusion: a PoR with an allocated leaf and a private
// allocated root.
func (s *Stacked) inclusion(cs *r1cs.CS, shape merkle.Shape, h gadgets.NodeHasher, path []porep.PathLevel, root, leaf gadgets.AllocatedNum) error {
	s.path = s.path[:0]
	for _, l := range path {
		s.path = append(s.path, gadgets.PathElement{Siblings: l.Siblings, Index: l.Index})
	}
	s.por.Shape = shape
	s.por.Hasher = h
	return s.por.Synthesize(cs, gadgets.RootVar(leaf), s.path, gadgets.RootVar(root), true)
}

// Blank returns inputs of the right dimensions for a registered proof with
// every value zero: enough to count rows or generate parameters, which do
// not depend on the witness.
func Blank(p filecoin.RegisteredSealProof) (Dims, *porep.PartitionInputs, error) {
	d, err := DimsOf(p)
	if err != nil {
		return Dims{}, nil, err
	}
	arity, err := d.Tree.AppendPathArities(nil, d.TreeLevels)
	if err != nil {
		return Dims{}, nil, fmt.Errorf("circuit: %w", err)
	}
	treePath := func() []porep.PathLevel {
		out := make([]porep.PathLevel, len(arity))
		for i, a := range arity {
			out[i].Siblings = make([]fr.Element, a-1)
		}
		return out
	}
	column := func() porep.ColumnOpening {
		return porep.ColumnOpening{Rows: make([]fr.Element, d.Layers), Path: treePath()}
	}
	in := &porep.PartitionInputs{Proof: p, Challenges: make([]porep.ChallengeInputs, d.Challenges)}
	for i := range in.Challenges {
		c := &in.Challenges[i]
		c.CommDPath = make([]porep.PathLevel, d.TreeDDepth)
		for l := range c.CommDPath {
			c.CommDPath[l].Siblings = make([]fr.Element, 1)
		}
		c.CommRLastPath, c.CommCPath = treePath(), treePath()
		for p := 0; p < filecoin.DRGDegree; p++ {
			c.DRGParents = append(c.DRGParents, column())
		}
		for p := 0; p < filecoin.ExpansionDegree; p++ {
			c.ExpParents = append(c.ExpParents, column())
		}
	}
	return d, in, nil
}
