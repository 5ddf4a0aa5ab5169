package filecoin

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"

	"github.com/cuzk-dev/cuzk/merkle"
)

// ErrUnknownUpdateProof is returned for a name or id that is no registered
// update proof.
var ErrUnknownUpdateProof = errors.New("unknown registered update proof")

// RegisteredUpdateProof is a SnapDeals (EmptySectorUpdate) proof type; the
// values are go-state-types abi.RegisteredUpdateProof ids.
type RegisteredUpdateProof int64

// The registered update proofs (rust-filecoin-proofs-api names). All use
// api version V1_1_0.
const (
	StackedDrg2KiBUpdateV1   RegisteredUpdateProof = 0
	StackedDrg8MiBUpdateV1   RegisteredUpdateProof = 1
	StackedDrg512MiBUpdateV1 RegisteredUpdateProof = 2
	StackedDrg32GiBUpdateV1  RegisteredUpdateProof = 3
	StackedDrg64GiBUpdateV1  RegisteredUpdateProof = 4
)

const updateProofCount = 5

// UpdateProofs lists every registered update proof in id order.
func UpdateProofs() []RegisteredUpdateProof {
	out := make([]RegisteredUpdateProof, updateProofCount)
	for i := range out {
		out[i] = RegisteredUpdateProof(i)
	}
	return out
}

// UpdateProofFromID validates a numeric id.
func UpdateProofFromID(id uint64) (RegisteredUpdateProof, error) {
	if id >= updateProofCount {
		return 0, fmt.Errorf("%w: id %d (known ids are 0..%d)", ErrUnknownUpdateProof, id, updateProofCount-1)
	}
	return RegisteredUpdateProof(id), nil
}

// ParseUpdateProof parses an api variant name ("StackedDrg32GiBV1"; the
// abi name "StackedDrg32GiBUpdateV1" is accepted too).
func ParseUpdateProof(name string) (RegisteredUpdateProof, error) {
	for _, p := range UpdateProofs() {
		if name == p.String() || name == "StackedDrg"+p.SectorSize().String()+"UpdateV1" {
			return p, nil
		}
	}
	return 0, fmt.Errorf("%w: %q", ErrUnknownUpdateProof, name)
}

// UpdateProofForSize is the update proof of a published sector size.
func UpdateProofForSize(size SectorSize) (RegisteredUpdateProof, error) {
	for _, p := range UpdateProofs() {
		if p.SectorSize() == size {
			return p, nil
		}
	}
	return 0, fmt.Errorf("%w: no update proof for sector size %v", ErrUnknownUpdateProof, size)
}

// Valid reports whether p is a registered update proof.
func (p RegisteredUpdateProof) Valid() bool { return p >= 0 && p < updateProofCount }

// String returns the api variant name ("StackedDrg32GiBV1").
func (p RegisteredUpdateProof) String() string {
	if !p.Valid() {
		return "RegisteredUpdateProof(" + strconv.FormatInt(int64(p), 10) + ")"
	}
	return "StackedDrg" + p.SectorSize().String() + "V1"
}

// SectorSize is the padded sector size; 0 for an invalid p.
func (p RegisteredUpdateProof) SectorSize() SectorSize {
	if !p.Valid() {
		return 0
	}
	return sealProofSizes[p]
}

// APIVersion is V1_1_0 for every update proof (proofs-api registry.rs).
func (p RegisteredUpdateProof) APIVersion() APIVersion {
	if !p.Valid() {
		return 0
	}
	return V1_1_0
}

// TreeShape is the shape of tree_r (old and new).
func (p RegisteredUpdateProof) TreeShape() merkle.Shape {
	if !p.Valid() {
		return merkle.Shape{}
	}
	return specs[p.SectorSize()].tree
}

// Nodes is the sector size in 32-byte nodes.
func (p RegisteredUpdateProof) Nodes() uint64 { return p.SectorSize().Nodes() }

// Update constants of storage-proofs-update/src/constants.rs, by sector
// nodes.
const (
	updateNodes8KiB  = 1 << 8
	updateNodes32KiB = 1 << 10
	updateNodes16MiB = 1 << 19
)

// Partitions is partition_count: 1 up to 8 KiB, 2 up to 32 KiB, 4 up to 16
// MiB, else 16.
func (p RegisteredUpdateProof) Partitions() int {
	n := p.Nodes()
	switch {
	case !p.Valid():
		return 0
	case n <= updateNodes8KiB:
		return 1
	case n <= updateNodes32KiB:
		return 2
	case n <= updateNodes16MiB:
		return 4
	}
	return 16
}

// ChallengeCount is challenge_count per partition: 10 up to 16 MiB, else 86.
func (p RegisteredUpdateProof) ChallengeCount() int {
	switch {
	case !p.Valid():
		return 0
	case p.Nodes() <= updateNodes16MiB:
		return 10
	}
	return 86
}

// HValues is hs: the h values the circuit can select.
func (p RegisteredUpdateProof) HValues() [6]int {
	if p.Nodes() <= updateNodes32KiB {
		return [6]int{1, 1, 1, 1, 1, 1}
	}
	return [6]int{7, 8, 9, 10, 11, 12}
}

// H is h_default, the number of challenge high bits that select rho: hs[3].
func (p RegisteredUpdateProof) H() int { return p.HValues()[3] }

// HSelect is h_select(h_default) = 2^index of h in hs (the first match, so
// 1 for the small sizes, 8 for the others).
func (p RegisteredUpdateProof) HSelect() uint64 {
	h := p.H()
	for i, v := range p.HValues() {
		if v == h {
			return 1 << i
		}
	}
	return 0
}

// ApexLeafCount is apex_leaf_count: 8 up to 8 KiB, else 128.
func (p RegisteredUpdateProof) ApexLeafCount() int {
	switch {
	case !p.Valid():
		return 0
	case p.Nodes() <= updateNodes8KiB:
		return 8
	}
	return 128
}

// ChallengeBits is log2(nodes), the height of tree_d.
func (p RegisteredUpdateProof) ChallengeBits() int { return bits.Len64(p.Nodes()) - 1 }

// PartitionBits is log2(partitions).
func (p RegisteredUpdateProof) PartitionBits() int { return bits.Len(uint(p.Partitions())) - 1 }

// ApexLeafBits is log2(apex leaves), the apex tree's height.
func (p RegisteredUpdateProof) ApexLeafBits() int { return bits.Len(uint(p.ApexLeafCount())) - 1 }

// PublicInputCount is the number of EmptySectorUpdate public inputs, ONE
// excluded: k_and_h_select, comm_r_old, comm_d_new, comm_r_new.
func (p RegisteredUpdateProof) PublicInputCount() int { return 4 }

// UpdateCachePrefix is EmptySectorUpdateCompound::cache_prefix.
func UpdateCachePrefix(t merkle.Shape) string { return "empty-sector-update-" + TreeDisplay(t) }

// UpdateIdentifier is the EmptySectorUpdate PublicParams::identifier.
func UpdateIdentifier(nodes uint64) string {
	return fmt.Sprintf("empty_sector_update::PublicParams{ sector_nodes: %d }", nodes)
}

// ParameterSetID names the EmptySectorUpdate circuit's parameter files.
func (p RegisteredUpdateProof) ParameterSetID() ParameterSetID {
	if !p.Valid() {
		return ""
	}
	return NewParameterSetID(UpdateCachePrefix(p.TreeShape()), UpdateIdentifier(p.Nodes()))
}
