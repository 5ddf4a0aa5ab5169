package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/cuzk-dev/cuzk/internal/tokenfile"
)

// Credentials are what a client presents to a daemon that authenticates
// its callers (docs/security.md). The zero value presents nothing and
// dials in plain text, as a unix socket needs.
type Credentials struct {
	// CAFile (PEM) verifies the daemon's certificate and turns TLS on;
	// with TLS on and no CAFile the system's roots are used.
	CAFile string
	// CertFile and KeyFile are the client certificate and key (PEM) for a
	// daemon that requires client certificates; they turn TLS on.
	CertFile, KeyFile string
	// ServerName is the name checked in the daemon's certificate (default:
	// the host of the address dialled).
	ServerName string
	// TokenFile holds the bearer token (one line, "TOKEN" or "NAME
	// TOKEN"), sent as "authorization: Bearer <token>" with every call.
	TokenFile string
}

// TLS says whether the credentials dial with TLS.
func (c Credentials) TLS() bool { return c.CAFile != "" || c.CertFile != "" }

// TLSConfig is the client side of TLS, or nil without TLS.
func (c Credentials) TLSConfig() (*tls.Config, error) {
	if !c.TLS() {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: c.ServerName}
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("cuzk client: CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("cuzk client: CA file %s: no PEM certificate in it", c.CAFile)
		}
		cfg.RootCAs = pool
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		return nil, fmt.Errorf("cuzk client: a client certificate needs both its certificate and its key file")
	}
	if c.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("cuzk client: client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// Token reads the bearer token ("" without a TokenFile).
func (c Credentials) Token() (string, error) {
	if c.TokenFile == "" {
		return "", nil
	}
	tok, err := tokenfile.ReadOne(c.TokenFile)
	if err != nil {
		return "", fmt.Errorf("cuzk client: %w", err)
	}
	return tok, nil
}

// DialOptions are the options that make Dial present the credentials;
// they go after Dial's defaults, so TLS replaces the plain transport.
func (c Credentials) DialOptions() ([]grpc.DialOption, error) {
	var opts []grpc.DialOption
	cfg, err := c.TLSConfig()
	if err != nil {
		return nil, err
	}
	if cfg != nil {
		opts = append(opts, grpc.WithTransportCredentials(credentials.NewTLS(cfg)))
	}
	tok, err := c.Token()
	if err != nil {
		return nil, err
	}
	if tok != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(bearerToken(tok)))
	}
	return opts, nil
}

// DialWith is Dial with credentials. A unix socket is dialled without TLS
// whatever creds say, as the daemon serves it (its token is still sent).
//
// In a list of several daemons the unix sockets are dialled without TLS
// and the TCP addresses with it (see tlsExceptUnix).
func DialWith(addr string, creds Credentials, opts ...grpc.DialOption) (*Client, error) {
	addrs, _ := several(addr)
	unix := 0
	for _, a := range addrs {
		if strings.HasPrefix(a, "unix:") {
			unix++
		}
	}
	if unix > 0 && unix == len(addrs) {
		creds.CAFile, creds.CertFile, creds.KeyFile = "", "", ""
	}
	co, err := creds.DialOptions()
	if err != nil {
		return nil, err
	}
	if unix > 0 && creds.TLS() {
		cfg, err := creds.TLSConfig()
		if err != nil {
			return nil, err
		}
		co = append(co, grpc.WithTransportCredentials(tlsExceptUnix{credentials.NewTLS(cfg)}))
	}
	return Dial(addr, append(co, opts...)...)
}

// bearerToken sends "authorization: Bearer <token>". It does not require
// transport security: on a unix socket (or a network the operator trusts)
// the token travels in plain text, which the daemon warns about.
type bearerToken string

func (t bearerToken) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(t)}, nil
}

func (bearerToken) RequireTransportSecurity() bool { return false }
