package daemon

import (
	"fmt"
	"log/slog"
	"net"
	"strings"

	"github.com/cuzk-dev/cuzk/config"
	"github.com/cuzk-dev/cuzk/server"
)

// newAuth loads the credentials the configuration names (nil when it
// names none) and logs how each listener is guarded; warnings come from
// config.CheckListeners and are logged loudly.
func newAuth(d config.Daemon, log *slog.Logger, warnings []string) (*server.Auth, error) {
	for _, w := range warnings {
		log.Warn("SECURITY: " + w)
	}
	var auth *server.Auth
	if d.TokenFile != "" || d.TLSCertFile != "" {
		var err error
		auth, err = server.NewAuth(server.Security{TokenFile: d.TokenFile, CertFile: d.TLSCertFile, KeyFile: d.TLSKeyFile, ClientCAFile: d.TLSClientCAFile}, log)
		if err != nil {
			return nil, err
		}
	}
	for _, l := range []struct{ name, addr string }{{"listen", d.Listen}, {"status_listen", d.StatusAddr()}} {
		if l.addr == "" {
			continue
		}
		var guards []string
		unix := strings.HasPrefix(l.addr, "unix://")
		if unix {
			guards = append(guards, "socket mode 0660 (the daemon's user and group)")
		} else if auth != nil && auth.TLS() {
			guards = append(guards, "TLS")
			if auth.ClientCerts() {
				guards = append(guards, "client certificates")
			}
		}
		if auth != nil && auth.Tokens() {
			guards = append(guards, "bearer token")
		}
		if len(guards) == 0 {
			guards = append(guards, "NONE")
			if config.IsLoopback(l.addr) {
				guards[0] = "loopback address only"
			}
		}
		log.Info("listener security", "listener", l.name, "addr", l.addr, "guarded_by", strings.Join(guards, ", "))
	}
	return auth, nil
}

// checkBound re-checks, once the gRPC listener is open, what
// config.CheckListeners allowed by name: an unauthenticated TCP listener
// is allowed only on loopback, and "localhost" is whatever the resolver
// says it is. A listener bound anywhere else is refused.
func checkBound(d config.Daemon, bound net.Addr) error {
	tcp, ok := bound.(*net.TCPAddr)
	if !ok || d.Authenticates() || d.InsecureTCP {
		return nil
	}
	if !tcp.IP.IsLoopback() {
		return fmt.Errorf("%w: daemon.listen = %q bound %s, which is not a loopback address (check what the name resolves to)",
			config.ErrInsecureListener, d.Listen, tcp)
	}
	return nil
}
