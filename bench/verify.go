package bench

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/srs"
)

// ErrNoVerifier: the tool cannot check proofs of this type.
var ErrNoVerifier = errors.New("no verifier for this proof type")

// ErrReplicaMismatch: the prover id and sector number given for
// verify-seal do not reproduce the C1's replica id, so the proof could
// never verify against them.
var ErrReplicaMismatch = errors.New("replica id mismatch")

// VerifyingKeyPath is where the verifying key of spec's circuit lives in a
// parameter directory (official names for Filecoin circuits, the test
// kind's names for test circuits).
func VerifyingKeyPath(spec *Spec, paramDir string) (string, error) {
	switch spec.Type {
	case TypeTest:
		return filepath.Join(paramDir, testkind.FileBase(spec.LogRows)+".vk"), nil
	case TypePoRep:
		f, err := srs.FilecoinLocator(paramDir).Locate(spec.Circuit)
		if err != nil {
			return "", err
		}
		return f.VK, nil
	}
	return "", fmt.Errorf("%w: %s", ErrNoVerifier, spec.Type)
}

// Verify checks a proof the daemon returned for spec: for PoRep,
// verify-seal from the C1's public values (comm_r, comm_d, ticket, seed,
// registered proof) with the prover id of spec.MinerID and spec's sector
// number; for test circuits, Groth16 verification of every partition
// proof against the circuit's public inputs. method says which.
func Verify(spec *Spec, vk *groth16.VerifyingKey, proof []byte) (ok bool, method string, err error) {
	switch spec.Type {
	case TypePoRep:
		method = "verify-seal from the C1's public values"
		o := spec.C1
		if o == nil {
			return false, method, fmt.Errorf("%w: no C1 in the spec", ErrNoVerifier)
		}
		cfg, err := porep.ConfigFor(o.RegisteredProof)
		if err != nil {
			return false, method, err
		}
		pub := porep.SealPublic{Config: cfg, CommR: o.CommR, CommD: o.CommD, ProverID: filecoin.ProverID(spec.MinerID),
			Sector: spec.SectorNumber, Ticket: o.Ticket, Seed: o.Seed}
		if pub.ReplicaID() != o.ReplicaID {
			return false, method, fmt.Errorf("%w: miner %d, sector %d give replica id %x, the C1 has %x", ErrReplicaMismatch,
				spec.MinerID, spec.SectorNumber, pub.ReplicaID(), o.ReplicaID)
		}
		ok, err := porep.VerifySeal(vk, proof, pub)
		return ok, method, err
	case TypeTest:
		method = "groth16 verify of each partition proof against the test circuit's public inputs"
		proofs, err := groth16.DecodeProofs(proof)
		if err != nil {
			return false, method, err
		}
		pvk, err := groth16.Prepare(vk)
		if err != nil {
			return false, method, err
		}
		in := testkind.PublicInputs(spec.LogRows)
		inputs := make([][]fr.Element, len(proofs))
		for i := range inputs {
			inputs[i] = in
		}
		ok, err := groth16.VerifyBatch(pvk, proofs, inputs, nil)
		return ok, method, err
	}
	return false, "", fmt.Errorf("%w: %s", ErrNoVerifier, spec.Type)
}
