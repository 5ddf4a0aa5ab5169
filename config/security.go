package config

import (
	"errors"
	"fmt"
	"net"
	"strings"
)

// ErrInsecureListener is returned when a TCP listener would authenticate
// nobody off loopback and daemon.insecure_tcp does not allow it: the
// daemon's check of the address it bound (a name may resolve anywhere).
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
//   - a TCP listener (gRPC or status) on an address other than loopback
//     that would authenticate nobody is moved to the loopback address of
//     the same port ("0.0.0.0:9820" listens on "127.0.0.1:9820"), with a
//     warning that names the two ways to serve other machines:
//     credentials (token_file, or TLS with client certificates) or
//     insecure_tcp. The Rust cuzk's example config listens on
//     0.0.0.0:9820 and Curio's client sends no credentials, so this
//     serves a co-located Curio from that file unchanged, and nobody
//     beyond the machine;
//   - a TCP gRPC listener on a loopback address (127.0.0.0/8, ::1,
//     localhost) may go without credentials, with a warning: any local
//     user can still reach such a port;
//   - daemon.insecure_tcp = true serves other addresses as written,
//     unauthenticated, with a warning.
//
// It rewrites c.Daemon.Listen and c.Daemon.StatusListen where it moves
// them. Unix sockets are always allowed: the daemon creates them with
// mode 0660. The returned warnings (a moved or unauthenticated listener,
// tokens sent over plain TCP) are for the daemon to log loudly at
// start-up, one per listener.
func (c *Config) CheckListeners() (warnings []string, err error) {
	d := &c.Daemon
	auth := d.Authenticates()
	// confine keeps *addr, unauthenticated and off loopback, on this
	// machine.
	confine := func(key string, addr *string, serves string) error {
		if d.InsecureTCP {
			warnings = append(warnings, fmt.Sprintf("daemon.insecure_tcp = true: %s = %q authenticates nobody; anyone who can reach it can %s", key, *addr, serves))
			return nil
		}
		lo, err := loopbackOf(*addr)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		how := "authenticate callers: daemon.token_file (bearer tokens) or daemon.tls_cert_file, tls_key_file and tls_client_ca_file (client certificates)"
		if d.TLSCertFile != "" {
			how = "authenticate callers: TLS without daemon.tls_client_ca_file encrypts but identifies nobody, so set daemon.tls_client_ca_file or daemon.token_file"
		}
		warnings = append(warnings, fmt.Sprintf("%s = %q authenticates nobody, so the daemon listens on %s instead: this machine only, where every local user and process can %s. "+
			"To serve other machines, %s (docs/security.md), or set daemon.insecure_tcp = true (--insecure-tcp) on a network that is already private",
			key, *addr, lo, serves, how))
		*addr = lo
		return nil
	}
	plainToken := func(key, addr string) {
		if d.TokenFile != "" && d.TLSCertFile == "" && !IsLoopback(addr) {
			warnings = append(warnings, fmt.Sprintf("%s = %q: bearer tokens cross the network in clear text (set daemon.tls_cert_file and tls_key_file)", key, addr))
		}
	}
	var errs []error
	if isTCP(d.Listen) {
		const serves = "submit and cancel proofs and preload or evict parameters"
		switch {
		case auth:
		case IsLoopback(d.Listen) && !d.InsecureTCP:
			warnings = append(warnings, fmt.Sprintf("%s = %q authenticates nobody: every local user and process can %s; "+
				"allowed on loopback because Curio's client sends no credentials; a unix socket (mode 0660) or daemon.token_file closes it",
				"daemon.listen", d.Listen, serves))
		default:
			errs = append(errs, confine("daemon.listen", &d.Listen, serves))
		}
		plainToken("daemon.listen", d.Listen)
	}
	if sa := d.StatusAddr(); isTCP(sa) && !IsLoopback(sa) {
		if !auth {
			errs = append(errs, confine("daemon.status_listen", &d.StatusListen, "read /status, /metrics and /debug/pprof (profiles, command line)"))
		}
		plainToken("daemon.status_listen", d.StatusAddr())
	}
	if d.InsecureTCP && auth {
		warnings = append(warnings, "daemon.insecure_tcp = true has no effect: callers are authenticated")
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return warnings, nil
}

// loopbackOf is the loopback address of addr's port: [::1] for an IPv6
// host, 127.0.0.1 for any other.
func loopbackOf(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
		return net.JoinHostPort("::1", port), nil
	}
	return net.JoinHostPort("127.0.0.1", port), nil
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
