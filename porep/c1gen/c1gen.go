// Package c1gen makes consistent PoRep commit-phase-1 outputs of any sector
// size without sealing: what `cuzk c1 gen` writes so that a 32 or 64 GiB C2
// can be proven and benchmarked on a machine that could never seal such a
// sector (days of SDR, hundreds of GB of layers).
//
// Everything a vanilla proof or the circuit checks holds: replica_id and the
// challenges are derived as upstream derives them; the label of every
// challenged node in every layer is computed from its parents' labels (DRG
// parents in the same layer, expander parents in the layer before, from the
// graph per node, without a parent cache); tree_d is the tree of a sector
// whose data is one block repeated, so every challenge reads real data;
// replica nodes are label plus data. What is made up is everything no proof
// reads: the columns of parents that are not themselves challenged are
// pseudo-random, and every other leaf of tree_c and tree_r_last is one
// default value, so those trees are sparse and cost a few thousand hashes per
// level. Such an output is accepted by this project's vanilla check and by
// rust-fil-proofs' (StackedDrg::verify_all_partitions), but it is not a
// sealed sector: Files marks every file written as made without sealing.
package c1gen

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/internal/detstream"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/graph"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/sectordir"
)

// ErrChallengeMode is returned for a registered proof whose challenges
// depend on comm_r (synthetic and non-interactive PoRep): comm_r depends on
// the columns at the challenged nodes, so those challenges cannot be known
// before the columns are chosen.
var ErrChallengeMode = errors.New("c1gen: challenges depend on comm_r")

// DefaultBlockNodes is the default data block: 1 MiB of padded data (32,768
// nodes), or the whole sector when it is smaller.
const DefaultBlockNodes = 1 << 15

// DataLabel is the detstream label of the default data block.
const DataLabel = "cuzk-c1gen-data-v1"

// columnTag separates the made-up columns' labels from anything else
// hashed with the replica id.
const columnTag = "cuzk-c1gen-column-v1"

// Params is what the generator picks. The zero values of Ticket and Seed
// are replaced by seal.DefaultTicket and seal.DefaultSeed.
type Params struct {
	Proof    filecoin.RegisteredSealProof
	ProverID [32]byte
	Sector   uint64
	Ticket   [32]byte
	Seed     [32]byte
	// Block is the padded data (a power of two of 32-byte nodes, every node
	// below 2^254, at most the sector) that fills the sector, repeated. Nil
	// means DefaultBlockNodes nodes of detstream(DataLabel), fr32-padded.
	Block []byte
}

// DefaultParams are the values `cuzk c1 gen` uses when given none: the seal
// test sector's miner, sector number, ticket and seed.
func DefaultParams(p filecoin.RegisteredSealProof) Params {
	return Params{Proof: p, ProverID: filecoin.ProverID(seal.DefaultMinerID), Sector: seal.DefaultSector,
		Ticket: seal.DefaultTicket, Seed: seal.DefaultSeed}
}

// DefaultBlock is the default data block of a sector of nodes nodes.
func DefaultBlock(nodes uint64) []byte {
	n := min(nodes, DefaultBlockNodes) * 32
	raw := detstream.New(DataLabel).Bytes(int(fr32.UnpaddedSize(n)))
	out := make([]byte, n)
	if err := fr32.Pad(out, raw); err != nil {
		panic(err) // sizes are whole fr32 chunks
	}
	return out
}

// Result is a generated C1 and what went into it.
type Result struct {
	Output *c1.Output
	Params Params
	// CommC and CommRLast are the roots of the sparse tree_c and tree_r_last.
	CommC, CommRLast [32]byte
	// Challenged is the number of distinct challenged nodes; Columns the
	// number of distinct columns the proofs open (challenged nodes and their
	// parents).
	Challenged, Columns int
	// BlockNodes is the size of the repeated data block.
	BlockNodes int
}

// Generate makes the C1 output of p. workers bounds the goroutines that
// build the vanilla proofs (< 1 means 1).
func Generate(ctx context.Context, p Params, workers int) (*Result, error) {
	cfg, err := porep.ConfigFor(p.Proof)
	if err != nil {
		return nil, err
	}
	if cfg.Mode != filecoin.Interactive {
		return nil, fmt.Errorf("%w: %v uses %v challenges; only interactive PoRep (the V1_1 proofs) can be generated", ErrChallengeMode, p.Proof, cfg.Mode)
	}
	if p.Ticket == ([32]byte{}) {
		p.Ticket = seal.DefaultTicket
	}
	if p.Seed == ([32]byte{}) {
		p.Seed = seal.DefaultSeed
	}
	g, err := cfg.Graph()
	if err != nil {
		return nil, err
	}
	nodes := cfg.Nodes()
	block := p.Block
	if block == nil {
		block = DefaultBlock(nodes)
	}
	if err := seal.CheckPadded(block); err != nil {
		return nil, fmt.Errorf("c1gen: data block: %w", err)
	}
	leaves, err := merkle.Sha254Leaves(block)
	if err != nil {
		return nil, fmt.Errorf("c1gen: data block: %w", err)
	}
	treeD, err := merkle.BuildRepeatedSha254(leaves, int(nodes), workers)
	if err != nil {
		return nil, fmt.Errorf("c1gen: tree_d: %w", err)
	}
	s := &sector{spec: cfg.SealSpec(), treeD: treeD, columns: map[uint64][][32]byte{}}
	s.commD = treeD.Root()
	s.replicaID = porep.ReplicaID(p.ProverID, p.Sector, p.Ticket, s.commD, cfg.PoRepID)

	// Interactive challenges read replica_id and the seed only, so they are
	// known before any column is chosen.
	var challenged []uint64
	seen := map[uint64]bool{}
	for k := range cfg.Partitions() {
		cs, err := cfg.Challenges(s.replicaID, [32]byte{}, p.Seed, k)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			if !seen[c] {
				seen[c] = true
				challenged = append(challenged, c)
			}
		}
	}
	slices.Sort(challenged)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("c1gen: %w", err)
	}
	s.label(g, challenged, seen)
	if err := s.buildTrees(leaves); err != nil {
		return nil, err
	}
	commR := sectordir.CommR(s.treeC.Root(), s.treeR.Root())
	proofs, err := seal.VanillaProofs(ctx, cfg, g, s, s.replicaID, fr32.FromElement(&commR), p.Seed, workers)
	if err != nil {
		return nil, err
	}
	commC, commRLast := s.treeC.Root(), s.treeR.Root()
	return &Result{
		Output: &c1.Output{
			RegisteredProof: p.Proof,
			VanillaProofs:   proofs,
			CommR:           fr32.FromElement(&commR),
			CommD:           s.commD,
			ReplicaID:       s.replicaID,
			Seed:            p.Seed,
			Ticket:          p.Ticket,
		},
		Params:     p,
		CommC:      fr32.FromElement(&commC),
		CommRLast:  fr32.FromElement(&commRLast),
		Challenged: len(challenged),
		Columns:    len(s.columns),
		BlockNodes: len(leaves),
	}, nil
}

// sector is the part of a sector the vanilla proofs open: the columns of the
// challenged nodes and their parents, and sparse trees over them.
type sector struct {
	spec      filecoin.SealSpec
	replicaID [32]byte
	commD     [32]byte
	treeD     *merkle.RepeatedSha254Tree
	treeC     *merkle.SparsePoseidonTree
	treeR     *merkle.SparsePoseidonTree
	// columns[n][l] is the label of node n in layer l+1.
	columns map[uint64][][32]byte
}

// label fills the columns: made-up ones for every parent that is not
// challenged, then the challenged nodes' labels layer by layer. Within a
// layer nodes go in increasing order, so a challenged DRG parent (always a
// smaller node) is labelled before the nodes that read it.
func (s *sector) label(g *graph.Graph, challenged []uint64, isChallenged map[uint64]bool) {
	layers := s.spec.Layers()
	parents := make(map[uint64]*[graph.Degree]uint32, len(challenged))
	for _, c := range challenged {
		ps := new([graph.Degree]uint32)
		g.Parents(uint32(c), ps[:])
		parents[c] = ps
		s.columns[c] = make([][32]byte, layers)
		for _, q := range ps {
			if n := uint64(q); !isChallenged[n] && s.columns[n] == nil {
				s.columns[n] = s.madeUpColumn(n)
			}
		}
	}
	buf := make([][32]byte, filecoin.TotalParents)
	for l := 1; l <= layers; l++ {
		for _, c := range challenged {
			var lab [32]byte
			if c == 0 {
				lab = porep.Label(&s.replicaID, uint32(l), c, nil)
			} else {
				seal.LabelParents(buf, s.Label, parents[c], l)
				lab = porep.Label(&s.replicaID, uint32(l), c, buf)
			}
			s.columns[c][l-1] = lab
		}
	}
}

// madeUpColumn is the column of a node no challenge labels:
// sha256(tag || replica_id || node || layer) trimmed to 254 bits per layer,
// so a generated sector is the same every time.
func (s *sector) madeUpColumn(n uint64) [][32]byte {
	rows := make([][32]byte, s.spec.Layers())
	var msg [len(columnTag) + 32 + 8 + 4]byte
	copy(msg[:], columnTag)
	copy(msg[len(columnTag):], s.replicaID[:])
	binary.LittleEndian.PutUint64(msg[len(columnTag)+32:], n)
	for l := range rows {
		binary.LittleEndian.PutUint32(msg[len(columnTag)+40:], uint32(l+1))
		rows[l] = sha256.Sum256(msg[:])
		fr32.TrimToFr32(&rows[l])
	}
	return rows
}

// buildTrees builds tree_c over the columns' hashes and tree_r_last over
// their replica nodes (last label plus data); every other leaf is zero.
func (s *sector) buildTrees(block [][32]byte) error {
	colLeaves := make(map[int]fr.Element, len(s.columns))
	repLeaves := make(map[int]fr.Element, len(s.columns))
	rows := make([]fr.Element, s.spec.Layers())
	for n, col := range s.columns {
		for l := range rows {
			e, err := fr32.ToElement(col[l])
			if err != nil {
				return fmt.Errorf("c1gen: label of node %d: %w", n, err)
			}
			rows[l] = e
		}
		colLeaves[int(n)] = porep.ColumnHash(rows)
		data, err := fr32.ToElement(block[n%uint64(len(block))])
		if err != nil {
			return fmt.Errorf("c1gen: data node %d: %w", n, err)
		}
		repLeaves[int(n)] = porep.Encode(rows[len(rows)-1], data)
	}
	var err error
	shape, nodes := s.spec.Tree(), int(s.spec.Nodes())
	if s.treeC, err = merkle.BuildSparsePoseidon(shape, nodes, fr.Element{}, colLeaves); err != nil {
		return fmt.Errorf("c1gen: tree_c: %w", err)
	}
	if s.treeR, err = merkle.BuildSparsePoseidon(shape, nodes, fr.Element{}, repLeaves); err != nil {
		return fmt.Errorf("c1gen: tree_r_last: %w", err)
	}
	return nil
}

func (s *sector) Layers() int         { return s.spec.Layers() }
func (s *sector) Shape() merkle.Shape { return s.spec.Tree() }

// Label panics for a node whose column was never chosen: the proofs read
// only challenged nodes and their parents.
func (s *sector) Label(layer int, node uint64) [32]byte {
	col, ok := s.columns[node]
	if !ok {
		panic(fmt.Sprintf("c1gen: label of node %d, which no challenge reaches", node))
	}
	return col[layer-1]
}

func (s *sector) ProveD(i int) (*merkle.Sha254Proof, error)   { return s.treeD.Prove(i) }
func (s *sector) ProveC(i int) (*merkle.PoseidonProof, error) { return s.treeC.Prove(i) }
func (s *sector) ProveR(i int) (*merkle.PoseidonProof, error) { return s.treeR.Prove(i) }
