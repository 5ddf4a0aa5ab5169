package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cuzk-dev/cuzk/bench"
	"github.com/cuzk-dev/cuzk/benchspec"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/config"
	"github.com/cuzk-dev/cuzk/demo"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/oneshot"
	"github.com/cuzk-dev/cuzk/porep/c1gen"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/snap/snapgen"
)

// AddrEnv overrides the default daemon address of the bench commands.
const AddrEnv = "CUZK_ADDR"

// TokenFileEnv is the default of --token-file.
const TokenFileEnv = "CUZK_TOKEN_FILE"

// daemonFlags are the connection flags of the bench commands that talk to
// a daemon.
type daemonFlags struct {
	addr       string
	statusAddr string
	creds      *client.Credentials
}

func addDaemonFlags(fs *flag.FlagSet) *daemonFlags {
	d := &daemonFlags{}
	def := config.DefaultListen
	if v := os.Getenv(AddrEnv); v != "" {
		def = v
	}
	fs.StringVar(&d.addr, "addr", def, "daemon gRPC `address`: unix:///path.sock, host:port or http://host:port; several, comma-separated, or dns:///name:port, share the jobs (default $"+AddrEnv+" or the daemon's default)")
	fs.StringVar(&d.statusAddr, "status-addr", "", "daemon status HTTP `address` (its status_listen) for /status: memory budget, pipeline, per-kind counters")
	d.creds = addCredentialFlags(fs)
	return d
}

// addCredentialFlags adds the flags of a daemon that authenticates its
// callers (docs/security.md).
func addCredentialFlags(fs *flag.FlagSet) *client.Credentials {
	c := &client.Credentials{}
	fs.StringVar(&c.TokenFile, "token-file", os.Getenv(TokenFileEnv), "bearer token `file` (one line: TOKEN or NAME TOKEN) for a daemon with token_file (default $"+TokenFileEnv+")")
	fs.StringVar(&c.CAFile, "tls-ca", "", "CA certificate `file` (PEM) that signed the daemon's certificate; turns TLS on for TCP addresses")
	fs.StringVar(&c.CertFile, "tls-cert", "", "client certificate `file` (PEM) for a daemon with tls_client_ca_file; turns TLS on")
	fs.StringVar(&c.KeyFile, "tls-key", "", "client certificate key `file` (PEM)")
	fs.StringVar(&c.ServerName, "tls-server-name", "", "`name` to check in the daemon's certificate (default: the address's host)")
	return c
}

// dial connects to the daemon, or to each of a comma-separated list (the
// client then balances the jobs over them), with the credential flags;
// the Rust tool's "http://host:port" form is accepted too.
func (d *daemonFlags) dial() (*client.Client, error) {
	addrs := client.SplitAddrs(d.addr)
	if len(addrs) == 0 {
		return nil, fmt.Errorf("--addr is empty")
	}
	for i, a := range addrs {
		addrs[i] = strings.TrimPrefix(a, "http://")
	}
	return client.DialWith(strings.Join(addrs, ","), *d.creds)
}

// reachErr adds to err, when it says no daemon answered, what to check:
// gRPC's own text names the socket or port but not the flag that chose it.
func (d *daemonFlags) reachErr(err error) error {
	if !client.IsUnreachable(err) {
		return err
	}
	return fmt.Errorf("%w\n  no cuzk daemon answers at %s: is it running (systemctl status cuzk), and is --addr its [daemon] listen? (--addr defaults to $%s, else %s)",
		err, d.addr, AddrEnv, config.DefaultListen)
}

// probe asks a single daemon for its status before a run sends work, so
// that an address nobody listens on fails at once, with reachErr's hint,
// rather than as every proof's error. A list of daemons is left to the
// balancer, which skips the ones that do not answer.
func (d *daemonFlags) probe(ctx context.Context, c *client.Client) error {
	if c.Several() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := c.Status(ctx); err != nil {
		return fmt.Errorf("GetStatus: %w", d.reachErr(err))
	}
	return nil
}

func (d *daemonFlags) status() (*bench.StatusClient, error) {
	if d.statusAddr == "" {
		return nil, nil
	}
	sc, err := bench.NewStatusClient(d.statusAddr)
	if err != nil {
		return nil, err
	}
	if err := sc.WithCredentials(*d.creds); err != nil {
		return nil, err
	}
	return sc, nil
}

// proofFlags describe the request of single, batch and stress, with the
// Rust cuzk-bench's names.
type proofFlags struct {
	typ             string
	c1              string
	c1Gen           sectorSizeFlag
	snapGen         sectorSizeFlag
	vanilla         string
	registeredProof int64
	sectorNum       uint64
	minerID         uint64
	partition       uint
	randomness      string
	commROld        string
	commRNew        string
	commDNew        string
	priority        string
	logRows         int
	partitions      int
	testOptions     string
}

func addProofFlags(fs *flag.FlagSet, withType bool) *proofFlags {
	p := &proofFlags{}
	if withType {
		fs.StringVar(&p.typ, "type", "porep-c2", "proof `kind`: porep-c2, snap-update, window-post, winning-post, or test (the daemon's test circuits, with --enable-test-circuits); older names (porep, snap, wpost, winning) work too")
		fs.StringVar(&p.typ, "t", "porep-c2", "shorthand for --type")
	}
	fs.StringVar(&p.c1, "c1", "", "PoRep C1 output `file` (plain, or Curio's envelope); default: seal a 2 KiB test sector in-process")
	p.c1Gen.allowed = filecoin.PublishedSectorSizes()
	fs.Var(&p.c1Gen, "c1-gen", "PoRep: make a C1 of this sector `size` (2KiB … 32GiB, 64GiB) WITHOUT SEALING (cuzk c1 gen) and prove it, as Curio's task sends it: how to measure a machine before sealing anything")
	p.snapGen.allowed = filecoin.PublishedSectorSizes()
	fs.Var(&p.snapGen, "snap-gen", "SnapDeals: make an update of this sector `size` (2KiB … 32GiB, 64GiB) WITHOUT A SECTOR (cuzk snap gen) and prove it, as Curio's Snap task sends it")
	fs.StringVar(&p.vanilla, "vanilla", "", "PoSt/SnapDeals vanilla proofs `file`: JSON array of base64 proofs, or one raw proof; default: seal 2 KiB test sectors in-process")
	fs.Int64Var(&p.registeredProof, "registered-proof", -1, "registered proof id, as in go-state-types abi (default: the C1's; for test, the log2 of the rows)")
	fs.Uint64Var(&p.sectorNum, "sector", 0, "sector number (default: the C1 envelope's, else 1)")
	deprecatedFlag(fs, "sector-num", "sector")
	fs.Uint64Var(&p.minerID, "miner", seal.DefaultMinerID, "miner actor id (verify-seal derives the prover id from it)")
	deprecatedFlag(fs, "miner-id", "miner")
	fs.UintVar(&p.partition, "partition", 0, "WindowPoSt partition index")
	fs.StringVar(&p.randomness, "randomness", "", "PoSt randomness, 64 hex characters (default zeros)")
	fs.StringVar(&p.commROld, "comm-r-old", "", "SnapDeals comm_r_old, 64 hex characters")
	fs.StringVar(&p.commRNew, "comm-r-new", "", "SnapDeals comm_r_new, 64 hex characters")
	fs.StringVar(&p.commDNew, "comm-d-new", "", "SnapDeals comm_d_new, 64 hex characters")
	fs.StringVar(&p.priority, "priority", "", "priority: low, normal, high or critical (default: the daemon's for the kind)")
	fs.IntVar(&p.logRows, "log-rows", 10, "test circuits: log2 of the rows (the daemon needs their parameters)")
	fs.IntVar(&p.partitions, "partitions", 1, "test circuits: partition proofs per request")
	fs.StringVar(&p.testOptions, "test-options", "", "test circuits: options `JSON` (engine/testkind.Options; overrides --partitions)")
	return p
}

func optHex32(name, s string) ([]byte, error) {
	if s == "" {
		return nil, nil
	}
	b, err := parseHex32(s)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", name, err)
	}
	return b[:], nil
}

// flagSpec is spec for the kind -t names (bench single and batch; stress
// takes its kinds from --mix).
func (p *proofFlags) flagSpec(ctx context.Context, progress io.Writer) (*benchspec.Spec, error) {
	t, err := proofkind.Parse(p.typ)
	if err != nil {
		return nil, err
	}
	return p.spec(ctx, t, progress)
}

// spec builds the request of type t from the flags. Sealing the default
// sector is announced on progress.
func (p *proofFlags) spec(ctx context.Context, t proofkind.Kind, progress io.Writer) (*benchspec.Spec, error) {
	prio, err := proofkind.ParsePriority(p.priority)
	if err != nil {
		return nil, err
	}
	if p.snapGen.set && t != proofkind.SnapDeals {
		return nil, fmt.Errorf("--snap-gen makes a SnapDeals update: it goes with -t snap, not %s", t)
	}
	var spec *benchspec.Spec
	switch t {
	case proofkind.PoRep:
		var data []byte
		switch {
		case p.c1 != "" && p.c1Gen.set:
			return nil, fmt.Errorf("--c1 and --c1-gen exclude each other")
		case p.c1 != "":
			if data, err = os.ReadFile(p.c1); err != nil {
				return nil, err
			}
		case p.c1Gen.set:
			if data, err = p.generateC1(ctx, progress); err != nil {
				return nil, err
			}
		default:
			proof := filecoin.StackedDrg2KiBV1_1
			t0 := time.Now()
			o, _, err := seal.Seal(ctx, seal.DefaultInput(proof), seal.DefaultSeed, 0)
			if err != nil {
				return nil, fmt.Errorf("sealing the default 2 KiB sector: %w", err)
			}
			if data, err = o.MarshalJSON(); err != nil {
				return nil, err
			}
			fmt.Fprintf(progress, "no --c1: sealed a 2 KiB test sector (%v, sector %d, miner %d) in %v\n",
				proof, seal.DefaultSector, seal.DefaultMinerID, time.Since(t0).Round(time.Millisecond))
		}
		if spec, err = benchspec.PoRepSpec(data, benchspec.PoRepOptions{SectorNumber: p.sectorNum, MinerID: p.minerID, RegisteredProof: p.registeredProof}); err != nil {
			if p.c1 != "" {
				return nil, fmt.Errorf("%s: %w", p.c1, err)
			}
			return nil, err
		}
	case proofkind.Test:
		opt, err := benchspec.TestOptions(p.testOptions, p.partitions)
		if err != nil {
			return nil, fmt.Errorf("--test-options: %w", err)
		}
		k := p.logRows
		if p.registeredProof >= 0 {
			k = int(p.registeredProof)
		}
		if spec, err = benchspec.TestSpec(k, opt); err != nil {
			return nil, err
		}
	default:
		var proofs [][]byte
		switch {
		case p.snapGen.set && p.vanilla != "":
			return nil, fmt.Errorf("--snap-gen and --vanilla exclude each other")
		case p.snapGen.set:
			if proofs, err = p.generateUpdate(ctx, progress); err != nil {
				return nil, err
			}
		case p.vanilla == "":
			if spec, err = p.fixture(ctx, t, progress); err != nil {
				return nil, err
			}
		default:
			if proofs, err = oneshot.ReadVanillaFile(p.vanilla); err != nil {
				return nil, err
			}
		}
		if spec != nil {
			break
		}
		if p.registeredProof < 0 {
			return nil, fmt.Errorf("--registered-proof is required for %s proofs", t)
		}
		opt := benchspec.VanillaOptions{RegisteredProof: uint64(p.registeredProof), SectorNumber: p.sectorNum, MinerID: p.minerID, Partition: uint32(p.partition)}
		for _, f := range []struct {
			name, val string
			dst       *[]byte
		}{{"randomness", p.randomness, &opt.Randomness}, {"comm-r-old", p.commROld, &opt.CommROld}, {"comm-r-new", p.commRNew, &opt.CommRNew}, {"comm-d-new", p.commDNew, &opt.CommDNew}} {
			if *f.dst, err = optHex32(f.name, f.val); err != nil {
				return nil, err
			}
		}
		spec = benchspec.VanillaSpec(t, proofs, opt)
	}
	spec.SetPriority(prio)
	return spec, nil
}

// generateC1 makes the --c1-gen input: a C1 of that size made without
// sealing for miner --miner and sector --sector (default 1), in Curio's
// envelope as its PoRep task sends it.
func (p *proofFlags) generateC1(ctx context.Context, progress io.Writer) ([]byte, error) {
	proof, err := sealProofFor(p.c1Gen, p.registeredProof)
	if err != nil {
		return nil, fmt.Errorf("--c1-gen: %w", err)
	}
	gp := c1gen.DefaultParams(proof)
	gp.ProverID = filecoin.ProverID(p.minerID)
	if p.sectorNum != 0 {
		gp.Sector = p.sectorNum
	}
	t0 := time.Now()
	r, err := c1gen.Generate(ctx, gp, 0)
	if err != nil {
		return nil, fmt.Errorf("--c1-gen: %w", err)
	}
	fmt.Fprintf(progress, "--c1-gen: made a %v C1 WITHOUT SEALING (%v, sector %d, miner %d, comm_r %x) in %v\n",
		proof.SectorSize(), proof, gp.Sector, p.minerID, r.Output.CommR, time.Since(t0).Round(time.Millisecond))
	return r.WrappedJSON()
}

// generateUpdate makes the --snap-gen input: an update of that size made
// without a sector for miner --miner and sector --sector (default 1); its
// registered proof and commitments become the flags' values (flags given
// as well must agree).
func (p *proofFlags) generateUpdate(ctx context.Context, progress io.Writer) ([][]byte, error) {
	up, err := filecoin.UpdateProofForSize(p.snapGen.v)
	if err != nil {
		return nil, fmt.Errorf("--snap-gen: %w", err)
	}
	if p.registeredProof >= 0 && uint64(p.registeredProof) != uint64(up) {
		return nil, fmt.Errorf("--registered-proof %d disagrees with --snap-gen %v (%d)", p.registeredProof, p.snapGen.v, int64(up))
	}
	gp := snapgen.DefaultParams(up)
	gp.MinerID = p.minerID
	if p.sectorNum != 0 {
		gp.Sector = p.sectorNum
	}
	t0 := time.Now()
	r, err := snapgen.Generate(ctx, gp, 0)
	if err != nil {
		return nil, fmt.Errorf("--snap-gen: %w", err)
	}
	u := r.UpdateFile()
	for _, f := range []struct {
		name string
		dst  *string
		v    string
	}{{"comm-r-old", &p.commROld, u.CommROld}, {"comm-r-new", &p.commRNew, u.CommRNew}, {"comm-d-new", &p.commDNew, u.CommDNew}} {
		if *f.dst != "" && !strings.EqualFold(strings.TrimPrefix(*f.dst, "0x"), f.v) {
			return nil, fmt.Errorf("--%s %s disagrees with the --snap-gen update's (%s)", f.name, *f.dst, f.v)
		}
		*f.dst = f.v
	}
	p.registeredProof = int64(up)
	fmt.Fprintf(progress, "--snap-gen: made a %v update WITHOUT A SECTOR (%v, sector %d, miner %d, comm_r_new %s) in %v\n",
		p.snapGen.v, up, gp.Sector, gp.MinerID, u.CommRNew, time.Since(t0).Round(time.Millisecond))
	return r.VanillaProofs, nil
}

// fixture builds a PoSt or SnapDeals request without --vanilla: 2 KiB CC
// sectors sealed in-process (as many as the proof takes), their vanilla
// proofs and the verifier's public inputs, announced on progress.
func (p *proofFlags) fixture(ctx context.Context, kind proofkind.Kind, progress io.Writer) (*benchspec.Spec, error) {
	if p.partition != 0 {
		return nil, fmt.Errorf("--partition needs --vanilla: the built-in %s request is partition 0", kind)
	}
	t0 := time.Now()
	f, err := demo.NewFixture(ctx, kind, filecoin.SectorSize2KiB, p.minerID, 0)
	if err != nil {
		return nil, fmt.Errorf("sealing the default 2 KiB sectors: %w", err)
	}
	if p.registeredProof >= 0 && uint64(p.registeredProof) != f.Request.RegisteredProof {
		return nil, fmt.Errorf("--registered-proof %d needs --vanilla: the built-in %s request is registered proof %d", p.registeredProof, kind, f.Request.RegisteredProof)
	}
	fmt.Fprintf(progress, "no --vanilla: sealed 2 KiB test sector(s) and made the vanilla proofs in %v: %s\n", time.Since(t0).Round(time.Millisecond), f.What)
	return benchspec.FixtureSpec(f), nil
}

// isTerminal reports whether w is a terminal (progress bars are drawn in
// place only there).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// daemonBrief is a one-line summary of the daemon's queues for progress
// lines, saying first when the daemon drains ("" when it cannot be read).
func daemonBrief(ctx context.Context, c *client.Client) string {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	st, err := c.Status(ctx)
	if err != nil {
		return ""
	}
	var parts []string
	for _, q := range st.GetQueues() {
		if q.GetPending()+q.GetInProgress() > 0 {
			parts = append(parts, fmt.Sprintf("%s %d queued/%d running", q.GetProofKind(), q.GetPending(), q.GetInProgress()))
		}
	}
	for _, s := range st.GetLoadedSrs() {
		parts = append(parts, fmt.Sprintf("params %s %s", s.GetCircuitId(), s.GetTier()))
	}
	prefix := "daemon"
	if st.GetDraining() {
		// Said first: the daemon takes no new work and will be gone soon.
		prefix = "daemon DRAINING (shutting down: finishing its jobs, refusing new ones)"
	}
	if len(parts) == 0 {
		return prefix + " idle"
	}
	return prefix + ": " + strings.Join(parts, ", ")
}

// secs formats a duration as seconds with millisecond precision, the unit
// of every bench table (daemon durations are whole milliseconds).
func secs(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// printJSON writes v indented.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
