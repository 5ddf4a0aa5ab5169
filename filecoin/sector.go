package filecoin

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/cuzk-dev/cuzk/merkle"
)

// ErrUnsupportedSectorSize is returned when a sector size is not one
// rust-fil-proofs supports.
var ErrUnsupportedSectorSize = errors.New("unsupported sector size")

// NodeSize is the size of one sector node (one Fr element) in bytes.
const NodeSize = 32

// SectorSize is a padded sector size in bytes.
type SectorSize uint64

// Sector sizes rust-fil-proofs supports (SUPPORTED_SECTOR_SIZES). Only the
// five of PublishedSectorSizes have official parameters.
const (
	SectorSize2KiB   SectorSize = 2 << 10
	SectorSize4KiB   SectorSize = 4 << 10
	SectorSize16KiB  SectorSize = 16 << 10
	SectorSize32KiB  SectorSize = 32 << 10
	SectorSize8MiB   SectorSize = 8 << 20
	SectorSize16MiB  SectorSize = 16 << 20
	SectorSize512MiB SectorSize = 512 << 20
	SectorSize1GiB   SectorSize = 1 << 30
	SectorSize32GiB  SectorSize = 32 << 30
	SectorSize64GiB  SectorSize = 64 << 30
)

// PublishedSectorSizes lists the sizes with official parameters, ascending.
func PublishedSectorSizes() []SectorSize {
	return []SectorSize{SectorSize2KiB, SectorSize8MiB, SectorSize512MiB, SectorSize32GiB, SectorSize64GiB}
}

// SupportedSectorSizes lists every size rust-fil-proofs accepts, ascending.
func SupportedSectorSizes() []SectorSize {
	return []SectorSize{
		SectorSize2KiB, SectorSize4KiB, SectorSize16KiB, SectorSize32KiB,
		SectorSize8MiB, SectorSize16MiB, SectorSize512MiB, SectorSize1GiB,
		SectorSize32GiB, SectorSize64GiB,
	}
}

// String formats the size with a binary unit ("32GiB"), as the proof names do.
func (s SectorSize) String() string {
	switch {
	case s >= 1<<30 && s%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", uint64(s)>>30)
	case s >= 1<<20 && s%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", uint64(s)>>20)
	case s >= 1<<10 && s%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", uint64(s)>>10)
	}
	return fmt.Sprintf("%dB", uint64(s))
}

// Published reports whether official parameters exist for s.
func (s SectorSize) Published() bool {
	switch s {
	case SectorSize2KiB, SectorSize8MiB, SectorSize512MiB, SectorSize32GiB, SectorSize64GiB:
		return true
	}
	return false
}

// Nodes is the number of 32-byte nodes in a sector of size s.
func (s SectorSize) Nodes() uint64 { return uint64(s) / NodeSize }

// SealSpec returns the seal spec of a supported sector size.
func (s SectorSize) SealSpec() (SealSpec, error) {
	sh, ok := specs[s]
	if !ok {
		return SealSpec{}, fmt.Errorf("%w: %d bytes", ErrUnsupportedSectorSize, uint64(s))
	}
	return sh, nil
}

// TreeDisplay is upstream's MerkleTreeTrait::display for a Poseidon tree of
// shape t ("merkletree-poseidon_hasher-8-8-0"); it is part of parameter names.
func TreeDisplay(t merkle.Shape) string { return "merkletree-" + poseidonHasherName + "-" + t.String() }

// SealSpec is everything about a PoRep sector that follows from its size
// (filecoin-proofs constants.rs): graph size, layers, tree shapes and
// challenge/partition counts per challenge mode. Obtain one from
// [SectorSize.SealSpec]; the zero value is not a valid spec.
type SealSpec struct {
	size            SectorSize
	layers          int
	tree            merkle.Shape
	partitions      int // interactive and synthetic (POREP_PARTITIONS)
	minChallenges   int // interactive and synthetic
	niPartitions    int
	niMinChallenges int
}

// Base and expansion degree of the stacked DRG (BASE_DEGREE, EXP_DEGREE) and
// the label parent count (TOTAL_PARENTS).
const (
	DRGDegree       = 6
	ExpansionDegree = 8
	TotalParents    = 37
)

// MaxChallengesPerPartition is the circuit limit (MAX_CHALLENGES_PER_PARTITION).
const MaxChallengesPerPartition = 18

func testSpec(size SectorSize, tree merkle.Shape) SealSpec {
	return SealSpec{size: size, layers: 2, tree: tree, partitions: 1, minChallenges: 2, niPartitions: 13, niMinChallenges: 26}
}

func prodSpec(size SectorSize, tree merkle.Shape) SealSpec {
	return SealSpec{size: size, layers: 11, tree: tree, partitions: 10, minChallenges: 176, niPartitions: 126, niMinChallenges: 2253}
}

// specs is filecoin-proofs/src/constants.rs in one immutable table.
var specs = map[SectorSize]SealSpec{
	SectorSize2KiB:   testSpec(SectorSize2KiB, merkle.ShapeBase),
	SectorSize4KiB:   testSpec(SectorSize4KiB, merkle.ShapeSub2),
	SectorSize16KiB:  testSpec(SectorSize16KiB, merkle.ShapeSub8),
	SectorSize32KiB:  testSpec(SectorSize32KiB, merkle.ShapeTop2),
	SectorSize8MiB:   testSpec(SectorSize8MiB, merkle.ShapeBase),
	SectorSize16MiB:  testSpec(SectorSize16MiB, merkle.ShapeSub2),
	SectorSize512MiB: testSpec(SectorSize512MiB, merkle.ShapeBase),
	SectorSize1GiB:   testSpec(SectorSize1GiB, merkle.ShapeSub2),
	SectorSize32GiB:  prodSpec(SectorSize32GiB, merkle.ShapeSub8),
	SectorSize64GiB:  prodSpec(SectorSize64GiB, merkle.ShapeTop2),
}

// SectorSize is the padded sector size in bytes.
func (s SealSpec) SectorSize() SectorSize { return s.size }

// Nodes is the graph size (sector size / 32).
func (s SealSpec) Nodes() uint64 { return s.size.Nodes() }

// Layers is the number of SDR layers (LAYERS), which is also the column
// hash arity.
func (s SealSpec) Layers() int { return s.layers }

// Tree is the shape of tree_c and tree_r_last.
func (s SealSpec) Tree() merkle.Shape { return s.tree }

// TreeDDepth is the depth of the binary SHA-254 tree over the data (comm_d):
// log2(nodes).
func (s SealSpec) TreeDDepth() int { return bits.Len64(s.Nodes()) - 1 }

// BaseTreeCount is the number of base trees tree_c and tree_r_last are split
// into.
func (s SealSpec) BaseTreeCount() int { return s.tree.BaseTreeCount() }

// BaseTreeLeaves is the number of leaves of each base tree.
func (s SealSpec) BaseTreeLeaves() uint64 { return s.Nodes() / uint64(s.BaseTreeCount()) }

// BaseTreeLevels is the number of arity-Base levels in each base tree, that
// is the number of base path elements in an inclusion proof.
func (s SealSpec) BaseTreeLevels() int {
	per := bits.Len(uint(s.tree.Base)) - 1 // bits per level; arities are powers of two
	return (bits.Len64(s.BaseTreeLeaves()) - 1) / per
}

// TreePathLength is the number of path elements (base + sub + top) in a
// tree_c or tree_r_last inclusion proof.
func (s SealSpec) TreePathLength() int {
	n := s.BaseTreeLevels()
	if s.tree.Sub != 0 {
		n++
	}
	if s.tree.Top != 0 {
		n++
	}
	return n
}

// Partitions is the number of partitions (one SNARK each) of a seal proof in
// mode m: POREP_PARTITIONS for interactive and synthetic PoRep,
// get_porep_non_interactive_partitions for NI-PoRep.
func (s SealSpec) Partitions(m ChallengeMode) int {
	if m == NonInteractive {
		return s.niPartitions
	}
	return s.partitions
}

// MinimumChallenges is the minimum total challenge count in mode m.
func (s SealSpec) MinimumChallenges(m ChallengeMode) int {
	if m == NonInteractive {
		return s.niMinChallenges
	}
	return s.minChallenges
}

// ChallengesPerPartition is ceil(minimum / partitions), as select_challenges
// computes it. It is the same for every mode of one size, which is why the
// modes share one circuit and one parameter file.
func (s SealSpec) ChallengesPerPartition(m ChallengeMode) int {
	p := s.Partitions(m)
	if p == 0 {
		return 0
	}
	return (s.MinimumChallenges(m) + p - 1) / p
}

// PublicInputsPerPartition is the number of public inputs of one partition
// circuit, ONE excluded: replica_id, comm_d, comm_r, then 18 per challenge.
func (s SealSpec) PublicInputsPerPartition() int {
	return 3 + 18*s.ChallengesPerPartition(Interactive)
}
