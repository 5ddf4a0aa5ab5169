package server_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/porepkind"
	"github.com/cuzk-dev/cuzk/engine/postkind"
	"github.com/cuzk-dev/cuzk/engine/snapkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/post"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/sectordir"
	"github.com/cuzk-dev/cuzk/server"
	"github.com/cuzk-dev/cuzk/snap"
	"github.com/cuzk-dev/cuzk/srs"
	"github.com/cuzk-dev/cuzk/testparams"
)

// kindsDaemon serves every Filecoin kind over a unix socket with
// parameters from dir and returns Curio's generated client, dialled as
// Curio's lib/cuzk dials it (insecure, 256 MiB messages both ways).
func kindsDaemon(t *testing.T, dir string) cuzkv1.ProvingEngineClient {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	eng := testkit.NewEngine(t, testkit.EngineOptions{
		Kinds: []engine.Kind{
			engine.Builtin(proofkind.PoRep, &porepkind.Planner{}),
			engine.Builtin(proofkind.WindowPoSt, postkind.Window()),
			engine.Builtin(proofkind.WinningPoSt, postkind.Winning()),
			engine.Builtin(proofkind.SnapDeals, &snapkind.Planner{}),
		},
		Locator: srs.FilecoinLocator(dir), Budget: 8 << 30, TrustParams: true, Log: log,
	}).Engine
	srv := server.New(eng, server.WithLogger(log))
	addr := serve(t, srv, "unix")
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(256<<20), grpc.MaxCallSendMsgSize(256<<20)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return cuzkv1.NewProvingEngineClient(conn)
}

// A full 32 GiB WindowPoSt partition, 2,349 sectors of 24,960 bytes
// (about 58.6 MB), travels within the message limits of Curio's client and
// our server, is decoded whole and checked natively: the one real sector
// (Curio's, from rust-fil-proofs) verifies, the copies under other sector
// ids do not (their challenges differ), and the answer is INVALID_ARGUMENT
// naming the first of them, not RESOURCE_EXHAUSTED; the daemon keeps
// serving.
func TestWindowPoStPartitionMessageSize(t *testing.T) {
	testenv.Short(t, "a 58.6 MB request")
	one, err := os.ReadFile(filepath.Join(golden.RepoTestdata(), "curio-32gib-window-post", "post.vproof"))
	if err != nil {
		t.Fatal(err)
	}
	p := filecoin.StackedDrgWindow32GiBV1 // the proof Curio made (postpub.json: PoStProof 8), zero randomness
	n := p.SectorCount()
	entries := make([][]byte, n)
	entries[0] = one
	for i := 1; i < n; i++ {
		e := bytes.Clone(one)
		binary.LittleEndian.PutUint64(e, uint64(i+1)) // sector_id
		entries[i] = e
	}
	req := &cuzkv1.SubmitProofRequest{RequestId: "wdpost-1000-0-big", ProofKind: cuzkv1.ProofKind_WINDOW_POST_PARTITION,
		Priority: cuzkv1.Priority_HIGH, SectorSize: uint64(p.SectorSize()), RegisteredProof: uint64(p), MinerId: 1000,
		Randomness: make([]byte, 32), VanillaProofs: entries}
	size := proto.Size(&cuzkv1.ProveRequest{Submit: req})
	if size < 58_000_000 || size > cuzkv1.MaxMessageSize {
		t.Fatalf("request is %d bytes", size)
	}
	t.Logf("request: %d sectors, %d bytes on the wire", n, size)
	c := kindsDaemon(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_, err = c.Prove(ctx, &cuzkv1.ProveRequest{Submit: req})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "sectors[1] (sector 2)") || !strings.Contains(err.Error(), "challenged leaf mismatch") {
		t.Fatalf("got %v", err)
	}
	t.Log(err)
	if _, err := c.GetStatus(ctx, &cuzkv1.GetStatusRequest{}); err != nil {
		t.Fatalf("daemon stopped serving: %v", err)
	}
}

// ensureParams generates (once, into the shared cache) the test parameters
// of circuits.
func ensureParams(t *testing.T, circuits ...filecoin.CircuitID) string {
	t.Helper()
	return filepath.Dir(testkit.FilecoinParams(t, circuits...)[0].Params)
}

func readVK(t *testing.T, dir string, c filecoin.CircuitID) *groth16.VerifyingKey {
	t.Helper()
	f, err := testparams.PathsForCircuit(c, dir)
	if err != nil {
		t.Fatal(err)
	}
	vk, err := groth16.ReadVerifyingKeyFile(f.VK)
	if err != nil {
		t.Fatal(err)
	}
	return vk
}

func prove(t *testing.T, c cuzkv1.ProvingEngineClient, req *cuzkv1.SubmitProofRequest) *cuzkv1.AwaitProofResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	start := time.Now()
	resp, err := c.Prove(ctx, &cuzkv1.ProveRequest{Submit: req})
	if err != nil {
		t.Fatalf("%s: %v", req.GetRequestId(), err)
	}
	res := resp.GetResult()
	if res.GetStatus() != cuzkv1.AwaitProofResponse_COMPLETED {
		t.Fatalf("%s: %v %s", req.GetRequestId(), res.GetStatus(), res.GetErrorMessage())
	}
	t.Logf("%s: wall %v; queue %d ms, srs_load %d ms, synthesis %d ms, prove %d ms, total %d ms", req.GetRequestId(), time.Since(start).Round(time.Millisecond),
		res.GetQueueWaitMs(), res.GetSrsLoadMs(), res.GetSynthesisMs(), res.GetGpuComputeMs(), res.GetTotalMs())
	return res
}

// TestPoStAndSnapOverGRPC proves 2 KiB WindowPoSt, WinningPoSt and
// SnapDeals through the daemon exactly as Curio calls it (Prove, its
// request ids, priorities and fields) and verifies every proof with
// groth16 against the VK and public inputs computed here from public
// values only (the sealed sectors' comm_r, the randomness, the update's
// commitments). A resubmitted request id returns the same proof; bad
// requests are refused with INVALID_ARGUMENT naming the field, and the
// daemon keeps serving.
func TestPoStAndSnapOverGRPC(t *testing.T) {
	testenv.E2E(t, "2 KiB PoSt and SnapDeals test parameters (the update's take minutes to generate once) and five proofs")
	dir := ensureParams(t, filecoin.CircuitWindowPoSt2K, filecoin.CircuitWinningPoSt2K, filecoin.CircuitUpdate2K)
	ctx := context.Background()
	const miner = 1000
	sectors := testkit.CCSectors(t, filecoin.StackedDrg2KiBV1_1, 1, 3)
	c := kindsDaemon(t, dir)
	rnd := testkit.Randomness(42)
	// verified fails on a verifier's error and returns its verdict.
	verified := func(ok bool, err error) bool {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}

	// A bad request first: the daemon refuses it and serves the rest.
	winning := filecoin.StackedDrgWinning2KiBV1
	wv := testkit.PoStVanilla(t, winning, rnd, sectors[:1], 0)
	winReq := &cuzkv1.SubmitProofRequest{RequestId: "winpost-1000-0a0b", ProofKind: cuzkv1.ProofKind_WINNING_POST, Priority: cuzkv1.Priority_CRITICAL,
		SectorSize: 2048, RegisteredProof: uint64(winning), MinerId: miner, Randomness: rnd[:], VanillaProofs: wv}
	bad := proto.Clone(winReq).(*cuzkv1.SubmitProofRequest)
	bad.RequestId, bad.Randomness = "winpost-bad", rnd[:31]
	if _, err := c.Prove(ctx, &cuzkv1.ProveRequest{Submit: bad}); status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "randomness is 31 bytes") {
		t.Fatalf("short randomness: %v", err)
	}

	// WinningPoSt: the verifier's inputs are the sector repeated 66 times.
	vk := readVK(t, dir, filecoin.CircuitWinningPoSt2K)
	winPub := post.Public{Proof: winning, Randomness: rnd, Sectors: post.PublicSectors(sectors[:1])}
	res := prove(t, c, winReq)
	if !verified(post.VerifyProof(vk, res.GetProof(), winPub)) {
		t.Fatal("WinningPoSt proof does not verify")
	}
	otherPub := winPub
	otherPub.Sectors = post.PublicSectors(sectors[1:2])
	if verified(post.VerifyProof(vk, res.GetProof(), otherPub)) {
		t.Fatal("WinningPoSt proof verifies for another sector's comm_r")
	}
	// The same request id again (Curio's retry) is the same job: same
	// proof, nothing proved again; concurrent retries share it too.
	var wg sync.WaitGroup
	again := make([]*cuzkv1.AwaitProofResponse, 2)
	for i := range again {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Prove(ctx, &cuzkv1.ProveRequest{Submit: winReq})
			if err != nil {
				t.Error(err)
				return
			}
			again[i] = resp.GetResult()
		}()
	}
	wg.Wait()
	for _, a := range again {
		if a == nil || a.GetJobId() != res.GetJobId() || !bytes.Equal(a.GetProof(), res.GetProof()) {
			t.Fatalf("retry of %s: %v", winReq.GetRequestId(), a)
		}
	}
	// A new WinningPoSt with the parameters resident: the latency that
	// matters for block production.
	winReq2 := proto.Clone(winReq).(*cuzkv1.SubmitProofRequest)
	winReq2.RequestId = "winpost-1000-0c0d"
	res2 := prove(t, c, winReq2)
	if res2.GetSrsLoadMs() != 0 || !verified(post.VerifyProof(vk, res2.GetProof(), winPub)) {
		t.Fatalf("second WinningPoSt: srs_load %d ms, or it does not verify", res2.GetSrsLoadMs())
	}

	// WindowPoSt: a full partition (2 sectors) as partition 0, then the
	// third sector alone (padded) as partition 1, both V1_2, and a V1
	// partition 1, whose challenges depend on the partition index.
	vk = readVK(t, dir, filecoin.CircuitWindowPoSt2K)
	for _, tc := range []struct {
		p       filecoin.RegisteredPoStProof
		k       int
		sectors []*sectordir.Sector
	}{
		{filecoin.StackedDrgWindow2KiBV1_2, 0, sectors[:2]},
		{filecoin.StackedDrgWindow2KiBV1_2, 1, sectors[2:]},
		{filecoin.StackedDrgWindow2KiBV1, 1, sectors[:2]},
	} {
		v := testkit.PoStVanilla(t, tc.p, rnd, tc.sectors, tc.k)
		req := &cuzkv1.SubmitProofRequest{RequestId: "wdpost-1000-" + string(rune('0'+tc.k)) + "-" + tc.p.String(), ProofKind: cuzkv1.ProofKind_WINDOW_POST_PARTITION,
			Priority: cuzkv1.Priority_HIGH, SectorSize: 2048, RegisteredProof: uint64(tc.p), MinerId: miner, Randomness: rnd[:],
			PartitionIndex: uint32(tc.k), VanillaProofs: v}
		res := prove(t, c, req)
		pub := post.Public{Proof: tc.p, Randomness: rnd, Sectors: post.PublicSectors(tc.sectors), Partition: tc.k}
		if !verified(post.VerifyProof(vk, res.GetProof(), pub)) {
			t.Fatalf("%v partition %d does not verify", tc.p, tc.k)
		}
		pub.Sectors[0].CommR.SetUint64(7)
		if verified(post.VerifyProof(vk, res.GetProof(), pub)) {
			t.Fatalf("%v partition %d verifies with comm_r changed", tc.p, tc.k)
		}
	}

	// SnapDeals: the CC sector 3 updated; the proof verifies against the
	// sealed comm_r as comm_r_old and the update's commitments.
	up := filecoin.StackedDrg2KiBUpdateV1
	u := testkit.SnapUpdate(t, up, sectors[2], 5)
	snapReq := &cuzkv1.SubmitProofRequest{RequestId: "snap-1000-3", ProofKind: cuzkv1.ProofKind_SNAP_DEALS_UPDATE, Priority: cuzkv1.Priority_NORMAL,
		RegisteredProof: uint64(up), SectorNumber: 3, MinerId: miner, VanillaProofs: u.VanillaProofs}
	w := snapkind.UpdateRequest(u)
	snapReq.CommROld, snapReq.CommRNew, snapReq.CommDNew = w.CommROld, w.CommRNew, w.CommDNew
	badSnap := proto.Clone(snapReq).(*cuzkv1.SubmitProofRequest)
	badSnap.RequestId = "snap-1000-3-bad"
	badSnap.CommRNew[0] ^= 1
	if _, err := c.Prove(ctx, &cuzkv1.ProveRequest{Submit: badSnap}); status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "comm_r_new does not match the vanilla proofs") {
		t.Fatalf("wrong comm_r_new: %v", err)
	}
	res = prove(t, c, snapReq)
	vk = readVK(t, dir, filecoin.CircuitUpdate2K)
	snapPub := snap.Public{Proof: up, CommROld: sectors[2].CommR, CommDNew: u.Sector.CommD, CommRNew: u.Sector.CommR}
	if !verified(snap.VerifyProof(vk, res.GetProof(), snapPub)) {
		t.Fatal("SnapDeals proof does not verify")
	}
	snapPub.CommROld = sectors[0].CommR
	if verified(snap.VerifyProof(vk, res.GetProof(), snapPub)) {
		t.Fatal("SnapDeals proof verifies for another comm_r_old")
	}
	st, err := c.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if st.GetTotalProofsCompleted() < 6 {
		t.Fatalf("status: %v", st)
	}
}
