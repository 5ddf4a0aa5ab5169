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

// Public is a sealed sector's public values besides its configuration.
type Public struct {
	CommR, CommD, ProverID, Ticket, Seed [32]byte
	Sector                               uint64
}

// AllPartitions is VerifyFile's partition for a check of the whole proof.
const AllPartitions = -1

// VerifyFile checks the seal proof in proofPath (192 bytes per partition)
// against the verifying key in vkPath: every partition when partition is
// AllPartitions, else that partition alone (porep.VerifySealPartition:
// the file holds its 192 bytes or the whole proof). It reads the key first,
// so that a missing parameter is told before a missing proof. An invalid
// proof is false with a nil error; an error means the check could not be
// made.
func VerifyFile(vkPath, proofPath string, cfg porep.Config, pub Public, partition int) (bool, error) {
	vk, proof, err := groth16.ReadKeyAndProof(vkPath, proofPath)
	if err != nil {
		return false, err
	}
	sp := porep.SealPublic{Config: cfg, CommR: pub.CommR, CommD: pub.CommD, ProverID: pub.ProverID,
		Sector: pub.Sector, Ticket: pub.Ticket, Seed: pub.Seed}
	if partition == AllPartitions {
		return porep.VerifySeal(vk, proof, sp)
	}
	return porep.VerifySealPartition(vk, proof, sp, partition)
}
