package server_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/porepkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/srs"
)

// TestFaultStormPoRep2KiB is TestFaultStorm with Curio's requests: 16
// clients send 2 KiB PoRep C1s as Curio does. Three proofs complete, each
// asked for by two callers under one request id; three jobs are
// cancelled, three calls given up and three connections dropped once
// their jobs are accepted; one request is malformed. Each accepted job
// ends exactly once, the three proofs pass verify-seal, and budget,
// intake, goroutines and heap come back (parameters evicted at the end).
func TestFaultStormPoRep2KiB(t *testing.T) {
	testenv.E2E(t, "2 KiB test parameters (about 1 GiB, generated once into the shared cache) and three 2^22-row proofs")
	p := filecoin.StackedDrg2KiBV1_1
	files := testkit.FilecoinParams(t, p.CircuitID())[0]
	o, pub := testkit.SealedPublic(t, p)
	wrapper, err := c1.Wrap(o, uint64(seal.DefaultSector)).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	vk, err := groth16.ReadVerifyingKeyFile(files.VK)
	if err != nil {
		t.Fatal(err)
	}
	req := func(id string) *cuzkv1.SubmitProofRequest {
		return &cuzkv1.SubmitProofRequest{
			RequestId: id, ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT, Priority: cuzkv1.Priority_NORMAL,
			RegisteredProof: uint64(p), SectorSize: 2048, SectorNumber: uint64(seal.DefaultSector), MinerId: seal.DefaultMinerID,
			VanillaProof: wrapper,
		}
	}

	d := startStormDaemon(t, []engine.Kind{engine.Builtin(proofkind.PoRep, &porepkind.Planner{})},
		srs.FilecoinLocator(filepath.Dir(files.Params)), 12<<30, engine.Config{}, true)
	ctl, err := client.Dial(d.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	circuit, err := filecoin.PoRepCircuitID(p.SectorSize())
	if err != nil {
		t.Fatal(err)
	}
	cid := string(circuit)
	if _, _, err := ctl.Preload(context.Background(), cid); err != nil {
		t.Fatal(err)
	}
	g0 := settleGoroutines(0, 500*time.Millisecond)
	heap0 := heapAfterGC()

	completed := []engine.State{engine.StateCompleted}
	cancelled := []engine.State{engine.StateCancelled, engine.StateCompleted}
	var clients []stormClient
	var closers []func()
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	dial := func() (*client.Client, func()) {
		conn, err := client.Dial(d.addr)
		if err != nil {
			t.Fatal(err)
		}
		closeOnce := sync.OnceFunc(func() { conn.Close() })
		closers = append(closers, closeOnce)
		return conn, closeOnce
	}
	for i := range 3 {
		id := fmt.Sprintf("porep-1000-%d", i)
		a, _ := dial()
		b, _ := dial()
		proofs := make(chan []byte, 2)
		for j, conn := range []*client.Client{a, b} {
			c := stormClient{id: id, want: completed}
			if j == 1 {
				c = stormClient{} // joins the first caller's job
			}
			c.run = func(ctx context.Context) error {
				res, err := conn.Prove(ctx, req(id))
				if err != nil {
					return err
				}
				proofs <- res.GetProof()
				if j == 1 {
					p0, p1 := <-proofs, <-proofs
					if string(p0) != string(p1) {
						return errors.New("two callers of one request id got different proofs")
					}
					if ok, err := porep.VerifySeal(vk, p0, pub); err != nil || !ok {
						return fmt.Errorf("verify-seal: %v %v", ok, err)
					}
				}
				return nil
			}
			clients = append(clients, c)
		}
	}
	for i := range 3 {
		id := fmt.Sprintf("porep-1001-%d", i)
		conn, _ := dial()
		clients = append(clients, stormClient{id, cancelled, func(ctx context.Context) error {
			if _, err := conn.Submit(ctx, req(id)); err != nil {
				return err
			}
			if err := d.accepted(id); err != nil {
				return err
			}
			if _, err := conn.Cancel(ctx, id); err != nil {
				return err
			}
			if _, err := conn.Await(ctx, id, 0); err != nil && !errors.Is(err, client.ErrCancelled) {
				return err
			}
			return nil
		}})
	}
	for i := range 3 {
		id := fmt.Sprintf("porep-1002-%d", i)
		conn, _ := dial()
		clients = append(clients, stormClient{id, cancelled, func(ctx context.Context) error {
			cctx, cancel := context.WithCancel(ctx)
			acc := make(chan error, 1)
			go func() { acc <- d.accepted(id); cancel() }()
			if _, err := conn.Prove(cctx, req(id)); err != nil && code(err) != codes.Canceled {
				return err
			}
			return <-acc
		}})
	}
	for i := range 3 {
		id := fmt.Sprintf("porep-1003-%d", i)
		conn, closeConn := dial()
		clients = append(clients, stormClient{id, cancelled, func(ctx context.Context) error {
			acc := make(chan error, 1)
			go func() { acc <- d.accepted(id); closeConn() }()
			if _, err := conn.Prove(ctx, req(id)); err == nil {
				return errors.New("prove succeeded on a closed connection")
			}
			return <-acc
		}})
	}
	conn, _ := dial()
	clients = append(clients, stormClient{"porep-bad", nil, func(ctx context.Context) error {
		bad := req("porep-bad")
		bad.SectorSize = 8 << 20
		if _, err := conn.Prove(ctx, bad); code(err) != codes.InvalidArgument {
			return fmt.Errorf("malformed request: %v", err)
		}
		return nil
	}})
	d.storm(t, ctl, clients, closers, stormBaseline{g0, heap0, 0}, 30*time.Minute, []string{cid})
}
