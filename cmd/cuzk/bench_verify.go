package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/testparams"
)

// errNoVerifier is returned when the tool cannot check proofs of this
// type.
var errNoVerifier = errors.New("no verifier for this proof type")

// errReplicaMismatch is returned when the prover id and sector number
// given for verify-seal do not reproduce the C1's replica id, so the proof
// could never verify against them.
var errReplicaMismatch = errors.New("replica id mismatch")

// verifyingKeyPath is where the verifying key of spec's circuit lives in a
// parameter directory (official names for Filecoin circuits, the test
// kind's names for test circuits).
func verifyingKeyPath(spec *benchSpec, paramDir string) (string, error) {
	switch spec.Kind() {
	case proofkind.Test:
		return filepath.Join(paramDir, testkind.FileBase(spec.logRows)+".vk"), nil
	case proofkind.PoRep, proofkind.WindowPoSt, proofkind.WinningPoSt, proofkind.SnapDeals:
		if spec.Circuit == "" {
			return "", fmt.Errorf("%w: %s without a known circuit", errNoVerifier, spec.Kind())
		}
		f, err := testparams.PathsForCircuit(filecoin.CircuitID(spec.Circuit), paramDir)
		if err != nil {
			return "", err
		}
		return f.VK, nil
	}
	return "", fmt.Errorf("%w: %s", errNoVerifier, spec.Kind())
}

// verifyBenchProof checks a proof the daemon returned for spec: for PoRep,
// verify-seal from the C1's public values (comm_r, comm_d, ticket, seed,
// registered proof) with the prover id of spec.MinerID and spec's sector
// number; for test circuits, Groth16 verification of every partition
// proof against the circuit's public inputs; for PoSt and SnapDeals, the
// same against the inputs computed from the request's public values
// (describeVanilla, demo.NewFixture). method says which.
func verifyBenchProof(spec *benchSpec, vk *groth16.VerifyingKey, proof []byte) (ok bool, method string, err error) {
	r := spec.Template
	switch spec.Kind() {
	case proofkind.PoRep:
		method = "verify-seal from the C1's public values"
		o := spec.c1
		if o == nil {
			return false, method, fmt.Errorf("%w: no C1 in the spec", errNoVerifier)
		}
		cfg, err := porep.ConfigFor(o.RegisteredProof)
		if err != nil {
			return false, method, err
		}
		pub := porep.SealPublic{Config: cfg, CommR: o.CommR, CommD: o.CommD, ProverID: filecoin.ProverID(r.MinerId),
			Sector: r.SectorNumber, Ticket: o.Ticket, Seed: o.Seed}
		if pub.ReplicaID() != o.ReplicaID {
			return false, method, fmt.Errorf("%w: miner %d, sector %d give replica id %x, the C1 has %x", errReplicaMismatch,
				r.MinerId, r.SectorNumber, pub.ReplicaID(), o.ReplicaID)
		}
		ok, err := porep.VerifySeal(vk, proof, pub)
		return ok, method, err
	case proofkind.Test:
		method = "groth16 verify of each partition proof against the test circuit's public inputs"
		proofs, err := groth16.DecodeProofs(proof)
		if err != nil {
			return false, method, err
		}
		pvk, err := groth16.Prepare(vk)
		if err != nil {
			return false, method, err
		}
		in := testkind.PublicInputs(spec.logRows)
		inputs := make([][]fr.Element, len(proofs))
		for i := range inputs {
			inputs[i] = in
		}
		ok, err := groth16.VerifyBatch(pvk, proofs, inputs, nil)
		return ok, method, err
	case proofkind.WindowPoSt, proofkind.WinningPoSt, proofkind.SnapDeals:
		method = "groth16 verify of each partition proof against public inputs computed from public values"
		if spec.public == nil {
			return false, method, fmt.Errorf("%w: the public values of this %s request are unknown", errNoVerifier, spec.Kind())
		}
		ok, err := spec.public.Verify(vk, proof)
		return ok, method, err
	}
	return false, "", fmt.Errorf("%w: %s", errNoVerifier, spec.Kind())
}
