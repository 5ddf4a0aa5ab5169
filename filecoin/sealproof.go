package filecoin

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
)

// ErrUnknownSealProof is returned when a name or id is no registered seal
// proof.
var ErrUnknownSealProof = errors.New("unknown registered seal proof")

// RegisteredSealProof is a PoRep proof type. The values are the numeric ids
// of go-state-types abi.RegisteredSealProof, which also form the porep_id.
type RegisteredSealProof int64

// The registered seal proofs. Names are the rust-filecoin-proofs-api
// variants (the SyntheticPoRep names really say V1_1 although the feature
// needs api 1.2; go-state-types spells the NI ones "_Feat_NiPoRep").
const (
	StackedDrg2KiBV1   RegisteredSealProof = 0
	StackedDrg8MiBV1   RegisteredSealProof = 1
	StackedDrg512MiBV1 RegisteredSealProof = 2
	StackedDrg32GiBV1  RegisteredSealProof = 3
	StackedDrg64GiBV1  RegisteredSealProof = 4

	StackedDrg2KiBV1_1   RegisteredSealProof = 5
	StackedDrg8MiBV1_1   RegisteredSealProof = 6
	StackedDrg512MiBV1_1 RegisteredSealProof = 7
	StackedDrg32GiBV1_1  RegisteredSealProof = 8
	StackedDrg64GiBV1_1  RegisteredSealProof = 9

	StackedDrg2KiBV1_1_Feat_SyntheticPoRep   RegisteredSealProof = 10
	StackedDrg8MiBV1_1_Feat_SyntheticPoRep   RegisteredSealProof = 11
	StackedDrg512MiBV1_1_Feat_SyntheticPoRep RegisteredSealProof = 12
	StackedDrg32GiBV1_1_Feat_SyntheticPoRep  RegisteredSealProof = 13
	StackedDrg64GiBV1_1_Feat_SyntheticPoRep  RegisteredSealProof = 14

	StackedDrg2KiBV1_2_Feat_NonInteractivePoRep   RegisteredSealProof = 15
	StackedDrg8MiBV1_2_Feat_NonInteractivePoRep   RegisteredSealProof = 16
	StackedDrg512MiBV1_2_Feat_NonInteractivePoRep RegisteredSealProof = 17
	StackedDrg32GiBV1_2_Feat_NonInteractivePoRep  RegisteredSealProof = 18
	StackedDrg64GiBV1_2_Feat_NonInteractivePoRep  RegisteredSealProof = 19
)

// sealProofCount is the number of registered seal proofs (ids 0..19).
const sealProofCount = 20

// The ids come in four groups of five sizes, in this order.
var sealProofSizes = [5]SectorSize{SectorSize2KiB, SectorSize8MiB, SectorSize512MiB, SectorSize32GiB, SectorSize64GiB}

type sealGroup struct {
	suffix  string // name suffix after "StackedDrg<size>"
	version APIVersion
	feature APIFeature // zero: none
	mode    ChallengeMode
}

var sealGroups = [4]sealGroup{
	{suffix: "V1", version: V1_0_0},
	{suffix: "V1_1", version: V1_1_0},
	{suffix: "V1_1_Feat_SyntheticPoRep", version: V1_2_0, feature: FeatureSyntheticPoRep, mode: Synthetic},
	{suffix: "V1_2_Feat_NonInteractivePoRep", version: V1_2_0, feature: FeatureNonInteractivePoRep, mode: NonInteractive},
}

// sealProofNames maps names to proofs; built once, never written after init.
var sealProofNames = func() map[string]RegisteredSealProof {
	m := make(map[string]RegisteredSealProof, sealProofCount)
	for p := RegisteredSealProof(0); p < sealProofCount; p++ {
		m[p.String()] = p
	}
	return m
}()

// SealProofs lists every registered seal proof in id order.
func SealProofs() []RegisteredSealProof {
	out := make([]RegisteredSealProof, sealProofCount)
	for i := range out {
		out[i] = RegisteredSealProof(i)
	}
	return out
}

// SealProofFromID validates a numeric id (as carried by gRPC).
func SealProofFromID(id uint64) (RegisteredSealProof, error) {
	if id >= sealProofCount {
		return 0, fmt.Errorf("%w: id %d (known ids are 0..%d)", ErrUnknownSealProof, id, sealProofCount-1)
	}
	return RegisteredSealProof(id), nil
}

// ParseSealProof parses an api variant name such as "StackedDrg32GiBV1_1",
// exactly as serde would (case-sensitive, no aliases).
func ParseSealProof(name string) (RegisteredSealProof, error) {
	if p, ok := sealProofNames[name]; ok {
		return p, nil
	}
	return 0, fmt.Errorf("%w: %q", ErrUnknownSealProof, name)
}

// Valid reports whether p is a registered seal proof.
func (p RegisteredSealProof) Valid() bool { return p >= 0 && p < sealProofCount }

func (p RegisteredSealProof) group() sealGroup { return sealGroups[p/5] }

// String returns the api variant name, or "RegisteredSealProof(n)" for an
// invalid value.
func (p RegisteredSealProof) String() string {
	if !p.Valid() {
		return "RegisteredSealProof(" + strconv.FormatInt(int64(p), 10) + ")"
	}
	return "StackedDrg" + p.SectorSize().String() + p.group().suffix
}

// MarshalText writes the api name, so JSON carries the same string as a C1.
func (p RegisteredSealProof) MarshalText() ([]byte, error) {
	if !p.Valid() {
		return nil, fmt.Errorf("%w: id %d", ErrUnknownSealProof, int64(p))
	}
	return []byte(p.String()), nil
}

// UnmarshalText parses the api name.
func (p *RegisteredSealProof) UnmarshalText(b []byte) error {
	v, err := ParseSealProof(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// The accessors below return zero values for an invalid p; obtain proofs
// from SealProofFromID or ParseSealProof.

// SectorSize is the padded sector size.
func (p RegisteredSealProof) SectorSize() SectorSize {
	if !p.Valid() {
		return 0
	}
	return sealProofSizes[p%5]
}

// SealSpec is the seal spec of the proof's sector size.
func (p RegisteredSealProof) SealSpec() SealSpec {
	if !p.Valid() {
		return SealSpec{}
	}
	return specs[p.SectorSize()]
}

// APIVersion is the proofs api version (as_v1_config).
func (p RegisteredSealProof) APIVersion() APIVersion {
	if !p.Valid() {
		return 0
	}
	return p.group().version
}

// Features lists the api features (at most one); nil if none.
func (p RegisteredSealProof) Features() []APIFeature {
	if !p.Valid() || p.group().feature == 0 {
		return nil
	}
	return []APIFeature{p.group().feature}
}

// HasFeature reports whether the proof enables f (feature_enabled).
func (p RegisteredSealProof) HasFeature(f APIFeature) bool {
	return p.Valid() && f.Valid() && p.group().feature == f
}

// ChallengeMode is how the proof derives its challenges.
func (p RegisteredSealProof) ChallengeMode() ChallengeMode {
	if !p.Valid() {
		return 0
	}
	return p.group().mode
}

// Partitions is the number of partition proofs (SNARKs) of one sector.
func (p RegisteredSealProof) Partitions() int { return p.SealSpec().Partitions(p.ChallengeMode()) }

// ChallengesPerPartition is the number of challenges one partition proves.
func (p RegisteredSealProof) ChallengesPerPartition() int {
	return p.SealSpec().ChallengesPerPartition(p.ChallengeMode())
}

// MinimumChallenges is the minimum total number of challenges.
func (p RegisteredSealProof) MinimumChallenges() int {
	return p.SealSpec().MinimumChallenges(p.ChallengeMode())
}

// Nonce is the porep_id nonce; 0 for every proof today.
func (p RegisteredSealProof) Nonce() uint64 { return 0 }

// PoRepID is the 32-byte porep_id: the id as u64 LE, the nonce as u64 LE,
// then 16 zero bytes. It seeds the graph and enters replica_id.
func (p RegisteredSealProof) PoRepID() [32]byte {
	var id [32]byte
	binary.LittleEndian.PutUint64(id[0:8], uint64(p))
	binary.LittleEndian.PutUint64(id[8:16], p.Nonce())
	return id
}

// VanillaProofKey is the externally tagged key of "vanilla_proofs" in a C1
// JSON: "StackedDrg<size>V1" whatever the version or feature.
func (p RegisteredSealProof) VanillaProofKey() string {
	if !p.Valid() {
		return ""
	}
	return "StackedDrg" + p.SectorSize().String() + "V1"
}

// CircuitID is the circuit (and parameter set) the proof is proven with.
func (p RegisteredSealProof) CircuitID() CircuitID {
	if !p.Valid() {
		return ""
	}
	c, _ := PoRepCircuitID(p.SectorSize())
	return c
}

// ParameterSetID names the proof's Groth16 parameters and verifying key.
func (p RegisteredSealProof) ParameterSetID() ParameterSetID {
	if !p.Valid() {
		return ""
	}
	return p.SealSpec().PoRepParameterSetID()
}

// SealProofOfPoRepID is the registered proof whose porep_id is id, for
// sectors of the given size: the first 8 bytes of every porep_id Filecoin
// derives are the proof's id (little-endian), so a verifier handed only a
// porep_id can recover the proof and its api version. ok is false for a
// porep_id no registered proof of that size has.
func SealProofOfPoRepID(id [32]byte, size SectorSize) (p RegisteredSealProof, ok bool) {
	p, err := SealProofFromID(binary.LittleEndian.Uint64(id[0:8]))
	if err != nil || p.SectorSize() != size || p.PoRepID() != id {
		return 0, false
	}
	return p, true
}
