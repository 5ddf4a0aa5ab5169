package snapkind

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/internal/par"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/snap"
	"github.com/cuzk-dev/cuzk/snap/circuit"
)

// Sentinels a caller can match besides engine.ErrInvalidRequest.
var (
	// ErrCommRNew is returned when comm_r_new is not the commitment the
	// vanilla proofs open (comm_r_new = Poseidon2(comm_c, root of
	// tree_r_new)).
	ErrCommRNew = errors.New("comm_r_new does not match the vanilla proofs")
	// ErrCommROld is returned when comm_r_old is not the commitment the
	// vanilla proofs open.
	ErrCommROld = errors.New("comm_r_old does not match the vanilla proofs")
)

// Planner plans SNAP_DEALS_UPDATE requests.
type Planner struct {
	// Workers bounds the goroutines of the native vanilla check, one
	// partition each (0: GOMAXPROCS).
	Workers int
	// Partition, when not nil, plans that partition alone (its vanilla
	// proof checked, its circuit), so the job's proof is its 192 bytes
	// (the one-shot prove-update --partition). The request still carries
	// every partition's vanilla proof, as Curio sends it. It is the
	// planner's setting, never a request's: partition_index must be 0.
	Partition *int
}

// ErrPartition is returned (wrapping engine.ErrInvalidRequest) when
// Planner.Partition names a partition the update does not have.
var ErrPartition = errors.New("no such partition")

// invalid is engine.Invalid of this kind; format may use %w.
func invalid(format string, args ...any) error {
	return engine.Invalid(proofkind.SnapDeals.String(), format, args...)
}

// NewRequest is the request this planner reads: an update proof of p, the
// three commitments as their raw 32 bytes (Plan checks that they are
// canonical) and one vanilla proof per partition. oneshot, demo and the
// tests build their requests here rather than by hand; the wire's
// sector_number and miner_id, which the planner does not read, are the
// caller's to add.
func NewRequest(p filecoin.RegisteredUpdateProof, commROld, commRNew, commDNew [32]byte, vanilla [][]byte) *engine.Request {
	return &engine.Request{Kind: proofkind.SnapDeals, RegisteredProof: uint64(p), SectorSize: uint64(p.SectorSize()), VanillaProofs: vanilla,
		CommROld: commROld[:], CommRNew: commRNew[:], CommDNew: commDNew[:]}
}

// UpdateRequest is NewRequest of update u: its public values and vanilla
// proofs.
func UpdateRequest(u *snap.Update) *engine.Request {
	pub := u.Public()
	return NewRequest(pub.Proof, fr32.FromElement(&pub.CommROld), fr32.FromElement(&pub.CommRNew), pub.CommDNew, u.VanillaProofs)
}

// commitment reads a raw 32-byte commitment field as a canonical field
// element.
func commitment(name string, b []byte) ([32]byte, fr.Element, error) {
	if len(b) != 32 {
		return [32]byte{}, fr.Element{}, invalid("%s is %d bytes, want exactly 32", name, len(b))
	}
	raw := [32]byte(b)
	e, err := fr.LittleEndian.Element(&raw)
	if err != nil {
		return raw, e, invalid("%s %x is not a canonical field element", name, raw)
	}
	return raw, e, nil
}

// Plan implements engine.Planner.
func (k *Planner) Plan(ctx context.Context, req *engine.Request) (*engine.Plan, error) {
	p, err := filecoin.UpdateProofFromID(req.RegisteredProof)
	if err != nil {
		return nil, invalid("registered_proof: %w", err)
	}
	size := p.SectorSize()
	if req.SectorSize != 0 && req.SectorSize != uint64(size) {
		return nil, invalid("sector_size %d does not match registered_proof %v (%d bytes)", req.SectorSize, p, uint64(size))
	}
	// Fields of the PoSt kinds: a client that sets them believes it sends
	// something else, so it is told rather than ignored.
	if req.PartitionIndex != 0 {
		return nil, invalid("partition_index %d is set: one request proves every partition of the update (vanilla_proofs, entry k for partition k); leave it 0", req.PartitionIndex)
	}
	if len(req.Randomness) != 0 {
		return nil, invalid("randomness is set (%d bytes): an update's challenges come from comm_r_new; leave it empty", len(req.Randomness))
	}
	_, commROld, err := commitment("comm_r_old", req.CommROld)
	if err != nil {
		return nil, err
	}
	commDNew, commDNewFr, err := commitment("comm_d_new", req.CommDNew)
	if err != nil {
		return nil, err
	}
	_, commRNew, err := commitment("comm_r_new", req.CommRNew)
	if err != nil {
		return nil, err
	}
	if n := len(req.VanillaProofs); n != p.Partitions() {
		return nil, invalid("vanilla_proofs has %d entries, %v takes one per partition (%d)", n, p, p.Partitions())
	}
	pps, err := snap.DecodePartitionProofs(req.VanillaProofs, p)
	if err != nil {
		return nil, invalid("%w", err)
	}
	params, err := circuit.ParamsFor(uint64(size))
	if err != nil {
		return nil, invalid("%w", err)
	}
	workers := k.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	pub := snap.Public{Proof: p, CommROld: commROld, CommDNew: commDNew, CommRNew: commRNew}
	parts := make([]int, len(pps))
	for i := range parts {
		parts[i] = i
	}
	if k.Partition != nil {
		if n := len(pps); *k.Partition < 0 || *k.Partition >= n {
			return nil, invalid("%w: partition %d, but %v has %d partition(s), 0 to %d", ErrPartition, *k.Partition, p, n, n-1)
		}
		parts = []int{*k.Partition}
	}
	plan := &engine.Plan{CircuitID: string(p.CircuitID()), Partitions: make([]engine.Partition, len(parts))}
	// One partition per chunk, in order: par.Do reports the lowest failing
	// partition, so the message does not depend on scheduling.
	err = par.Do(ctx, len(parts), 1, workers, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			part := parts[i]
			if err := snap.Verify(ctx, pub, part, pps[part]); err != nil {
				return checkError(part, err)
			}
			// The verifier's public inputs, from the commitments and k alone.
			inputs, err := pub.PartitionInputs(part)
			if err != nil {
				return invalid("partition %d: public inputs: %w", part, err)
			}
			cpub, err := circuit.NewPublicInputs(params, part, params.HDefault(), commROld, commDNewFr, commRNew)
			if err != nil {
				return invalid("partition %d: %w", part, err)
			}
			if err := sameInputs(cpub.Vector(), inputs); err != nil {
				return fmt.Errorf("snapkind: partition %d: %w", part, err)
			}
			priv, err := circuit.PrivateFromVanilla(pps[part])
			if err != nil {
				return invalid("vanilla_proofs[%d]: %w", part, err)
			}
			c, err := circuit.New(params, cpub, priv)
			if err != nil {
				return invalid("vanilla_proofs[%d]: %w", part, err)
			}
			plan.Partitions[i] = engine.Partition{Circuit: c, PublicInputs: inputs}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return plan, nil
}

// checkError maps a native verification failure of partition part to the
// request field at fault.
func checkError(part int, err error) error {
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, snap.ErrCommRNew):
		return invalid("vanilla_proofs[%d] (partition %d): %w: %w", part, part, ErrCommRNew, err)
	case errors.Is(err, snap.ErrCommROld):
		return invalid("vanilla_proofs[%d] (partition %d): %w: %w", part, part, ErrCommROld, err)
	case errors.Is(err, snap.ErrCommD):
		return invalid("vanilla_proofs[%d] (partition %d): comm_d_new does not match the vanilla proofs: %w", part, part, err)
	}
	return invalid("vanilla_proofs[%d] (partition %d): %w", part, part, err)
}

// sameInputs guards the circuit against public inputs other than the
// verifier's; a difference is a bug here, not a bad request.
func sameInputs(got, want []fr.Element) error {
	i, err := engine.FirstDifference(got, want)
	if err == nil && i >= 0 {
		err = fmt.Errorf("circuit public input %d differs from the verifier's", i)
	}
	return err
}
