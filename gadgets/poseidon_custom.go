package gadgets

import (
	"fmt"
	"sync"

	"github.com/cuzk-dev/cuzk/hash"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// GenRandomnessTagID is the custom domain tag id of storage-proofs-update's
// POSEIDON_CONSTANTS_GEN_RANDOMNESS (HashType::Custom(CType::Arbitrary(1))),
// used for φ, ρ and the challenge digests of EmptySectorUpdate.
const GenRandomnessTagID = 1

// CustomPoseidonConstants returns neptune's constants for arity with
// HashType::Custom(CType::Arbitrary(id)) and Strength::Standard: the round
// constants, MDS and sparse matrices of the Merkle-tree constants (they
// depend only on the width and strength), with the domain tag id·2^40. The
// result shares the read-only tables of hash.LookupPoseidon(arity).
func CustomPoseidonConstants(arity int, id uint64) (*hash.PoseidonConstants, error) {
	if id < 1 || id > 256 {
		// neptune accepts ids 1..=256 (hash.CustomDomainTag panics outside).
		return nil, fmt.Errorf("poseidon custom domain tag id %d outside 1..256: %w", id, ErrArity)
	}
	tag := hash.CustomDomainTag(id)
	p, err := hash.LookupPoseidon(arity)
	if err != nil {
		return nil, fmt.Errorf("poseidon circuit: %w: %w", ErrArity, err)
	}
	c := *p
	c.DomainTag = tag
	return &c, nil
}

type customKey struct {
	arity int
	id    uint64
}

// customTemplates caches one row template per (arity, id); entries are
// immutable once built, like poseidonTemplates.
var customTemplates sync.Map // customKey -> *customTemplate

// genRandomness is the template of the one custom hash Filecoin uses
// (arity 2, id 1), kept apart so the hot path does no map lookup.
var genRandomness customTemplate

type customTemplate struct {
	once sync.Once
	t    *poseidonTemplate
	err  error
}

// PoseidonHashCustom is neptune v11's circuit::poseidon_hash with the
// constants of CustomPoseidonConstants(len(preimage), id): the same rows as
// PoseidonHash (311 for arity 2) except that the domain tag's constant
// first-round S-box, and so every linear combination it feeds, comes from
// id·2^40 instead of 2^arity − 1.
func PoseidonHashCustom(cs *r1cs.CS, preimage []AllocatedNum, id uint64) (AllocatedNum, error) {
	key := customKey{len(preimage), id}
	ct := &genRandomness
	if key != (customKey{2, GenRandomnessTagID}) {
		v, ok := customTemplates.Load(key)
		if !ok {
			v, _ = customTemplates.LoadOrStore(key, &customTemplate{})
		}
		ct = v.(*customTemplate)
	}
	ct.once.Do(func() {
		p, err := CustomPoseidonConstants(key.arity, key.id)
		if err != nil {
			ct.err = err
			return
		}
		ct.t = buildPoseidonTemplate(p)
	})
	if ct.err != nil {
		return AllocatedNum{}, ct.err
	}
	return ct.t.synthesize(cs, preimage), nil
}

// PoseidonGenRandomness is PoseidonHashCustom of (a, b) with
// GenRandomnessTagID: storage-proofs-update's poseidon_hash(…,
// &POSEIDON_CONSTANTS_GEN_RANDOMNESS).
func PoseidonGenRandomness(cs *r1cs.CS, a, b AllocatedNum) AllocatedNum {
	pre := [2]AllocatedNum{a, b}
	h, err := PoseidonHashCustom(cs, pre[:], GenRandomnessTagID)
	if err != nil {
		panic(err) // arity 2 and id 1 always exist
	}
	return h
}
