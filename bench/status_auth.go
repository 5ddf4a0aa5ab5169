package bench

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/cuzk-dev/cuzk/client"
)

// WithCredentials makes the status client present creds to a daemon that
// authenticates its callers: TLS (https) on a TCP address, as the daemon
// serves its status listener, and the bearer token on every request.
func (s *StatusClient) WithCredentials(creds client.Credentials) error {
	tr, ok := s.http.Transport.(*http.Transport)
	if !ok {
		return fmt.Errorf("status client: credentials already set")
	}
	// Only a unix socket address sets DialContext; the daemon serves it
	// without TLS whatever its configuration.
	if creds.TLS() && tr.DialContext == nil {
		cfg, err := creds.TLSConfig()
		if err != nil {
			return err
		}
		tr.TLSClientConfig = cfg
		s.base = "https://" + strings.TrimPrefix(s.base, "http://")
	}
	tok, err := creds.Token()
	if err != nil {
		return err
	}
	if tok != "" {
		s.http.Transport = bearerTransport{next: tr, auth: "Bearer " + tok}
	}
	return nil
}

// bearerTransport adds the Authorization header to every request.
type bearerTransport struct {
	next http.RoundTripper
	auth string
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", b.auth)
	return b.next.RoundTrip(r)
}
