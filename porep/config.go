package porep

import (
	"errors"
	"fmt"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep/graph"
)

// Sentinel errors of this package.
var (
	// ErrConfig is returned when a Config names no sealable sector
	// (unsupported size, invalid api version or mode, a feature without api
	// 1.2.0).
	ErrConfig = errors.New("porep: invalid seal configuration")
	// ErrPartition is returned when a partition index lies outside
	// [0, partitions).
	ErrPartition = errors.New("porep: partition out of range")
	// ErrZeroCommitment is returned when comm_d or comm_r is all zero.
	ErrZeroCommitment = errors.New("porep: all-zero commitment")
	// ErrNonCanonical is returned when a commitment is not a canonical
	// field element.
	ErrNonCanonical = errors.New("porep: non-canonical field element")
	// ErrProofLength is returned when seal proof bytes are not one
	// 192-byte proof per partition.
	ErrProofLength = errors.New("porep: wrong seal proof length")
	// ErrUnsupported is returned when the operation does not exist for this
	// configuration (NI-PoRep proofs are aggregated; verify them with the
	// aggregate verifier).
	ErrUnsupported = errors.New("porep: unsupported for this configuration")
)

// Config is how a sector was sealed. Everything that changes the public
// inputs is here; the circuit itself depends on SectorSize alone.
type Config struct {
	SectorSize filecoin.SectorSize
	// PoRepID seeds the graph and enters replica_id.
	PoRepID [32]byte
	// APIVersion selects the DRG predecessor slot and expander narrowing.
	APIVersion filecoin.APIVersion
	// Mode selects the challenge derivation and the partition count.
	Mode filecoin.ChallengeMode
}

// ConfigFor is the configuration of a registered seal proof
// (RegisteredSealProof::as_v1_config).
func ConfigFor(p filecoin.RegisteredSealProof) (Config, error) {
	if !p.Valid() {
		return Config{}, fmt.Errorf("%w: %w: %v", ErrConfig, filecoin.ErrUnknownSealProof, p)
	}
	return Config{SectorSize: p.SectorSize(), PoRepID: p.PoRepID(), APIVersion: p.APIVersion(), Mode: p.ChallengeMode()}, nil
}

// Validate checks that c describes a sealable sector.
func (c Config) Validate() error {
	if _, err := c.SectorSize.SealSpec(); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if !c.APIVersion.Valid() {
		return fmt.Errorf("%w: api version %v", ErrConfig, c.APIVersion)
	}
	if !c.Mode.Valid() {
		return fmt.Errorf("%w: challenge mode %v", ErrConfig, c.Mode)
	}
	if c.Mode != filecoin.Interactive && c.APIVersion < filecoin.V1_2_0 {
		return fmt.Errorf("%w: %v challenges need api version 1.2.0, have %v", ErrConfig, c.Mode, c.APIVersion)
	}
	return nil
}

// SealSpec is the sector's seal spec (zero for an invalid size).
func (c Config) SealSpec() filecoin.SealSpec {
	s, _ := c.SectorSize.SealSpec()
	return s
}

// Nodes is the number of 32-byte nodes of the sector.
func (c Config) Nodes() uint64 { return c.SectorSize.Nodes() }

// Partitions is the number of partition proofs.
func (c Config) Partitions() int { return c.SealSpec().Partitions(c.Mode) }

// ChallengesPerPartition is the number of challenges one partition proves.
func (c Config) ChallengesPerPartition() int { return c.SealSpec().ChallengesPerPartition(c.Mode) }

// Graph builds the stacked DRG the sector was sealed over.
func (c Config) Graph() (*graph.Graph, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	g, err := graph.New(c.Nodes(), c.PoRepID, c.APIVersion)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return g, nil
}

// checkPartition validates k.
func (c Config) checkPartition(k int) error {
	if n := c.Partitions(); k < 0 || k >= n {
		return fmt.Errorf("%w: partition %d of %d", ErrPartition, k, n)
	}
	return nil
}
