package config

import (
	"errors"
	"fmt"
	"net"
	"strings"
)

// ErrInsecureListener is returned by CheckListeners when a TCP listener
// would authenticate nobody and daemon.insecure_tcp does not allow it.
var ErrInsecureListener = errors.New("unauthenticated TCP listener")

// checkTLSKeys checks that the TLS keys come in the combinations that mean
// something.
func (d Daemon) checkTLSKeys() error {
	var errs []error
	if (d.TLSCertFile == "") != (d.TLSKeyFile == "") {
		errs = append(errs, fmt.Errorf("%w: daemon.tls_cert_file and daemon.tls_key_file are set together or not at all", ErrInvalidValue))
	}
	if d.TLSClientCAFile != "" && d.TLSCertFile == "" {
		errs = append(errs, invalid("daemon.tls_client_ca_file", d.TLSClientCAFile,
			"client certificates need TLS: set daemon.tls_cert_file and daemon.tls_key_file too"))
	}
	return errors.Join(errs...)
}

// checkStatusHosts accepts host names and IP addresses, without a port:
// the Host header's port is not compared (it is the listener's own).
func (d Daemon) checkStatusHosts() error {
	var errs []error
	for _, h := range d.StatusHosts {
		if _, err := NormalizeHost(h); err != nil {
			errs = append(errs, invalid("daemon.status_hosts", h, err.Error()))
		}
	}
	return errors.Join(errs...)
}

// NormalizeHost is the form a status_hosts entry and a Host header's host
// are compared in: lower case, without a trailing dot, an IPv6 address
// without brackets. It refuses anything that is not a host name or an IP
// address.
func NormalizeHost(h string) (string, error) {
	h = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(h)), ".")
	if ip := strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"); strings.Contains(ip, ":") {
		if net.ParseIP(ip) == nil {
			return "", errors.New(`want a host name or an IP address without a port ("status.example.net", "10.0.0.5", "fd00::5")`)
		}
		return ip, nil
	}
	if h == "" || len(h) > 253 {
		return "", errors.New("want a host name of 1 to 253 characters")
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return "", errors.New(`want a host name or an IP address without a port ("status.example.net", "10.0.0.5", "fd00::5")`)
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return "", errors.New(`want a host name or an IP address without a port ("status.example.net", "10.0.0.5", "fd00::5")`)
			}
		}
	}
	return h, nil
}

// StatusAddr is the address the status listener binds: StatusListen, with
// a missing host (":9821") replaced by 127.0.0.1, so that /status,
// /metrics and pprof stay on the machine unless a host is written out.
func (d Daemon) StatusAddr() string {
	if strings.HasPrefix(d.StatusListen, ":") {
		return "127.0.0.1" + d.StatusListen
	}
	return d.StatusListen
}

// Authenticates says whether the configuration identifies callers on TCP:
// by bearer token or by client certificate. TLS without client
// certificates encrypts the connection but lets anyone call.
func (d Daemon) Authenticates() bool {
	return d.TokenFile != "" || (d.TLSCertFile != "" && d.TLSClientCAFile != "")
}

// CheckListeners applies the daemon's transport rule, after Validate:
//
//   - a TCP gRPC listener on an address other than loopback needs
//     token_file or TLS with client certificates;
//   - a TCP gRPC listener on a loopback address (127.0.0.0/8, ::1,
//     localhost) may go without them, with a warning: Curio's client
//     dials plain TCP and sends no token, and its documented address is
//     127.0.0.1:9820, so refusing it would make this daemon no drop-in for
//     the Rust cuzk. Any local user can still reach such a port, which is
//     what the warning says;
//   - a TCP status listener on an address other than loopback needs the
//     same credentials (a loopback one is reachable from the machine only);
//   - daemon.insecure_tcp = true lifts the rules for other addresses.
//
// Unix sockets are always allowed: the daemon creates them with mode 0660.
// The returned warnings (an unauthenticated listener, tokens sent over
// plain TCP) are for the daemon to log loudly at start-up.
func (c *Config) CheckListeners() (warnings []string, err error) {
	d := c.Daemon
	auth := d.Authenticates()
	var errs []error
	// example is a loopback address the key could take instead.
	need := func(key, addr, serves, example string) {
		why := "set daemon.token_file (bearer tokens) or daemon.tls_cert_file, tls_key_file and tls_client_ca_file (client certificates)"
		if d.TLSCertFile != "" {
			why = "TLS without daemon.tls_client_ca_file encrypts but authenticates no caller: set daemon.tls_client_ca_file or daemon.token_file"
		}
		if d.InsecureTCP {
			warnings = append(warnings, fmt.Sprintf("daemon.insecure_tcp = true: %s = %q authenticates nobody; anyone who can reach it %s", key, addr, serves))
			return
		}
		errs = append(errs, fmt.Errorf("%w: %s = %q would let anyone who can reach it %s: %s, or use a unix socket or a loopback address (%s); daemon.insecure_tcp = true (cuzk daemon --insecure-tcp) accepts the risk",
			ErrInsecureListener, key, addr, serves, why, example))
	}
	plainToken := func(key, addr string) {
		if d.TokenFile != "" && d.TLSCertFile == "" && !IsLoopback(addr) {
			warnings = append(warnings, fmt.Sprintf("%s = %q: bearer tokens cross the network in clear text (set daemon.tls_cert_file and tls_key_file)", key, addr))
		}
	}
	if isTCP(d.Listen) {
		const serves = "submit and cancel proofs and preload or evict parameters"
		switch {
		case auth:
		case IsLoopback(d.Listen) && !d.InsecureTCP:
			warnings = append(warnings, fmt.Sprintf("%s = %q authenticates nobody: every local user and process can %s; "+
				"allowed on loopback because Curio's client sends no credentials; a unix socket (mode 0660) or daemon.token_file closes it",
				"daemon.listen", d.Listen, serves))
		default:
			need("daemon.listen", d.Listen, serves, "127.0.0.1:9820 when Curio runs on this machine")
		}
		plainToken("daemon.listen", d.Listen)
	}
	if sa := d.StatusAddr(); isTCP(sa) && !IsLoopback(sa) {
		if !auth {
			need("daemon.status_listen", sa, "read /status, /metrics and /debug/pprof (profiles, command line)", "127.0.0.1:9821, reached through an SSH tunnel")
		}
		plainToken("daemon.status_listen", sa)
	}
	if d.InsecureTCP && auth {
		warnings = append(warnings, "daemon.insecure_tcp = true has no effect: callers are authenticated")
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("config: %w", errors.Join(errs...))
	}
	return warnings, nil
}

// isTCP says addr is a host:port address (not empty, not a unix socket).
func isTCP(addr string) bool { return addr != "" && !strings.HasPrefix(addr, "unix://") }

// IsLoopback says a host:port binds only the loopback interface: the host
// is "localhost" or a loopback IP. An empty host binds every interface.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
