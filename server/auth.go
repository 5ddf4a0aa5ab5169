package server

// Authentication of callers: bearer tokens (checked on every RPC and every
// status request) and TLS client certificates (TCP listeners). See
// docs/security.md for the operator's side.
//
// Both happen before the daemon reads a byte a caller chose: the TLS
// handshake refuses a connection without a client certificate the CAs
// signed, and the token is checked from a stream's headers when the
// stream is created (Auth.tap, a grpc.InTapHandle), before gRPC reads its
// message. An interceptor would run only after the message was read and
// decoded, which lets anyone who can connect make the daemon hold and
// decode up to the message size limit per stream (a 64 MiB message of
// empty repeated entries decodes to more than 2 GB).

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"

	"github.com/cuzk-dev/cuzk/internal/tokenfile"
)

// DefaultRecheck is how often, at most, the token file and the certificate
// files are looked at again for changes.
const DefaultRecheck = 2 * time.Second

// Security says how callers are authenticated. The zero value
// authenticates nobody (a unix socket's file permissions, or a network
// the operator trusts, are then the only guard).
type Security struct {
	// TokenFile is a file of bearer tokens (internal/tokenfile's format).
	// When set, every RPC and every status request must carry one of them,
	// on every listener.
	TokenFile string
	// CertFile and KeyFile are the server's certificate chain and key
	// (PEM). When set, TCP listeners speak TLS; unix sockets stay plain.
	CertFile, KeyFile string
	// ClientCAFile (PEM) requires a client certificate issued by one of
	// these CAs on every TCP connection (needs CertFile).
	ClientCAFile string
	// Recheck is how often the files are checked for changes (0:
	// DefaultRecheck). A change takes effect at the next call after it.
	Recheck time.Duration
}

// Auth holds loaded credentials; pass it to New with WithAuth.
type Auth struct {
	log       *slog.Logger
	tokens    *tokenStore    // nil: no token required
	cert      *certStore     // nil: no TLS
	clientCAs *x509.CertPool // nil: no client certificate required

	sessions *sessionStore // the status page's logins (with tokens only)
	logins   *loginLimiter

	mu         sync.Mutex
	lastDenied time.Time
	suppressed int
}

// NewAuth loads sec's files. A token file that is missing, empty, not a
// regular file, writable by users other than its owner, or holds a token
// of fewer than tokenfile.MinTokenBits bits is refused here, so the daemon
// does not start with a guard that lets nobody (or everybody) in.
func NewAuth(sec Security, log *slog.Logger) (*Auth, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	every := sec.Recheck
	if every <= 0 {
		every = DefaultRecheck
	}
	a := &Auth{log: log}
	if sec.TokenFile != "" {
		ts, err := newTokenStore(sec.TokenFile, every, log)
		if err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
		a.tokens = ts
		a.sessions = newSessionStore()
		a.logins = newLoginLimiter()
	}
	if (sec.CertFile == "") != (sec.KeyFile == "") {
		return nil, errors.New("server: TLS needs both a certificate and a key file")
	}
	if sec.CertFile != "" {
		cs, err := newCertStore(sec.CertFile, sec.KeyFile, every, log)
		if err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
		a.cert = cs
	}
	if sec.ClientCAFile != "" {
		if a.cert == nil {
			return nil, errors.New("server: client certificates need TLS (a certificate and key file)")
		}
		pem, err := os.ReadFile(sec.ClientCAFile)
		if err != nil {
			return nil, fmt.Errorf("server: client CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("server: client CA %s: no PEM certificate in it", sec.ClientCAFile)
		}
		a.clientCAs = pool
	}
	return a, nil
}

// Tokens says whether a bearer token is required.
func (a *Auth) Tokens() bool { return a.tokens != nil }

// TLS says whether TCP listeners speak TLS.
func (a *Auth) TLS() bool { return a.cert != nil }

// ClientCerts says whether TCP callers must present a client certificate.
func (a *Auth) ClientCerts() bool { return a.clientCAs != nil }

// tlsConfig is the server side of TLS. With client CAs the handshake
// itself requires and verifies the client certificate (for client
// authentication, the extended key usage crypto/tls checks), so a caller
// without a trusted one never gets to send a request: its client reports
// a TLS error (Unavailable) rather than Unauthenticated, the price of
// reading nothing from it.
func (a *Auth) tlsConfig(nextProtos ...string) *tls.Config {
	c := &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: a.cert.get, NextProtos: nextProtos}
	if a.clientCAs != nil {
		c.ClientAuth, c.ClientCAs = tls.RequireAndVerifyClientCert, a.clientCAs
	}
	return c
}

// callerKey is the context key of the authenticated caller's name;
// Auth.tap sets it on every stream it lets through.
type callerKey struct{}

// Caller returns the name authentication gave the caller of an RPC: what
// its client certificate ("cert:<subject>") and its token
// ("token:<name>") say, joined by a space; "" when nothing identified it
// (no authentication configured, or a unix socket without a token).
func Caller(ctx context.Context) string {
	s, _ := ctx.Value(callerKey{}).(string)
	return s
}

// errUnauthenticated is what a refused caller is told, with the reason.
type errUnauthenticated struct{ why string }

func (e errUnauthenticated) Error() string { return e.why }

// authenticate checks a call's credentials and names the caller. unix
// says the call came over a unix socket (no client certificate is asked
// for there); tlsState is nil on a connection without TLS; header holds
// the authorization values, session the status page's session cookie (an
// id /login handed out, never a token).
func (a *Auth) authenticate(unix bool, tlsState *tls.ConnectionState, header []string, session string) (string, error) {
	var parts []string
	if a.clientCAs != nil && !unix {
		if tlsState == nil {
			return "", errUnauthenticated{"client certificate required (this connection has no TLS)"}
		}
		name, err := certName(tlsState)
		if err != nil {
			return "", err
		}
		parts = append(parts, name)
	}
	if a.tokens != nil {
		var name string
		if (len(header) == 0 || header[0] == "") && session != "" {
			// The session holds the digest of the token it was opened
			// with, so removing the token from the file ends it.
			sum, ok := a.sessions.lookup(session, time.Now())
			if ok {
				name, ok = a.tokens.lookupSum(sum)
			}
			if !ok {
				return "", errUnauthenticated{"session expired or unknown: log in again"}
			}
		} else {
			tok, err := bearer(header)
			if err != nil {
				return "", err
			}
			var ok bool
			if name, ok = a.tokens.lookup(tok); !ok {
				return "", errUnauthenticated{"invalid bearer token"}
			}
		}
		parts = append(parts, "token:"+name)
	}
	return strings.Join(parts, " "), nil
}

// bearer extracts the token of an "authorization: Bearer <token>" value.
func bearer(header []string) (string, error) {
	switch {
	case len(header) > 1:
		return "", errUnauthenticated{"more than one authorization value"}
	case len(header) == 0 || header[0] == "":
		return "", errUnauthenticated{`missing credentials: send "authorization: Bearer <token>"`}
	}
	scheme, tok, ok := strings.Cut(strings.TrimSpace(header[0]), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", errUnauthenticated{`authorization must be "Bearer <token>"`}
	}
	return strings.TrimSpace(tok), nil
}

// certName names the caller by its client certificate, which the
// handshake verified against the client CAs (tlsConfig).
func certName(st *tls.ConnectionState) (string, error) {
	if len(st.VerifiedChains) == 0 || len(st.PeerCertificates) == 0 {
		return "", errUnauthenticated{"client certificate required"}
	}
	return "cert:" + st.PeerCertificates[0].Subject.String(), nil
}

// denied logs a refused call, at most one line a second so that a flood
// of bad calls cannot flood the log.
func (a *Auth) denied(what, from string, err error) {
	a.mu.Lock()
	now := time.Now()
	if now.Sub(a.lastDenied) < time.Second {
		a.suppressed++
		a.mu.Unlock()
		return
	}
	n := a.suppressed
	a.lastDenied, a.suppressed = now, 0
	a.mu.Unlock()
	a.log.Warn("unauthenticated call refused", "call", what, "peer", from, "reason", err.Error(), "refused_since_last_line", n)
}

// tap authenticates a stream from its headers when it is created, before
// gRPC reads its message (grpc.InTapHandle): a refused stream is answered
// Unauthenticated and its data frames are dropped as they arrive. It runs
// on the connection's reading goroutine, so it must not block: the token
// lookup is a digest comparison and, at most every Recheck, a stat.
func (a *Auth) tap(ctx context.Context, info *tap.Info) (context.Context, error) {
	var st *tls.ConnectionState
	from, unix := "", false
	if p, ok := peer.FromContext(ctx); ok {
		if p.Addr != nil {
			from, unix = p.Addr.String(), p.Addr.Network() == "unix"
		}
		if ti, ok := p.AuthInfo.(credentials.TLSInfo); ok {
			st = &ti.State
		}
	}
	name, err := a.authenticate(unix, st, info.Header.Get("authorization"), "")
	if err != nil {
		// The method is the caller's :path, up to the header limit.
		a.denied(clip(info.FullMethodName, 128), from, err)
		return nil, status.Error(codes.Unauthenticated, err.Error())
	}
	return context.WithValue(ctx, callerKey{}, name), nil
}

// tapped refuses a call tap did not let through. Every stream passes tap
// first, so this never refuses anything; it keeps a server built without
// the tap from serving callers unchecked.
func tapped(ctx context.Context) error {
	if _, ok := ctx.Value(callerKey{}).(string); !ok {
		return status.Error(codes.Unauthenticated, "the call was not authenticated when its stream was created")
	}
	return nil
}

func (a *Auth) unary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if err := tapped(ctx); err != nil {
		return nil, err
	}
	return h(ctx, req)
}

func (a *Auth) stream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	if err := tapped(ss.Context()); err != nil {
		return err
	}
	return h(srv, ss)
}

type authedStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *authedStream) Context() context.Context { return s.ctx }

// tcpTLS speaks TLS on TCP connections and leaves unix-socket connections
// plain: the socket's file permissions guard those, and a TLS client on a
// local socket would need a certificate for a name that means nothing.
type tcpTLS struct {
	credentials.TransportCredentials
}

// plainInfo describes a unix-socket connection.
type plainInfo struct{ credentials.CommonAuthInfo }

func (plainInfo) AuthType() string { return "insecure" }

func (c tcpTLS) ServerHandshake(conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	if conn.LocalAddr().Network() == "unix" {
		return conn, plainInfo{credentials.CommonAuthInfo{SecurityLevel: credentials.NoSecurity}}, nil
	}
	return c.TransportCredentials.ServerHandshake(conn)
}

func (c tcpTLS) Clone() credentials.TransportCredentials {
	return tcpTLS{c.TransportCredentials.Clone()}
}

// tokenStore holds the token file's tokens (as SHA-256 digests, so a
// comparison takes the same time whatever the presented token) and reads
// the file again when it changes. A file that became unreadable or
// invalid keeps the tokens last read, with an error logged: a half-written
// file must not lock every caller out. Replace the file atomically
// (write, then rename) to rotate.
type tokenStore struct {
	path  string
	every time.Duration
	log   *slog.Logger

	mu      sync.Mutex
	next    time.Time   // when to look at the file again
	seen    os.FileInfo // the file as last read
	missing bool        // the last stat failed (logged once)
	tokens  []storedToken
}

type storedToken struct {
	name string
	sum  [sha256.Size]byte
}

func newTokenStore(path string, every time.Duration, log *slog.Logger) (*tokenStore, error) {
	s := &tokenStore{path: path, every: every, log: log}
	if err := s.load(); err != nil {
		return nil, err
	}
	if fi := s.seen; fi.Mode().Perm()&0o004 != 0 {
		log.Warn("the token file is readable by every user; chmod 0600 or 0640 it", "file", path, "mode", fi.Mode().Perm().String())
	}
	return s, nil
}

// load reads the file: a regular file that only its owner may write
// (tokenfile.ReadServer), each token strong enough (tokenfile.CheckToken).
func (s *tokenStore) load() error {
	es, fi, err := tokenfile.ReadServer(s.path)
	if err != nil {
		return err
	}
	toks := make([]storedToken, len(es))
	for i, e := range es {
		toks[i] = storedToken{name: e.Name, sum: sha256.Sum256([]byte(e.Token))}
	}
	s.tokens, s.seen = toks, fi
	s.next = time.Now().Add(s.every)
	return nil
}

// refreshLocked reads the file again if it changed since it was last
// read. Each failure is logged once (a missing file once until it is back).
func (s *tokenStore) refreshLocked() {
	now := time.Now()
	if now.Before(s.next) {
		return
	}
	s.next = now.Add(s.every)
	fi, err := os.Stat(s.path)
	if err != nil {
		if !s.missing {
			s.missing = true
			s.log.Error("token file not readable; the tokens read before stay valid", "file", s.path, "err", err)
		}
		return
	}
	s.missing = false
	if !changed(s.seen, fi) {
		return
	}
	if err := s.load(); err != nil {
		s.seen = fi // this version is reported once
		s.log.Error("token file not reloaded; the tokens read before stay valid", "file", s.path, "err", err)
		return
	}
	s.log.Info("token file reloaded", "file", s.path, "tokens", len(s.tokens))
}

func changed(a, b os.FileInfo) bool {
	return a == nil || !os.SameFile(a, b) || !a.ModTime().Equal(b.ModTime()) || a.Size() != b.Size()
}

// lookup returns the name of the token tok, comparing digests in constant
// time against every stored token.
func (s *tokenStore) lookup(tok string) (string, bool) {
	return s.lookupSum(sha256.Sum256([]byte(tok)))
}

// lookupSum is lookup of a token's SHA-256 digest.
func (s *tokenStore) lookupSum(sum [sha256.Size]byte) (string, bool) {
	s.mu.Lock()
	s.refreshLocked()
	toks := s.tokens
	s.mu.Unlock()
	name, found := "", 0
	for i := range toks {
		if subtle.ConstantTimeCompare(sum[:], toks[i].sum[:]) == 1 {
			name, found = toks[i].name, 1
		}
	}
	return name, found == 1
}

// certStore serves the server certificate and loads it again when its
// files change, so a renewed certificate needs no restart.
type certStore struct {
	certFile, keyFile string
	every             time.Duration
	log               *slog.Logger

	mu       sync.Mutex
	next     time.Time
	seen     [2]os.FileInfo
	cert     *tls.Certificate
	notAfter time.Time
}

func newCertStore(certFile, keyFile string, every time.Duration, log *slog.Logger) (*certStore, error) {
	s := &certStore{certFile: certFile, keyFile: keyFile, every: every, log: log}
	if err := s.load(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *certStore) load() error {
	var seen [2]os.FileInfo
	for i, p := range []string{s.certFile, s.keyFile} {
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("TLS: %w", err)
		}
		seen[i] = fi
	}
	c, err := tls.LoadX509KeyPair(s.certFile, s.keyFile)
	if err != nil {
		return fmt.Errorf("TLS certificate %s / key %s: %w", s.certFile, s.keyFile, err)
	}
	s.cert, s.seen = &c, seen
	if c.Leaf != nil {
		s.notAfter = c.Leaf.NotAfter
		if time.Now().After(c.Leaf.NotAfter) {
			s.log.Error("the TLS certificate has expired", "file", s.certFile, "not_after", c.Leaf.NotAfter)
		}
	}
	s.next = time.Now().Add(s.every)
	return nil
}

func (s *certStore) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now := time.Now(); !now.Before(s.next) {
		s.next = now.Add(s.every)
		ci, err1 := os.Stat(s.certFile)
		ki, err2 := os.Stat(s.keyFile)
		if err1 == nil && err2 == nil && (changed(s.seen[0], ci) || changed(s.seen[1], ki)) {
			if err := s.load(); err != nil {
				// Keep serving the old pair; the new one may be half written.
				s.seen = [2]os.FileInfo{ci, ki}
				s.log.Error("TLS certificate not reloaded; the one read before stays in use", "err", err)
			} else {
				s.log.Info("TLS certificate reloaded", "file", s.certFile, "not_after", s.notAfter)
			}
		}
	}
	return s.cert, nil
}
