package porep

import (
	"context"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/par"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/graph"
	"github.com/cuzk-dev/cuzk/sectordir"
)

// ErrVanillaInvalid is returned (wrapped, through one of the errors below)
// by VerifyVanilla and CircuitInputs when a C1's vanilla proofs are wrong:
// they would make the circuit unsatisfiable or the proof invalid. It is the
// native check of a request; a proof that does not verify is the engine's
// self-check, prover.ErrSelfCheck.
var ErrVanillaInvalid = errors.New("porep: vanilla proof invalid")

// The ways a C1 can be wrong; each wraps ErrVanillaInvalid.
var (
	// ErrInconsistentRoots is returned when a proof's root is not the commitment it must
	// open: tree_d roots against comm_d, tree_r_last roots against the
	// partition's comm_r_last, tree_c roots against its comm_c.
	ErrInconsistentRoots = fmt.Errorf("%w: Merkle root disagrees with its commitment", ErrVanillaInvalid)
	// ErrCommR is returned when comm_r is not Poseidon-2(comm_c, comm_r_last).
	ErrCommR = fmt.Errorf("%w: comm_r is not H(comm_c, comm_r_last)", ErrVanillaInvalid)
	// ErrChallenge is returned when a challenge is not the one derived from the public
	// values, or a part of a proof opens another node.
	ErrChallenge = fmt.Errorf("%w: wrong challenge", ErrVanillaInvalid)
	// ErrParents is returned when a parent column is not the graph's parent.
	ErrParents = fmt.Errorf("%w: wrong parent column", ErrVanillaInvalid)
	// ErrMerkleProof is returned when an inclusion path does not hash to its root.
	ErrMerkleProof = fmt.Errorf("%w: Merkle proof does not verify", ErrVanillaInvalid)
	// ErrColumnHash is returned when a tree_c leaf is not the hash of its column.
	ErrColumnHash = fmt.Errorf("%w: tree_c leaf is not the column hash", ErrVanillaInvalid)
	// ErrLabel is returned when a labeling proof has the wrong layer, node or parents, or
	// its label is not the column's row.
	ErrLabel = fmt.Errorf("%w: label does not recompute", ErrVanillaInvalid)
	// ErrEncoding is returned when the encoding proof or the replica node is wrong.
	ErrEncoding = fmt.Errorf("%w: encoding does not recompute", ErrVanillaInvalid)
)

// VerifyVanilla verifies a C1 natively, as rust-fil-proofs' vanilla
// verify_all_partitions does after commit phase 1, plus the public-input
// consistency verify_seal would find later: the challenges derive from
// replica_id and seed (or comm_r), every proof opens its challenge, parent
// columns are the graph's parents, every Merkle path verifies against the
// right commitment, tree_c leaves are column hashes, every label recomputes
// from its parents and equals the column row, the encoding proof's key plus
// the data leaf is the replica leaf, and comm_r = H(comm_c, comm_r_last).
// Challenges are checked on up to workers goroutines (< 1 means 1); the
// first failure in document order is returned, naming its JSON path.
// replica_id itself cannot be checked: it needs prover id, sector number
// and ticket, which a C1 does not carry in full.
func VerifyVanilla(ctx context.Context, o *c1.Output, workers int) error {
	if err := o.Validate(); err != nil {
		return err
	}
	cfg, err := ConfigFor(o.RegisteredProof)
	if err != nil {
		return err
	}
	g, err := cfg.Graph()
	if err != nil {
		return err
	}
	t := cfg.SealSpec().Tree()
	s := &checker{
		o: o, cfg: cfg, g: g,
		shape:  t,
		leaves: int(cfg.Nodes()),
		layers: cfg.SealSpec().Layers(),
	}
	workers = max(workers, 1)
	for k := range o.VanillaProofs {
		if err := s.partition(ctx, k, workers); err != nil {
			return err
		}
	}
	return nil
}

// checker holds what every challenge check reads; it is not modified
// once VerifyVanilla has built it.
type checker struct {
	o      *c1.Output
	cfg    Config
	g      *graph.Graph
	shape  merkle.Shape
	leaves int
	layers int
}

// proofCheck is the state of one challenge's check.
type proofCheck struct {
	*checker
	commRLast, commC [32]byte
	where            string
}

func (s *proofCheck) fail(sentinel error, sub, format string, args ...any) error {
	at := s.where
	if sub != "" {
		at += "." + sub
	}
	return fmt.Errorf("%w at %s: %s", sentinel, at, fmt.Sprintf(format, args...))
}

func (s *checker) partition(ctx context.Context, k, workers int) error {
	proofs := s.o.VanillaProofs[k]
	challenges, err := s.cfg.Challenges(s.o.ReplicaID, s.o.CommR, s.o.Seed, k)
	if err != nil {
		return err
	}
	commRLast := proofs[0].CommRLastProof.Root
	commC := proofs[0].ReplicaColumnProofs.CX.InclusionProof.Root
	commR := sectordir.CommR(element(&commC), element(&commRLast))
	if want := element(&s.o.CommR); !commR.Equal(&want) {
		return fmt.Errorf("%w at vanilla_proofs.%s[%d]: H(comm_c, comm_r_last) of partition %d is not comm_r",
			ErrCommR, s.o.VanillaProofsKey(), k, k)
	}
	// One challenge per chunk: chunks are handed out in order, so the
	// lowest failing one par.Do reports is the first failure in document
	// order.
	err = par.Do(ctx, len(proofs), 1, workers, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			pc := &proofCheck{checker: s, commRLast: commRLast, commC: commC, where: proofPath(s.o, k, i)}
			if err := pc.proof(&proofs[i], challenges[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("porep: vanilla check: %w", cerr)
	}
	return err
}

func (s *proofCheck) proof(p *c1.Proof, c uint64) error {
	if got := p.LabelingProofs[0].Node; got != c {
		return s.fail(ErrChallenge, "labeling_proofs[0].node", "challenge %d, but the seal's challenge is %d", got, c)
	}

	// tree_d.
	if p.CommDProofs.Root != s.o.CommD {
		return s.fail(ErrInconsistentRoots, "comm_d_proofs", "root is not comm_d")
	}
	if err := s.sha254(&p.CommDProofs, c, "comm_d_proofs"); err != nil {
		return err
	}

	// tree_r_last, whose leaf is checked against the encoding below.
	if p.CommRLastProof.Root != s.commRLast {
		return s.fail(ErrInconsistentRoots, "comm_r_last_proof", "root differs from the partition's comm_r_last")
	}
	if err := s.poseidon(&p.CommRLastProof, c, ErrChallenge, "comm_r_last_proof"); err != nil {
		return err
	}

	// Columns.
	r := &p.ReplicaColumnProofs
	if err := s.column(&r.CX, c, ErrChallenge, "replica_column_proofs.c_x"); err != nil {
		return err
	}
	var parents [graph.Degree]uint32
	s.g.Parents(uint32(c), parents[:])
	for j := range r.DRGParents {
		if err := s.column(&r.DRGParents[j], uint64(parents[j]), ErrParents, fmt.Sprintf("replica_column_proofs.drg_parents[%d]", j)); err != nil {
			return err
		}
	}
	for j := range r.ExpParents {
		if err := s.column(&r.ExpParents[j], uint64(parents[graph.BaseDegree+j]), ErrParents, fmt.Sprintf("replica_column_proofs.exp_parents[%d]", j)); err != nil {
			return err
		}
	}

	// Labels: the parents a labeling proof lists must be the parent
	// columns' rows (DRG parents in the same layer, expander parents in the
	// one below, cycled to 37), and the label must be the challenged row.
	replicaID := s.o.ReplicaID
	want := make([][32]byte, 0, filecoin.TotalParents)
	for l := range p.LabelingProofs {
		lp := &p.LabelingProofs[l]
		at := fmt.Sprintf("labeling_proofs[%d]", l)
		layer := uint32(l + 1)
		if lp.LayerIndex != layer {
			return s.fail(ErrLabel, at+".layer_index", "layer %d, want %d", lp.LayerIndex, layer)
		}
		if lp.Node != c {
			return s.fail(ErrChallenge, at+".node", "node %d, challenge is %d", lp.Node, c)
		}
		want = labelParents(want[:0], r, l)
		for j := range want {
			if lp.Parents[j] != want[j] {
				return s.fail(ErrLabel, fmt.Sprintf("%s.parents[%d]", at, j), "not the label of the parent column's layer-%d row", parentLayer(j, l))
			}
		}
		if lbl := Label(&replicaID, layer, c, lp.Parents); lbl != r.CX.Column.Rows[l] {
			return s.fail(ErrLabel, at, "label of node %d in layer %d is not c_x.column.rows[%d]", c, layer, l)
		}
	}

	// Encoding: key (last label) + data = replica node.
	e := &p.EncodingProof
	last := &p.LabelingProofs[s.layers-1]
	if e.LayerIndex != last.LayerIndex || e.Node != c {
		return s.fail(ErrEncoding, "encoding_proof", "layer %d node %d, want layer %d node %d", e.LayerIndex, e.Node, last.LayerIndex, c)
	}
	for j := range e.Parents {
		if e.Parents[j] != last.Parents[j] {
			return s.fail(ErrEncoding, fmt.Sprintf("encoding_proof.parents[%d]", j), "differs from the last labeling proof")
		}
	}
	key := Label(&replicaID, e.LayerIndex, e.Node, e.Parents)
	replica := Encode(element(&key), element(&p.CommDProofs.Leaf))
	if leaf := element(&p.CommRLastProof.Leaf); !replica.Equal(&leaf) {
		return s.fail(ErrEncoding, "comm_r_last_proof", "leaf is not key + data")
	}
	return nil
}

// labelParents appends the 37 parent labels of layer index l (0-based) as
// prove_layers_generate lists them.
func labelParents(dst [][32]byte, r *c1.ReplicaColumnProof, l int) [][32]byte {
	var base [graph.Degree][32]byte
	n := 0
	for _, col := range r.DRGParents {
		base[n] = col.Column.Rows[l]
		n++
	}
	if l > 0 {
		for _, col := range r.ExpParents {
			base[n] = col.Column.Rows[l-1]
			n++
		}
	}
	for len(dst) < filecoin.TotalParents {
		dst = append(dst, base[len(dst)%n])
	}
	return dst
}

// parentLayer is the (1-based) layer parent label j of layer index l comes
// from, for error messages.
func parentLayer(j, l int) int {
	if l == 0 || j%graph.Degree < graph.BaseDegree {
		return l + 1
	}
	return l
}

// column checks a column opening of node: its index, its inclusion path
// (which must open node, under comm_c) and that its leaf is the column hash.
func (s *proofCheck) column(cp *c1.ColumnProof, node uint64, wrongNode error, at string) error {
	if uint64(cp.Column.Index) != node {
		return s.fail(wrongNode, at+".column.index", "column of node %d, want node %d", cp.Column.Index, node)
	}
	if cp.InclusionProof.Root != s.commC {
		return s.fail(ErrInconsistentRoots, at+".inclusion_proof", "root differs from the partition's comm_c")
	}
	hash := ColumnHash(elements(cp.Column.Rows))
	if leaf := element(&cp.InclusionProof.Leaf); !hash.Equal(&leaf) {
		return s.fail(ErrColumnHash, at+".inclusion_proof", "leaf is not the hash of the column rows")
	}
	return s.poseidon(&cp.InclusionProof, node, wrongNode, at+".inclusion_proof")
}

func (s *proofCheck) poseidon(m *c1.MerkleProof, node uint64, wrongNode error, at string) error {
	if got := m.LeafIndex(); got != node {
		return s.fail(wrongNode, at, "path opens leaf %d, want %d", got, node)
	}
	p := &merkle.PoseidonProof{Leaf: element(&m.Leaf), Root: element(&m.Root)}
	for _, part := range [3][]c1.PathElement{m.Base, m.Sub, m.Top} {
		for _, e := range part {
			p.Path = append(p.Path, merkle.PathElement[fr.Element]{Hashes: elements(e.Hashes), Index: int(e.Index)})
		}
	}
	if err := merkle.VerifyPoseidon(p, s.shape, s.leaves); err != nil {
		return s.fail(ErrMerkleProof, at, "%v", err)
	}
	return nil
}

func (s *proofCheck) sha254(m *c1.MerkleProof, node uint64, at string) error {
	if got := m.LeafIndex(); got != node {
		return s.fail(ErrChallenge, at, "path opens leaf %d, want %d", got, node)
	}
	p := &merkle.Sha254Proof{Leaf: m.Leaf, Root: m.Root, Path: make([]merkle.PathElement[[32]byte], len(m.Base))}
	for i, e := range m.Base {
		p.Path[i] = merkle.PathElement[[32]byte]{Hashes: e.Hashes, Index: int(e.Index)}
	}
	if err := merkle.VerifySha254(p, s.leaves); err != nil {
		return s.fail(ErrMerkleProof, at, "%v", err)
	}
	return nil
}
