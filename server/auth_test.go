package server_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/server"
	"github.com/cuzk-dev/cuzk/srs"
)

// Tokens used by the tests (each at least tokenfile.MinTokenLen long).
const (
	tokAlice = "alice-0123456789abcdef0123456789abcdef"
	tokBob   = "bob-0123456789abcdef0123456789abcdef0"
	tokEve   = "eve-0123456789abcdef0123456789abcdef0"
)

// secured is a daemon started with authentication.
type secured struct {
	srv    *server.Server
	eng    *engine.Engine
	params *srs.Manager
	addr   string // gRPC address to dial
	http   string // status listener base URL
}

// startSecured serves the test kind with auth on network ("tcp": loopback
// TCP, "unix": a socket), with a status listener on loopback TCP.
func startSecured(t *testing.T, network string, sec server.Security, opts ...server.Option) *secured {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	auth, err := server.NewAuth(sec, log)
	if err != nil {
		t.Fatal(err)
	}
	te := testkit.NewEngine(t, testkit.EngineOptions{Locator: srs.Chain(srs.FilecoinLocator(paramDir), testkind.Locator(paramDir)), Log: log})
	eng, params := te.Engine, te.Params
	srv := server.New(eng, append([]server.Option{server.WithLogger(log), server.WithAuth(auth)}, opts...)...)
	addr := serve(t, srv, network)
	hl := serveHTTP(t, srv)
	scheme := "http://"
	if auth.TLS() {
		scheme = "https://"
	}
	return &secured{srv: srv, eng: eng, params: params, addr: addr, http: scheme + hl.Addr().String()}
}

func (d *secured) dial(t *testing.T, creds client.Credentials) *client.Client {
	t.Helper()
	c, err := client.DialWith(d.addr, creds)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// assertNoJob fails unless the engine never saw a job and holds no
// parameters: the refused calls ran nothing.
func (d *secured) assertNoJob(t *testing.T) {
	t.Helper()
	st := d.eng.Status()
	c := st.Counters
	if len(st.Jobs) != 0 || len(st.RecentJobs) != 0 || c.Completed+c.Failed+c.Cancelled+c.Attached != 0 || c.Retained != 0 {
		t.Fatalf("the engine saw a job: jobs %v, recent %v, counters %+v", st.Jobs, st.RecentJobs, c)
	}
	if hot := d.params.HotBytes(); hot != 0 {
		t.Fatalf("parameters loaded (%d bytes) by refused calls", hot)
	}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// everyRPC calls each RPC of the daemon (and health, reflection) once and
// returns the errors by name. Preload names a real circuit so that only
// authentication can stop it.
func everyRPC(c *client.Client) map[string]error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	errs := map[string]error{}
	_, errs["Prove"] = c.RPC().Prove(ctx, &cuzkv1.ProveRequest{Submit: client.TestRequest("x", 10, nil)})
	_, errs["SubmitProof"] = c.Submit(ctx, client.TestRequest("y", 10, nil))
	_, errs["AwaitProof"] = c.RPC().AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "y"})
	_, errs["CancelProof"] = c.Cancel(ctx, "y")
	_, errs["GetStatus"] = c.Status(ctx)
	_, errs["GetMetrics"] = c.Metrics(ctx)
	_, _, errs["PreloadSRS"] = c.Preload(ctx, "test-k10")
	_, _, errs["EvictSRS"] = c.Evict(ctx, "test-k10")
	_, errs["health"] = healthpb.NewHealthClient(c.Conn()).Check(ctx, &healthpb.HealthCheckRequest{})
	rs, err := reflectionpb.NewServerReflectionClient(c.Conn()).ServerReflectionInfo(ctx)
	if err == nil {
		_ = rs.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}})
		_, err = rs.Recv()
	}
	errs["reflection"] = err
	return errs
}

func TestTokenAuth(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			dir := t.TempDir()
			tokens := writeFile(t, dir, "tokens", "# callers\nalice "+tokAlice+"\n")
			d := startSecured(t, network, server.Security{TokenFile: tokens})
			for name, creds := range map[string]client.Credentials{
				"no token":    {},
				"wrong token": {TokenFile: writeFile(t, dir, "eve", tokEve)},
			} {
				for rpc, err := range everyRPC(d.dial(t, creds)) {
					if code(err) != codes.Unauthenticated {
						t.Errorf("%s: %s = %v, want Unauthenticated", name, rpc, err)
					}
				}
			}
			d.assertNoJob(t)
			// A wrong scheme and a bare token are refused too.
			for _, hdr := range []string{"Basic " + tokAlice, tokAlice} {
				c := d.dial(t, client.Credentials{})
				ctx := metadataCtx(hdr)
				if _, err := c.Status(ctx); code(err) != codes.Unauthenticated || !strings.Contains(err.Error(), "Bearer") {
					t.Errorf("authorization %.12q...: %v", hdr, err)
				}
			}

			good := d.dial(t, client.Credentials{TokenFile: writeFile(t, dir, "alice", "alice "+tokAlice+"\n")})
			res, err := good.Prove(context.Background(), client.TestRequest("first", 10, nil))
			if err != nil {
				t.Fatal(err)
			}
			verify(t, 10, res.GetProof(), 1)
			if res.GetJobId() != "first" {
				t.Errorf("job id %q, want the request id", res.GetJobId())
			}
			for rpc, err := range everyRPC(good) {
				if code(err) == codes.Unauthenticated {
					t.Errorf("with the right token %s = %v", rpc, err)
				}
			}
		})
	}
}

func metadataCtx(authorization string) context.Context {
	return metadata.AppendToOutgoingContext(context.Background(), "authorization", authorization)
}

// TestTokenFileReload: a rewritten token file takes effect without a
// restart; an invalid rewrite keeps the tokens read before.
func TestTokenFileReload(t *testing.T) {
	dir := t.TempDir()
	tokens := writeFile(t, dir, "tokens", tokAlice+"\n")
	d := startSecured(t, "tcp", server.Security{TokenFile: tokens, Recheck: time.Millisecond})
	alice := d.dial(t, client.Credentials{TokenFile: writeFile(t, dir, "a", tokAlice)})
	bob := d.dial(t, client.Credentials{TokenFile: writeFile(t, dir, "b", tokBob)})
	ctx := context.Background()
	if _, err := alice.Status(ctx); err != nil {
		t.Fatal(err)
	}
	replace := func(content string) {
		t.Helper()
		tmp := writeFile(t, dir, "tokens.new", content)
		if err := os.Rename(tmp, tokens); err != nil {
			t.Fatal(err)
		}
	}
	replace(tokBob + "\n")
	waitFor(t, "bob's token accepted", func() bool { _, err := bob.Status(ctx); return err == nil })
	if _, err := alice.Status(ctx); code(err) != codes.Unauthenticated {
		t.Fatalf("alice after rotation: %v, want Unauthenticated", err)
	}
	replace("short\n") // invalid: bob's token stays valid
	time.Sleep(5 * time.Millisecond)
	if _, err := bob.Status(ctx); err != nil {
		t.Fatalf("after an invalid rewrite the old token must stay valid: %v", err)
	}
}

func TestTokenFileRefusedAtStart(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ content, want string }{
		{"", "no token"},
		{"  \n# nothing\n", "no token"},
		{"0123456789", "token is 10 characters, want at least 32"},
		// Long enough, but far from 128 bits (issue 34 item 6).
		{strings.Repeat("a", 32), "(one character repeated), want at least 128: make one with `head -c 32 /dev/urandom | base64`"},
		{strings.Repeat("0123456789abcdef", 2), "a unit of 16 characters repeated"},
		{"curio " + strings.Repeat("a", 31) + "b", "too few different characters"},
	} {
		_, err := server.NewAuth(server.Security{TokenFile: writeFile(t, dir, "t", tc.content)}, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("token file %q: %v, want %q", tc.content, err, tc.want)
		}
	}
	// A file others may write (anyone who can write it can add a token),
	// or that is not a regular file, is refused; a FIFO at once.
	for _, mode := range []os.FileMode{0o620, 0o602, 0o666} {
		p := writeFile(t, dir, "w", tokAlice)
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		if _, err := server.NewAuth(server.Security{TokenFile: p}, nil); err == nil || !strings.Contains(err.Error(), "writable by other users") {
			t.Errorf("token file of mode %v: %v, want a refusal", mode, err)
		}
	}
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, dir} {
		done := make(chan error, 1)
		go func() { _, err := server.NewAuth(server.Security{TokenFile: p}, nil); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("token file %s: %v, want a refusal", p, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("a FIFO token file: NewAuth still blocked after 5 s")
		}
	}
	if _, err := server.NewAuth(server.Security{TokenFile: filepath.Join(dir, "missing")}, nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing token file: %v", err)
	}
}

// issued is a certificate and its key as PEM files, generated by the test
// into a temporary directory (no key is ever committed).
type issued struct{ cert, key string }

func newCA(t *testing.T, dir, name string) (*x509.Certificate, *ecdsa.PrivateKey, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return cert, key, writeFile(t, dir, name+".crt", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
}

// issue makes a certificate for cn signed by ca (self-signed when ca is
// nil), for server or client use.
func issue(t *testing.T, dir, cn string, ca *x509.Certificate, caKey *ecdsa.PrivateKey, server bool) issued {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: cn, Organization: []string{"cuzk test"}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.DNSNames = []string{"localhost"}
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
	}
	parent, signer := tmpl, key
	if ca != nil {
		parent, signer = ca, caKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return issued{
		cert: writeFile(t, dir, cn+".crt", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))),
		key:  writeFile(t, dir, cn+".key", string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}))),
	}
}

func TestMutualTLS(t *testing.T) {
	dir := t.TempDir()
	ca, caKey, caFile := newCA(t, dir, "cuzk-ca")
	other, otherKey, otherCAFile := newCA(t, dir, "other-ca")
	srvCert := issue(t, dir, "cuzk-daemon", ca, caKey, true)
	curio := issue(t, dir, "curio-1", ca, caKey, false)
	curio2 := issue(t, dir, "curio-2", ca, caKey, false)
	foreign := issue(t, dir, "mallory", other, otherKey, false)
	self := issue(t, dir, "selfie", nil, nil, false)
	serverAsClient := issue(t, dir, "server-usage-only", ca, caKey, true)

	d := startSecured(t, "tcp", server.Security{CertFile: srvCert.cert, KeyFile: srvCert.key, ClientCAFile: caFile})
	for name, tc := range map[string]struct {
		creds client.Credentials
		want  codes.Code
		msg   string
	}{
		// The handshake refuses these, before the daemon reads a request
		// (issue 34 item 1): the client sees a TLS error, whose wording
		// depends on when its write meets the closed connection.
		"no client certificate":       {client.Credentials{CAFile: caFile}, codes.Unavailable, ""},
		"certificate of another CA":   {client.Credentials{CAFile: caFile, CertFile: foreign.cert, KeyFile: foreign.key}, codes.Unavailable, ""},
		"self-signed certificate":     {client.Credentials{CAFile: caFile, CertFile: self.cert, KeyFile: self.key}, codes.Unavailable, ""},
		"certificate not for clients": {client.Credentials{CAFile: caFile, CertFile: serverAsClient.cert, KeyFile: serverAsClient.key}, codes.Unavailable, ""},
		// The client refuses a daemon its CA did not sign: the call never
		// reaches the daemon, so the code is the client's own.
		"client trusts another CA": {client.Credentials{CAFile: otherCAFile, CertFile: curio.cert, KeyFile: curio.key}, codes.Unavailable, "certificate signed by unknown authority"},
		"plain text to TLS":        {client.Credentials{}, codes.Unavailable, ""},
	} {
		errs := everyRPC(d.dial(t, tc.creds))
		for rpc, err := range errs {
			if code(err) != tc.want || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("%s: %s = %v, want %v with %q", name, rpc, err, tc.want, tc.msg)
			}
		}
	}
	d.assertNoJob(t)

	c := d.dial(t, client.Credentials{CAFile: caFile, CertFile: curio.cert, KeyFile: curio.key, ServerName: "localhost"})
	res, err := c.Prove(context.Background(), client.TestRequest("sector-1", 10, nil))
	if err != nil {
		t.Fatal(err)
	}
	verify(t, 10, res.GetProof(), 1)
	// The certificate's subject names the caller: another certificate of
	// the same CA is another caller and cannot see curio-1's job.
	c2 := d.dial(t, client.Credentials{CAFile: caFile, CertFile: curio2.cert, KeyFile: curio2.key})
	if _, err := c2.RPC().AwaitProof(context.Background(), &cuzkv1.AwaitProofRequest{JobId: "sector-1"}); code(err) != codes.NotFound {
		t.Errorf("curio-2 awaiting curio-1's job: %v, want NotFound", err)
	}
	if r, err := c.Await(context.Background(), "sector-1", 0); err != nil || r.GetJobId() != "sector-1" {
		t.Errorf("curio-1 awaiting its own job: %v %v", r, err)
	}

	// The status listener speaks TLS and wants a trusted client certificate.
	get := func(creds client.Credentials) (int, error) {
		cfg, err := creds.TLSConfig()
		if err != nil {
			t.Fatal(err)
		}
		hc := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 10 * time.Second}
		resp, err := hc.Get(d.http + "/status")
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	if sc, err := get(client.Credentials{CAFile: caFile, CertFile: curio.cert, KeyFile: curio.key}); err != nil || sc != http.StatusOK {
		t.Errorf("status with a client certificate: %d %v", sc, err)
	}
	if sc, err := get(client.Credentials{CAFile: caFile, CertFile: foreign.cert, KeyFile: foreign.key}); err == nil {
		t.Errorf("status with a foreign client certificate: %d, want the handshake refused", sc)
	}
}

// TestUnixSocketWithoutCredentials: with TLS and client certificates
// configured, a unix socket stays plain and needs no certificate (its mode
// guards it); the token, when configured, is still required there.
func TestUnixSocketWithoutCredentials(t *testing.T) {
	dir := t.TempDir()
	ca, caKey, caFile := newCA(t, dir, "cuzk-ca")
	srvCert := issue(t, dir, "cuzk-daemon", ca, caKey, true)
	d := startSecured(t, "unix", server.Security{CertFile: srvCert.cert, KeyFile: srvCert.key, ClientCAFile: caFile})
	st, err := os.Stat(strings.TrimPrefix(d.addr, "unix://"))
	if err != nil || st.Mode().Perm() != server.SocketMode {
		t.Fatalf("socket mode %v (%v), want %v", st.Mode().Perm(), err, os.FileMode(server.SocketMode))
	}
	if _, err := d.dial(t, client.Credentials{}).Status(context.Background()); err != nil {
		t.Fatalf("plain unix socket: %v", err)
	}
	// DialWith ignores TLS settings for a unix socket, as the daemon does.
	if _, err := d.dial(t, client.Credentials{CAFile: caFile}).Status(context.Background()); err != nil {
		t.Fatalf("unix socket with TLS credentials: %v", err)
	}
}

func TestStatusListenerToken(t *testing.T) {
	dir := t.TempDir()
	d := startSecured(t, "unix", server.Security{TokenFile: writeFile(t, dir, "tokens", tokAlice)}, server.WithPprof(true))
	do := func(method, path, authorization string, cookie *http.Cookie, accept string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, d.http+path, nil)
		if authorization != "" {
			req.Header.Set("Authorization", authorization)
		}
		if cookie != nil {
			req.AddCookie(cookie)
		}
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	for _, path := range []string{"/status", "/metrics", "/debug/pprof/", "/debug/pprof/cmdline"} {
		if r := do("GET", path, "", nil, ""); r.StatusCode != http.StatusUnauthorized || r.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("GET %s without token: %d %v", path, r.StatusCode, r.Header)
		}
		if r := do("GET", path, "Bearer "+tokEve, nil, ""); r.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s with a wrong token: %d", path, r.StatusCode)
		}
		if r := do("GET", path, "Bearer "+tokAlice, nil, ""); r.StatusCode != http.StatusOK {
			t.Errorf("GET %s with the token: %d", path, r.StatusCode)
		}
	}
	// A browser without credentials gets the login form.
	if r := do("GET", "/status", "", nil, "text/html"); r.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
		t.Errorf("browser without token: %d %q", r.StatusCode, r.Header.Get("Content-Type"))
	}
	// /login with a wrong token sets no cookie; with the right one it does.
	if r := login(t, d.http, tokEve, d.http); r.StatusCode != http.StatusUnauthorized || len(r.Cookies()) != 0 {
		t.Errorf("login with a wrong token: %d, cookies %v", r.StatusCode, r.Cookies())
	}
	r := login(t, d.http, tokAlice, d.http)
	if r.StatusCode != http.StatusSeeOther || len(r.Cookies()) != 1 {
		t.Fatalf("login: %d, cookies %v", r.StatusCode, r.Cookies())
	}
	ck := r.Cookies()[0]
	if ck.Name != server.SessionCookie || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode {
		t.Errorf("cookie %+v, want HttpOnly, SameSite=Strict", ck)
	}
	if r := do("GET", "/status", "", ck, ""); r.StatusCode != http.StatusOK {
		t.Errorf("GET /status with the login cookie: %d", r.StatusCode)
	}
	if r := do("GET", "/status", "", &http.Cookie{Name: server.SessionCookie, Value: tokAlice}, ""); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /status with the token as the cookie: %d", r.StatusCode)
	}
	// The query string is never a credential.
	if r := do("GET", "/status?token="+tokAlice, "", nil, ""); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /status?token=: %d, want 401", r.StatusCode)
	}
}

var noRedirect = &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// login posts tok to base's /login form as a browser on the page origin
// would (origin "": neither Origin nor Referer).
func login(t *testing.T, base, tok, origin string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/login", strings.NewReader(url.Values{"token": {tok}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// TestPreloadEvictCircuitIDsOnly: anything not shaped like a circuit id is
// refused with InvalidArgument before the engine sees it, and nothing is
// loaded.
func TestPreloadEvictCircuitIDsOnly(t *testing.T) {
	d := startDaemon(t, "unix", engine.Config{}, 0)
	ctx := context.Background()
	for _, id := range []string{
		"", "/etc/passwd", "../test-k10", "test-k10/../../x", filepath.Join(paramDir, testkind.FileBase(10)+".params"),
		"v28-stacked-proof-of-replication.params", "Test-K10", "test--k10", "-test-k10", "test-k10-", "test-k10\x00", strings.Repeat("a", 65),
	} {
		_, _, perr := d.c.Preload(ctx, id)
		_, _, eerr := d.c.Evict(ctx, id)
		for _, err := range []error{perr, eerr} {
			if code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "circuit_id") {
				t.Errorf("circuit id %.40q: %v, want InvalidArgument naming circuit_id", id, err)
			}
		}
	}
	// Well formed but unknown: still InvalidArgument, from the engine.
	if _, _, err := d.c.Preload(ctx, "porep-3g"); code(err) != codes.InvalidArgument {
		t.Errorf("unknown circuit: %v", err)
	}
	if hot := d.params.HotBytes(); hot != 0 {
		t.Fatalf("refused preloads loaded %d bytes", hot)
	}
	if _, _, err := d.c.Preload(ctx, "test-k10"); err != nil {
		t.Fatalf("a real circuit id: %v", err)
	}
}

// TestJobOwnership: with named tokens each caller awaits and cancels only
// its own jobs; the same request id from two callers is two jobs.
func TestJobOwnership(t *testing.T) {
	dir := t.TempDir()
	d := startSecured(t, "tcp", server.Security{TokenFile: writeFile(t, dir, "tokens", "alice "+tokAlice+"\nbob "+tokBob+"\n")})
	alice := d.dial(t, client.Credentials{TokenFile: writeFile(t, dir, "a", tokAlice)})
	bob := d.dial(t, client.Credentials{TokenFile: writeFile(t, dir, "b", tokBob)})
	ctx := context.Background()
	// Curio's predictable request id; the job stays in synthesis a while.
	req := client.TestRequest("porep-1000-7", 10, opts(testkind.Options{SynthesisDelayMS: 300}))
	sub, err := alice.Submit(ctx, req)
	if err != nil || sub.GetJobId() != "porep-1000-7" {
		t.Fatalf("alice submit: %v %v", sub, err)
	}
	// Bob's cancel reaches nothing of alice's.
	if was, err := bob.Cancel(ctx, "porep-1000-7"); err != nil || was {
		t.Fatalf("bob cancel: %v %v", was, err)
	}
	if _, err := bob.RPC().AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "porep-1000-7"}); code(err) != codes.NotFound {
		t.Fatalf("bob await of alice's job: %v, want NotFound", err)
	}
	res, err := alice.Await(ctx, "porep-1000-7", 0)
	if err != nil {
		t.Fatalf("alice's job after bob's cancel: %v", err)
	}
	verify(t, 10, res.GetProof(), 1)
	if res.GetJobId() != "porep-1000-7" {
		t.Errorf("job id %q", res.GetJobId())
	}
	if c := d.eng.Status().Counters; c.Cancelled != 0 {
		t.Fatalf("a job was cancelled: %+v", c)
	}
	// Bob submitting the same id gets a job of his own, not alice's result.
	bres, err := bob.Prove(ctx, client.TestRequest("porep-1000-7", 10, nil))
	if err != nil || bres.GetJobId() != "porep-1000-7" {
		t.Fatalf("bob prove: %v %v", bres, err)
	}
	if c := d.eng.Status().Counters; c.Attached != 0 || c.Completed != 2 {
		t.Fatalf("counters %+v, want 2 completed and none attached", c)
	}
	// Alice can cancel her own job.
	if _, err := alice.Submit(ctx, client.TestRequest("porep-1000-8", 10, opts(testkind.Options{SynthesisDelayMS: 1000}))); err != nil {
		t.Fatal(err)
	}
	if _, err := bob.Cancel(ctx, "porep-1000-8"); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Cancel(ctx, "porep-1000-8"); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Await(ctx, "porep-1000-8", 0); !errors.Is(err, client.ErrCancelled) {
		t.Fatalf("alice's cancelled job: %v", err)
	}
	// The operator sees who submitted what.
	var ids []string
	for _, j := range d.eng.Status().RecentJobs {
		ids = append(ids, j.ID)
	}
	if !strings.Contains(strings.Join(ids, " "), "token:alice/porep-1000-7") {
		t.Errorf("recent jobs %q, want alice's namespaced id", ids)
	}
}

// TestTLSWithTokenAndCertReload: TLS with a token (no client
// certificates) needs the token; a renewed certificate written over the
// old files is served to the next connection without a restart.
func TestTLSWithTokenAndCertReload(t *testing.T) {
	dir := t.TempDir()
	ca, caKey, caFile := newCA(t, dir, "cuzk-ca")
	first := issue(t, dir, "daemon-1", ca, caKey, true)
	tokens := writeFile(t, dir, "tokens", tokAlice)
	d := startSecured(t, "tcp", server.Security{CertFile: first.cert, KeyFile: first.key, TokenFile: tokens, Recheck: time.Millisecond})
	if _, err := d.dial(t, client.Credentials{CAFile: caFile}).Status(context.Background()); code(err) != codes.Unauthenticated {
		t.Fatalf("TLS without token: %v, want Unauthenticated", err)
	}
	if _, err := d.dial(t, client.Credentials{CAFile: caFile, TokenFile: tokens}).Status(context.Background()); err != nil {
		t.Fatalf("TLS with token: %v", err)
	}
	served := func() string {
		t.Helper()
		pool := x509.NewCertPool()
		pool.AddCert(ca)
		conn, err := tls.Dial("tcp", d.addr, &tls.Config{RootCAs: pool, NextProtos: []string{"h2"}})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		return conn.ConnectionState().PeerCertificates[0].Subject.CommonName
	}
	if cn := served(); cn != "daemon-1" {
		t.Fatalf("served %q", cn)
	}
	second := issue(t, dir, "daemon-2", ca, caKey, true)
	for _, f := range [][2]string{{second.key, first.key}, {second.cert, first.cert}} {
		if err := os.Rename(f[0], f[1]); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the renewed certificate", func() bool { return served() == "daemon-2" })
}
