package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/proofkind"
)

func TestProveCompletesAndReusesParams(t *testing.T) {
	r := newRig(t, engine.Config{}, 0, 0)
	res, err := r.eng.Prove(context.Background(), testReq("a", 10, testkind.Options{Partitions: 2}))
	if err != nil {
		t.Fatal(err)
	}
	if res.State != engine.StateCompleted {
		t.Fatalf("state %v, err %v", res.State, res.Err)
	}
	verifyProof(t, 10, res.Proof, 2)
	tm := res.Timings
	if tm.SRSLoad <= 0 || tm.Synthesis <= 0 || tm.Prove <= 0 || tm.Total <= 0 {
		t.Errorf("timings not all set: %+v", tm)
	}
	if tm.Total < tm.Synthesis || tm.Total < tm.SRSLoad {
		t.Errorf("total below a stage: %+v", tm)
	}
	res2, err := r.eng.Prove(context.Background(), testReq("b", 10, testkind.Options{Partitions: 2}))
	if err != nil || res2.State != engine.StateCompleted {
		t.Fatalf("second proof: %v %v %v", err, res2.State, res2.Err)
	}
	if res2.Timings.SRSLoad != 0 {
		t.Errorf("second proof loaded parameters again: srs_load = %v", res2.Timings.SRSLoad)
	}
	verifyProof(t, 10, res2.Proof, 2)
	r.waitIdleBudget(t)
}

func TestBadInput(t *testing.T) {
	r := newRig(t, engine.Config{}, 0, 0)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		req  *engine.Request
		want error
	}{
		{"unknown kind", &engine.Request{Kind: proofkind.WinningPoSt}, engine.ErrUnknownKind},
		{"unspecified kind", &engine.Request{}, engine.ErrUnknownKind},
		{"malformed wrapper", func() *engine.Request {
			q := testReq("", 10, testkind.Options{})
			q.VanillaProof = []byte(`{"partitions": 2,`)
			return q
		}(), engine.ErrInvalidRequest},
		{"unknown option", func() *engine.Request {
			q := testReq("", 10, testkind.Options{})
			q.VanillaProof = []byte(`{"partitons": 2}`)
			return q
		}(), engine.ErrInvalidRequest},
		{"wrong sector size", func() *engine.Request {
			q := testReq("", 10, testkind.Options{})
			q.SectorSize = 2048
			return q
		}(), engine.ErrInvalidRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.eng.Submit(ctx, tc.req)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			t.Logf("%v", err)
		})
	}
	// The engine keeps serving.
	res, err := r.eng.Prove(ctx, testReq("good", 10, testkind.Options{}))
	if err != nil || res.State != engine.StateCompleted {
		t.Fatalf("after bad input: %v %v %v", err, res.State, res.Err)
	}
}
