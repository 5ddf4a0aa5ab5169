package graph

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/cuzk-dev/cuzk/filecoin"
)

// Degrees of the stacked DRG.
const (
	BaseDegree      = filecoin.DRGDegree       // DRG parents per node
	ExpansionDegree = filecoin.ExpansionDegree // expander parents per node
	Degree          = BaseDegree + ExpansionDegree
)

// Domain separation tags of storage-proofs-core crypto/mod.rs.
const (
	drgSeedTag     = "Filecoin_DRSample"
	feistelKeysTag = "Filecoin_Feistel"
)

// Errors returned by New and CheckNode.
var (
	// ErrNodeCount is returned when a graph is asked for fewer than 2 or
	// more than 2^32-1 nodes.
	ErrNodeCount = errors.New("invalid graph node count")
	// ErrAPIVersion is returned when the api version is not one the graph
	// construction knows.
	ErrAPIVersion = errors.New("invalid api version")
	// ErrNodeOutOfRange is returned when a node index lies outside the
	// graph.
	ErrNodeOutOfRange = errors.New("node out of range")
)

// Graph is the stacked DRG of one sector size, porep_id and api version.
type Graph struct {
	nodes       uint32
	porepID     [32]byte
	apiVersion  filecoin.APIVersion
	drgSeed     [28]byte
	drgKey      [7]uint32 // drgSeed as LE words: ChaCha key words 0..6
	feistelKeys [4]uint64
	feistel     feistel
	// predecessorSlot is where node-1 goes among the DRG parents.
	predecessorSlot int
	// narrowBeforeDivide selects the 1.0.0 expander narrowing.
	narrowBeforeDivide bool
}

// New builds the graph over nodes nodes (2 <= nodes <= 2^32-1, as upstream
// requires node indexes to fit in u32).
func New(nodes uint64, porepID [32]byte, v filecoin.APIVersion) (*Graph, error) {
	if nodes < 2 || nodes > math.MaxUint32 {
		return nil, fmt.Errorf("%w: %d (want 2..%d)", ErrNodeCount, nodes, uint64(math.MaxUint32))
	}
	if !v.Valid() {
		return nil, fmt.Errorf("%w: %v", ErrAPIVersion, v)
	}
	g := &Graph{
		nodes:       uint32(nodes),
		porepID:     porepID,
		apiVersion:  v,
		drgSeed:     DRGSeed(porepID),
		feistelKeys: FeistelKeys(porepID),
	}
	for i := range g.drgKey {
		g.drgKey[i] = binary.LittleEndian.Uint32(g.drgSeed[4*i:])
	}
	g.feistel = newFeistel(nodes*ExpansionDegree, g.feistelKeys)
	if v == filecoin.V1_0_0 {
		g.predecessorSlot = BaseDegree - 1
		g.narrowBeforeDivide = true
	}
	return g, nil
}

// ForSealProof builds the graph a registered seal proof seals with.
func ForSealProof(p filecoin.RegisteredSealProof) (*Graph, error) {
	if !p.Valid() {
		return nil, fmt.Errorf("graph for %v: %w", p, filecoin.ErrUnknownSealProof)
	}
	g, err := New(p.SectorSize().Nodes(), p.PoRepID(), p.APIVersion())
	if err != nil {
		return nil, fmt.Errorf("graph for %v: %w", p, err)
	}
	return g, nil
}

// DRGSeed is derive_drg_seed: the first 28 bytes of
// sha256("Filecoin_DRSample" || porep_id).
func DRGSeed(porepID [32]byte) [28]byte {
	sum := domainSeed(drgSeedTag, porepID)
	var seed [28]byte
	copy(seed[:], sum[:28])
	return seed
}

// FeistelKeys is derive_feistel_keys: sha256("Filecoin_Feistel" || porep_id)
// read as 4 u64 LE.
func FeistelKeys(porepID [32]byte) [4]uint64 {
	sum := domainSeed(feistelKeysTag, porepID)
	var keys [4]uint64
	for i := range keys {
		keys[i] = binary.LittleEndian.Uint64(sum[8*i:])
	}
	return keys
}

func domainSeed(tag string, porepID [32]byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(tag))
	h.Write(porepID[:])
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// Nodes is the number of nodes.
func (g *Graph) Nodes() uint64 { return uint64(g.nodes) }

// PoRepID is the porep_id the graph was derived from.
func (g *Graph) PoRepID() [32]byte { return g.porepID }

// APIVersion is the api version the graph follows.
func (g *Graph) APIVersion() filecoin.APIVersion { return g.apiVersion }

// DRGSeed is the 28-byte ChaCha8 seed prefix.
func (g *Graph) DRGSeed() [28]byte { return g.drgSeed }

// FeistelKeys are the 4 Feistel keys (the first 3 are used).
func (g *Graph) FeistelKeys() [4]uint64 { return g.feistelKeys }

// CheckNode returns a wrapped ErrNodeOutOfRange unless node < Nodes(). Use it
// on untrusted input (challenges from a C1) before calling Parents.
func (g *Graph) CheckNode(node uint64) error {
	if node >= uint64(g.nodes) {
		return fmt.Errorf("%w: node %d of a %d-node graph", ErrNodeOutOfRange, node, g.nodes)
	}
	return nil
}

// Parents writes the 14 parents of node into dst[:Degree]: BaseParents
// then ExpanderParents. It panics if node >= Nodes() or len(dst) < Degree;
// it does not allocate.
func (g *Graph) Parents(node uint32, dst []uint32) {
	_ = dst[Degree-1]
	g.BaseParents(node, dst[:BaseDegree])
	g.ExpanderParents(node, dst[BaseDegree:Degree])
}

// BaseParents writes the 6 DRG parents of node into dst[:BaseDegree]
// (BucketGraph::parents). It panics if node >= Nodes() or
// len(dst) < BaseDegree.
func (g *Graph) BaseParents(node uint32, dst []uint32) {
	dst = dst[:BaseDegree]
	g.mustContain(node)
	if node < 2 {
		clear(dst)
		return
	}

	var key [8]uint32
	copy(key[:7], g.drgKey[:])
	key[7] = node
	var stream [2 * 16]uint32
	chachaBlock((*[16]uint32)(stream[0:16]), &key, 0, chacha8Rounds)
	chachaBlock((*[16]uint32)(stream[16:32]), &key, 1, chacha8Rounds)
	w := stream[:drgRandWords]
	draw := func() uint64 {
		v := uint64(w[0]) | uint64(w[1])<<32
		w = w[2:]
		return v
	}

	const mPrime = BaseDegree - 1
	meta := uint64(node) * mPrime
	// Upstream computes ceil(log2(meta)) in f64. meta < 2^35 is exact in
	// f64 and never within rounding of a power of two unless it is one, so
	// the integer form is equal (TestBucketCountMatchesFloat checks it).
	nBuckets := uint64(bits.Len64(meta - 1))

	others := dst[1:]
	if g.predecessorSlot != 0 {
		others = dst[:mPrime]
	}
	for i := range others {
		bucket := draw()%nBuckets + 1
		largest := min(meta, uint64(1)<<bucket)
		smallest := max(2, largest>>1)
		dist := smallest + draw()%(largest-smallest+1)
		parent := uint32((meta - dist) / mPrime)
		if parent == node {
			parent = node - 1
		}
		others[i] = parent
	}
	dst[g.predecessorSlot] = node - 1
}

// ExpanderParents writes the 8 expander parents of node into
// dst[:ExpansionDegree] (generate_expanded_parents). It panics if
// node >= Nodes() or len(dst) < ExpansionDegree.
func (g *Graph) ExpanderParents(node uint32, dst []uint32) {
	dst = dst[:ExpansionDegree]
	g.mustContain(node)
	base := uint64(node) * ExpansionDegree
	for i := range dst {
		t := g.feistel.permute(base + uint64(i))
		if g.narrowBeforeDivide {
			// 1.0.0: `transformed as u32 / 8` drops the high bits first.
			dst[i] = uint32(t) / ExpansionDegree
		} else {
			dst[i] = uint32(t / ExpansionDegree)
		}
	}
}

func (g *Graph) mustContain(node uint32) {
	if node >= g.nodes {
		panic(fmt.Sprintf("graph: node %d out of range for %d nodes", node, g.nodes))
	}
}
