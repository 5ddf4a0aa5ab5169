package daemon_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/config"
	"github.com/cuzk-dev/cuzk/daemon"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testcircuits"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/server"
	"github.com/cuzk-dev/cuzk/server/statusdoc"
	"github.com/cuzk-dev/cuzk/srs"
	"github.com/cuzk-dev/cuzk/testparams"
)

// The "add a proof kind" recipe of docs/architecture.md, done once: a toy
// kind (x³ + x + 5 = out for the x its request carries) is one descriptor,
// one planner and a parameter locator, and the daemon serves it end to end
// through Curio's wire: proved and self-checked, named by its descriptor
// in GetStatus, /status and the metrics, run at its default priority, its
// bad requests refused naming the field.

// toy is the toy kind's descriptor: a wire value outside Curio's enum, a
// name, an alias, a policy of its own.
var toy = proofkind.Descriptor{Kind: 1001, Name: "toy-cubic", Aliases: []string{"toy"}, DefaultPriority: proofkind.PriorityLow,
	CircuitPrefix: "toy"}

const toyCircuit = "toy-cubic"

// toyPublic are the toy's public values, what its verifier knows: x. As
// every kind's public values they give the public inputs of each
// partition (groth16.Public), so one helper verifies its proofs
// (groth16.InvalidPublic).
type toyPublic struct{ x uint64 }

func (toyPublic) Partitions() int { return 1 }

func (p toyPublic) Inputs() ([][]fr.Element, error) {
	return [][]fr.Element{{testcircuits.Cubic{X: p.x}.Out()}}, nil
}

// newToyRequest is the request the toy planner reads, as each planner
// package exports its own: vanilla_proof is x, 8 bytes little-endian.
func newToyRequest(x uint64) *engine.Request {
	return &engine.Request{Kind: toy.Kind, VanillaProof: binary.LittleEndian.AppendUint64(nil, x)}
}

// toyPlanner plans toy requests: the circuit of x, its public inputs
// from the public values.
type toyPlanner struct{}

func (toyPlanner) Plan(_ context.Context, req *engine.Request) (*engine.Plan, error) {
	if len(req.VanillaProof) != 8 {
		return nil, engine.Invalid(toy.Name, "vanilla_proof is %d bytes, want 8 (x, little-endian)", len(req.VanillaProof))
	}
	pub := toyPublic{binary.LittleEndian.Uint64(req.VanillaProof)}
	inputs, err := pub.Inputs()
	if err != nil {
		return nil, engine.Invalid(toy.Name, "public inputs: %w", err)
	}
	c := testcircuits.Cubic{X: pub.x}
	return &engine.Plan{CircuitID: toyCircuit, Partitions: []engine.Partition{{Circuit: c, PublicInputs: inputs[0]}}}, nil
}

// toyKind makes the kind's parameters in dir and its locator.
func toyKind(t *testing.T, dir string) (daemon.Kind, *groth16.VerifyingKey) {
	t.Helper()
	tw, err := groth16.RandomToxicWaste()
	if err != nil {
		t.Fatal(err)
	}
	params, err := groth16.Setup(testcircuits.Cubic{}, tw, groth16.SetupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	files := testparams.FilesAt(filepath.Join(dir, toyCircuit))
	if err := testparams.Write(files, params, "toy kind of daemon/toykind_test.go"); err != nil {
		t.Fatal(err)
	}
	loc := srs.LocatorFunc(func(id string) (srs.Files, error) {
		if id != toyCircuit {
			return srs.Files{}, fmt.Errorf("%w: %q", srs.ErrUnknownCircuit, id)
		}
		return srs.Files{Params: files.Params, VK: files.VK}, nil
	})
	return daemon.Kind{Descriptor: toy, Planner: toyPlanner{}, Locator: loc}, params.VK
}

func TestToyKindServedEndToEnd(t *testing.T) {
	dir := t.TempDir()
	kind, vk := toyKind(t, dir)
	cfg := config.Default()
	cfg.Daemon.Listen = "unix://" + filepath.Join(dir, "cuzk.sock")
	cfg.Daemon.StatusListen = "127.0.0.1:0"
	cfg.SRS.ParamCache = dir
	cfg.Memory.TotalBudget = config.Budget{Size: 4 * config.GiB}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	var logs testkit.SyncBuffer
	d, err := daemon.New(cfg, daemon.Options{Kinds: []daemon.Kind{kind}, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- d.Serve(ctx) }()
	statusAddr := d.StatusAddr()
	c, err := client.Dial(cfg.Daemon.Listen)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	// Proved, and the proof verifies from the public values x = 3 alone.
	req := server.EncodeRequest(newToyRequest(3))
	req.RequestId = "toy-1"
	x := req.VanillaProof
	res, err := c.Prove(ctx, req)
	if err != nil {
		t.Fatalf("toy proof: %v\n%s", err, logs.String())
	}
	for xv, want := range map[uint64][]int{3: nil, 4: {0}} {
		if bad, err := groth16.InvalidPublic(vk, res.GetProof(), toyPublic{xv}); err != nil || !slices.Equal(bad, want) {
			t.Errorf("verify for x = %d: invalid partitions %v, %v; want %v", xv, bad, err, want)
		}
	}
	// A bad request is refused naming the field.
	_, err = c.Prove(ctx, &cuzkv1.SubmitProofRequest{ProofKind: cuzkv1.ProofKind(toy.Kind), VanillaProof: x[:7]})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "toy-cubic: vanilla_proof is 7 bytes") {
		t.Errorf("bad toy request: %v", err)
	}

	// GetStatus lists its queue by its descriptor's name, beside Curio's.
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var queues []string
	for _, q := range st.GetQueues() {
		queues = append(queues, q.GetProofKind())
	}
	if got := strings.Join(queues, ","); got != "porep-c2,snap-update,window-post,winning-post,toy-cubic" {
		t.Errorf("GetStatus queues %s", got)
	}
	// /status names the job by the kind and shows the kind's default
	// priority, which the descriptor sets.
	resp, err := http.Get("http://" + statusAddr.String() + "/status")
	if err != nil {
		t.Fatal(err)
	}
	var doc statusdoc.Status
	err = json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.RecentJobs) != 1 || doc.RecentJobs[0].Kind != "toy-cubic" || doc.RecentJobs[0].Priority != "low" || doc.RecentJobs[0].Circuit != toyCircuit {
		t.Errorf("recent jobs %+v", doc.RecentJobs)
	}
	if !strings.Contains(strings.Join(doc.Kinds, ","), "toy-cubic") || doc.ByKind["toy-cubic"].Completed != 1 {
		t.Errorf("kinds %v, by kind %+v", doc.Kinds, doc.ByKind)
	}
	// The metrics label it by its descriptor's metric label.
	m, err := c.Metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m, `proof_kind="toy_cubic"`) {
		t.Errorf("no toy_cubic label in the metrics:\n%s", m)
	}

	cancel()
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if err := d.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if !strings.Contains(logs.String(), "kinds=porep-c2,snap-update,toy-cubic,window-post,winning-post") {
		t.Errorf("start-up line does not list the toy kind:\n%s", logs.String())
	}
}

// A kind whose descriptor clashes with a built-in one is refused before
// the daemon listens.
func TestKindClashRefused(t *testing.T) {
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Daemon.Listen = "unix://" + filepath.Join(dir, "cuzk.sock")
	clash := daemon.Kind{Descriptor: proofkind.Descriptor{Kind: 1002, Name: "wpost"}, Planner: toyPlanner{}}
	err := daemon.Run(context.Background(), cfg, daemon.Options{Kinds: []daemon.Kind{clash}, ShutdownTimeout: time.Second})
	if !errors.Is(err, proofkind.ErrConflict) {
		t.Fatalf("clashing descriptor: %v", err)
	}
}
