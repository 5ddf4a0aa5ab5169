package client

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/grpc/balancer"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/status"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/proofkind"
)

func report(memUsed, memLimit uint64, queues ...*cuzkv1.QueueStatus) *cuzkv1.GetStatusResponse {
	return &cuzkv1.GetStatusResponse{Queues: queues, PinnedMemoryBytes: memUsed, PinnedMemoryLimitBytes: memLimit}
}

func queue(kind string, pending, running uint32) *cuzkv1.QueueStatus {
	return &cuzkv1.QueueStatus{ProofKind: kind, Pending: pending, InProgress: running}
}

func TestLoadOf(t *testing.T) {
	busy := report(10, 100, queue("porep-c2", 5, 1), queue("window-post", 2, 0), queue("winning-post", 1, 1))
	for _, tc := range []struct {
		name  string
		st    *cuzkv1.GetStatusResponse
		added map[string]int
		kind  string
		prio  cuzkv1.Priority
		want  load
	}{
		{"no report yet", nil, nil, "porep-c2", cuzkv1.Priority_NORMAL, load{}},
		{"no report, jobs sent since", nil, map[string]int{"porep-c2": 2}, "porep-c2", cuzkv1.Priority_NORMAL, load{ahead: 2}},
		// NORMAL waits behind every queued job (all kinds are NORMAL or
		// above) and every running one.
		{"normal", busy, nil, "porep-c2", cuzkv1.Priority_NORMAL, load{ahead: 5 + 1 + 2 + 0 + 1 + 1}},
		// HIGH jumps the queued PoRep jobs.
		{"high", busy, nil, "window-post", cuzkv1.Priority_HIGH, load{ahead: 1 + 2 + 1 + 1}},
		// CRITICAL waits only for the running jobs and queued WinningPoSt.
		{"critical", busy, map[string]int{"porep-c2": 3, "winning-post": 1}, "winning-post", cuzkv1.Priority_CRITICAL, load{ahead: 1 + 1 + 1 + 1}},
		// A kind the daemon lists no queue for is not served there.
		{"unserved", busy, nil, "test", cuzkv1.Priority_NORMAL, load{unserved: true, ahead: 10}},
		// Jobs that finished since the report make the count smaller, never
		// negative.
		{"finished since", report(0, 0, queue("test", 0, 1)), map[string]int{"test": -3}, "test", cuzkv1.Priority_NORMAL, load{}},
		{"memory tight", report(95, 100, queue("test", 0, 0)), nil, "test", cuzkv1.Priority_NORMAL, load{tight: true}},
		{"memory over the limit", report(200, 100), nil, "", cuzkv1.Priority_NORMAL, load{tight: true}},
		{"memory roomy", report(80, 100), nil, "", cuzkv1.Priority_NORMAL, load{}},
		{"draining", &cuzkv1.GetStatusResponse{Draining: true, Queues: []*cuzkv1.QueueStatus{queue("test", 0, 1)}}, nil, "test",
			cuzkv1.Priority_NORMAL, load{draining: true, ahead: 1}},
	} {
		if got := loadOf(tc.st, tc.added, tc.kind, tc.prio, 0); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestLoadOrder(t *testing.T) {
	// Each is preferred to the next.
	order := []load{
		{ahead: 0, routed: 0},
		{ahead: 0, routed: 5},
		{ahead: 0, tight: true},
		{ahead: 1},
		{ahead: 9, tight: true},
		{unserved: true, ahead: 0},
		// A draining daemon refuses every new job: last, whatever its queue.
		{draining: true, ahead: 0},
	}
	for i := range order {
		for j := range order {
			if got := order[i].less(order[j]); got != (i < j) {
				t.Errorf("%+v less %+v = %v", order[i], order[j], got)
			}
		}
	}
}

func TestQueuePriorities(t *testing.T) {
	for kind, want := range map[cuzkv1.ProofKind]cuzkv1.Priority{
		cuzkv1.ProofKind_WINNING_POST: cuzkv1.Priority_CRITICAL, cuzkv1.ProofKind_WINDOW_POST_PARTITION: cuzkv1.Priority_HIGH,
		cuzkv1.ProofKind_POREP_SEAL_COMMIT: cuzkv1.Priority_NORMAL, cuzkv1.ProofKind_SNAP_DEALS_UPDATE: cuzkv1.Priority_NORMAL,
		cuzkv1.ProofKind(proofkind.Test): cuzkv1.Priority_NORMAL, 77: cuzkv1.Priority_NORMAL,
	} {
		if got := jobPriority(&cuzkv1.SubmitProofRequest{ProofKind: kind}); got != want {
			t.Errorf("%v: %v, want %v", kind, got, want)
		}
	}
	if got := jobPriority(&cuzkv1.SubmitProofRequest{ProofKind: cuzkv1.ProofKind_WINNING_POST, Priority: cuzkv1.Priority_LOW}); got != cuzkv1.Priority_LOW {
		t.Errorf("explicit priority: %v", got)
	}
	if got := jobPriority(&cuzkv1.SubmitProofRequest{Priority: 99}); got != cuzkv1.Priority_NORMAL {
		t.Errorf("unknown priority: %v", got)
	}
}

// testPicker is a picker over daemons a, b, c (no real sub-connections:
// the picker only hands them back).
func testPicker() (*picker, map[string]*daemon) {
	p := &picker{fleet: newFleet()}
	ds := map[string]*daemon{}
	for _, a := range []string{"a", "b", "c"} {
		ds[a] = p.fleet.daemon(a)
		ds[a].setConn(connectivity.Ready)
		p.ready = append(p.ready, readySC{d: ds[a]})
	}
	return p, ds
}

func pick(t *testing.T, p *picker, r *route) (string, balancer.PickResult, error) {
	t.Helper()
	r.setPicked("")
	res, err := p.Pick(balancer.PickInfo{Ctx: context.WithValue(context.Background(), routeKey{}, r)})
	return r.pickedAddr(), res, err
}

func TestPickerSpreadsABurst(t *testing.T) {
	p, ds := testPicker()
	ds["a"].report = report(0, 0, queue("test", 0, 1)) // a is busy
	counts := map[string]int{}
	var dones []func(balancer.DoneInfo)
	for range 7 {
		addr, res, err := pick(t, p, &route{newJob: jobProve, kind: "test", prio: cuzkv1.Priority_NORMAL})
		if err != nil {
			t.Fatal(err)
		}
		counts[addr]++
		dones = append(dones, res.Done)
	}
	// b and c take turns until they carry as much as a, then all three.
	if counts["a"] != 2 || counts["b"]+counts["c"] != 5 || counts["b"]-counts["c"] > 1 || counts["c"]-counts["b"] > 1 {
		t.Fatalf("picks %v", counts)
	}
	// Prove calls that end leave the count; a new report replaces it.
	for _, d := range dones {
		d(balancer.DoneInfo{})
	}
	for a, d := range ds {
		if l := d.load("test", cuzkv1.Priority_NORMAL); (a == "a") != (l.ahead == 1) || (a != "a" && l.ahead != 0) {
			t.Errorf("%s after the calls ended: %+v", a, l)
		}
	}
	// A submitted job stays counted after its call; a failed submit not.
	_, res, _ := pick(t, p, &route{newJob: jobSubmit, kind: "test"})
	res.Done(balancer.DoneInfo{})
	_, res, _ = pick(t, p, &route{newJob: jobSubmit, kind: "test"})
	res.Done(balancer.DoneInfo{Err: status.Error(codes.Unavailable, "gone")})
	total := 0
	for _, d := range ds {
		total += d.load("test", cuzkv1.Priority_NORMAL).ahead
	}
	if total != 2 {
		t.Fatalf("after a submit and a failed submit: %d ahead in all", total)
	}
}

func TestPickerPinPreferExclude(t *testing.T) {
	p, ds := testPicker()
	ds["c"].report = report(0, 0, queue("test", 9, 9))
	if addr, _, err := pick(t, p, &route{pin: "c"}); err != nil || addr != "c" {
		t.Fatalf("pin: %q %v", addr, err)
	}
	if _, _, err := pick(t, p, &route{pin: "gone"}); status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("pin to an unknown daemon: %v", err)
	}
	if addr, _, _ := pick(t, p, &route{prefer: "c", newJob: jobProve, kind: "test"}); addr != "c" {
		t.Fatalf("prefer: %q", addr)
	}
	if addr, _, _ := pick(t, p, &route{prefer: "c", exclude: []string{"c", "a"}, newJob: jobProve, kind: "test"}); addr != "b" {
		t.Fatalf("prefer an excluded daemon: %q", addr)
	}
	if _, _, err := pick(t, p, &route{exclude: []string{"a", "b", "c"}, newJob: jobProve}); status.Code(err) != codes.Unavailable {
		t.Fatalf("all excluded: %v", err)
	}
	// A daemon that does not serve the kind is chosen last, however idle.
	ds["a"].report = report(0, 0, queue("porep-c2", 0, 0))
	ds["b"].report = report(0, 0, queue("porep-c2", 0, 0))
	if addr, _, _ := pick(t, p, &route{newJob: jobProve, kind: "test"}); addr != "c" {
		t.Fatalf("unserved kind went to %q", addr)
	}
}

// A daemon whose report says it drains gets no new job while another can
// take it, even as the one the request id was placed on, however busy the
// others; calls about its jobs still go there.
func TestPickerAvoidsDraining(t *testing.T) {
	p, ds := testPicker()
	ds["a"].report = &cuzkv1.GetStatusResponse{Draining: true, Queues: []*cuzkv1.QueueStatus{queue("test", 0, 0)}}
	ds["b"].report = report(0, 0, queue("test", 5, 1))
	ds["c"].report = &cuzkv1.GetStatusResponse{Draining: true}
	for range 4 {
		if addr, _, err := pick(t, p, &route{prefer: "a", newJob: jobProve, kind: "test"}); err != nil || addr != "b" {
			t.Fatalf("new job with a and c draining: %q %v, want b", addr, err)
		}
	}
	if addr, _, err := pick(t, p, &route{pin: "a"}); err != nil || addr != "a" {
		t.Fatalf("call pinned to the draining daemon: %q %v", addr, err)
	}
	// With every other daemon excluded, a draining one is still tried: its
	// refusal is the answer the caller gets.
	if addr, _, err := pick(t, p, &route{exclude: []string{"b", "c"}, newJob: jobSubmit, kind: "test"}); err != nil || addr != "a" {
		t.Fatalf("only a left: %q %v", addr, err)
	}
}

func TestPickerWaitsForConnections(t *testing.T) {
	p, _ := testPicker()
	d := p.fleet.daemon("d") // resolved, still connecting for the first time
	d.setConn(connectivity.Connecting)
	if _, _, err := pick(t, p, &route{newJob: jobProve}); err != balancer.ErrNoSubConnAvailable {
		t.Fatalf("a new job with a daemon still connecting: %v", err)
	}
	if addr, _, err := pick(t, p, &route{newJob: jobProve, exclude: []string{"d"}}); err != nil || addr == "d" {
		t.Fatalf("with the connecting daemon excluded: %q %v", addr, err)
	}
	if _, _, err := pick(t, p, &route{pin: "d"}); err != balancer.ErrNoSubConnAvailable {
		t.Fatalf("a call pinned to a connecting daemon: %v", err)
	}
	if addr, _, err := pick(t, p, &route{}); err != nil || addr == "d" {
		t.Fatalf("other calls do not wait: %q %v", addr, err)
	}
	d.setConn(connectivity.TransientFailure)
	if addr, _, err := pick(t, p, &route{newJob: jobProve}); err != nil || addr == "d" {
		t.Fatalf("after its first attempt failed: %q %v", addr, err)
	}
	if _, _, err := pick(t, p, &route{pin: "d"}); status.Code(err) != codes.Unavailable {
		t.Fatalf("a call pinned to a failed daemon: %v", err)
	}
	d.setConn(connectivity.Connecting) // trying again: no longer its first attempt
	if _, _, err := pick(t, p, &route{newJob: jobProve}); err != nil {
		t.Fatalf("a reconnecting daemon held up a new job: %v", err)
	}
}

// TestPlace drives the router's retry loop with a fake call that plays
// the picker (first daemon not excluded, in order a, b, c) and the
// daemons' answers.
func TestPlace(t *testing.T) {
	unavailable := status.Error(codes.Unavailable, "daemon stopping")
	full := status.Error(codes.ResourceExhausted, "too many pending jobs")
	bad := status.Error(codes.InvalidArgument, "bad request")
	for _, tc := range []struct {
		name     string
		pin      string
		answers  map[string]error
		wantErr  error
		wantAt   string
		wantTry  []string
		wantSent []string
	}{
		{"first daemon takes it", "", nil, nil, "a", nil, []string{"a"}},
		{"unavailable, then full, then taken", "", map[string]error{"a": unavailable, "b": full}, nil, "c", []string{"a", "b"}, []string{"a", "b", "c"}},
		{"a refusal is not retried", "", map[string]error{"a": bad}, bad, "a", nil, []string{"a"}},
		{"a pinned call is not retried", "b", map[string]error{"b": unavailable}, unavailable, "b", nil, []string{"b"}},
		{"every daemon refuses", "", map[string]error{"a": unavailable, "b": unavailable, "c": full}, full, "", nil, []string{"a", "b", "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFleet()
			var sent []string
			call := func(_ context.Context, r *route, reply any) error {
				addr := r.pin
				if addr == "" {
					for _, a := range []string{"a", "b", "c"} {
						if !r.excluded(a) {
							addr = a
							break
						}
					}
				}
				if addr == "" {
					return status.Error(codes.Unavailable, "no other cuzk daemon is ready")
				}
				r.setPicked(addr)
				sent = append(sent, addr)
				if err := tc.answers[addr]; err != nil {
					return err
				}
				reply.(*cuzkv1.SubmitProofResponse).JobId = "job-1"
				return nil
			}
			err := f.place(context.Background(), &route{pin: tc.pin, newJob: jobSubmit}, "req-1", &cuzkv1.SubmitProofResponse{}, call)
			if !errors.Is(err, tc.wantErr) || !slices.Equal(sent, tc.wantSent) {
				t.Fatalf("err %v (want %v), sent to %v (want %v)", err, tc.wantErr, sent, tc.wantSent)
			}
			for _, id := range []string{"job-1", "req-1"} {
				pl, ok := f.jobs.get(id)
				if tc.wantAt == "" {
					if ok && id == "job-1" {
						t.Fatalf("a job that no daemon took has a placement: %+v", pl)
					}
					continue
				}
				if tc.wantErr == nil || id == "req-1" {
					if !ok || pl.Daemon != tc.wantAt || !slices.Equal(pl.Tried, tc.wantTry) {
						t.Fatalf("%s placed %+v (%v), want %s after %v", id, pl, ok, tc.wantAt, tc.wantTry)
					}
				}
			}
		})
	}
}

func TestPlacementsBounded(t *testing.T) {
	var p placements
	p.m = map[string]Placement{}
	for i := range maxPlacements + 10 {
		p.put(strconv.Itoa(i), Placement{Daemon: "d"})
	}
	if len(p.m) != maxPlacements || len(p.fifo) != maxPlacements {
		t.Fatalf("%d entries, %d in order", len(p.m), len(p.fifo))
	}
	if _, ok := p.get("0"); ok {
		t.Fatal("the oldest entry was kept")
	}
}

func TestStaticAddress(t *testing.T) {
	for _, tc := range []struct{ in, addr, server, err string }{
		{"unix:///run/cuzk.sock", "unix:///run/cuzk.sock", "localhost", ""},
		{"unix:rel.sock", "unix:rel.sock", "localhost", ""},
		{"10.0.0.2:9820", "10.0.0.2:9820", "10.0.0.2:9820", ""},
		{"gpu-box-1:9820", "gpu-box-1:9820", "gpu-box-1:9820", ""},
		{"passthrough:///gpu-box-1:9820", "gpu-box-1:9820", "gpu-box-1:9820", ""},
		{"[::1]:9820", "[::1]:9820", "[::1]:9820", ""},
		{":9820", "localhost:9820", "localhost:9820", ""},
		{"unix://", "", "", "no socket path"},
		{"gpu-box-1", "", "", "want host:port"},
		{"http://gpu-box-1:9820", "", "", "want unix"},
		{"dns:///cuzk:9820", "", "", "cannot be part of a list"},
	} {
		a, err := staticAddress(tc.in)
		if tc.err != "" {
			if !errors.Is(err, ErrBadAddress) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || a.Addr != tc.addr || a.ServerName != tc.server {
			t.Errorf("%q: %+v %v", tc.in, a, err)
		}
	}
}

func TestDialForms(t *testing.T) {
	for _, tc := range []struct {
		addr    string
		several bool
	}{
		{"unix:///run/cuzk.sock", false},
		{"127.0.0.1:9820", false},
		{"unix:///a.sock,unix:///b.sock", true},
		{"10.0.0.1:9820, 10.0.0.2:9820", true},
		{"dns:///localhost:9820", true},
	} {
		c, err := Dial(tc.addr)
		if err != nil {
			t.Fatalf("%q: %v", tc.addr, err)
		}
		if c.Several() != tc.several {
			t.Errorf("%q: several = %v", tc.addr, c.Several())
		}
		if !tc.several {
			if ds := c.Daemons(); len(ds) != 1 || ds[0].Addr != tc.addr {
				t.Errorf("%q: daemons %+v", tc.addr, ds)
			}
			if c.Conn().Target() != Target(tc.addr) {
				t.Errorf("%q: target %q: one address must dial as before", tc.addr, c.Conn().Target())
			}
		}
		c.Close()
	}
	for _, bad := range []string{"unix:///a.sock,unix:///a.sock", "a:1,dns:///b:2", "a:1,b"} {
		if _, err := Dial(bad); !errors.Is(err, ErrBadAddress) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, err := DialDaemons(nil); !errors.Is(err, ErrBadAddress) {
		t.Errorf("no address: %v", err)
	}
	if _, err := DialResolver("nosuchscheme:///x:1", nil); !errors.Is(err, ErrBadAddress) {
		t.Errorf("unknown scheme: %v", err)
	}
}
