package seal

import (
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/porep"
)

// Sealed is how a sector was sealed, as a verifier is told it: by its
// registered proof, or (Custom) by a porep_id no registered proof has, as
// research networks use, with its sector size.
type Sealed struct {
	Proof filecoin.RegisteredSealProof
	// Custom means PoRepID and SectorSize describe the sector instead of
	// Proof: an interactive seal under api version 1.1.0 unless
	// APIVersion says otherwise.
	Custom     bool
	PoRepID    [32]byte
	SectorSize filecoin.SectorSize
	// APIVersion, when not empty, overrides the api version ("1.2.0"), for
	// sectors sealed with other parameters than their proof's.
	APIVersion string
}

// Config is the sector's PoRep configuration, checked to describe a
// sealable sector.
func (s Sealed) Config() (porep.Config, error) {
	var cfg porep.Config
	if s.Custom {
		cfg = porep.Config{SectorSize: s.SectorSize, PoRepID: s.PoRepID, APIVersion: filecoin.V1_1_0, Mode: filecoin.Interactive}
	} else {
		var err error
		if cfg, err = porep.ConfigFor(s.Proof); err != nil {
			return cfg, err
		}
	}
	if s.APIVersion != "" {
		v, err := filecoin.ParseAPIVersion(s.APIVersion)
		if err != nil {
			return cfg, err
		}
		cfg.APIVersion = v
	}
	return cfg, cfg.Validate()
}

// Public are the public values of a sector sealed as s, its commitments,
// ids, ticket and seed left for the caller to fill.
func (s Sealed) Public() (porep.SealPublic, error) {
	cfg, err := s.Config()
	return porep.SealPublic{Config: cfg}, err
}

// VerifyFile checks the seal proof in proofPath (192 bytes per partition,
// or pub.Partition's alone: the file holds its 192 bytes or the whole
// proof) against the verifying key in vkPath, as post.VerifyFile and
// snap.VerifyFile do: the key is read first, so that a missing parameter
// is told before a missing proof. It returns the partitions that do not
// verify (porep.InvalidPartitions; none: the proof is valid) and how many
// partition proofs were checked; an error means the check could not be
// made.
func VerifyFile(vkPath, proofPath string, pub porep.SealPublic) (bad []int, partitions int, err error) {
	vk, proof, err := groth16.ReadKeyAndProof(vkPath, proofPath)
	if err != nil {
		return nil, 0, err
	}
	bad, err = porep.InvalidPartitions(vk, proof, pub)
	return bad, pub.Partitions(), err
}
