package config

import (
	"errors"
	"strings"
	"testing"
)

func TestStatusAddrDefaultsToLoopback(t *testing.T) {
	for in, want := range map[string]string{
		":9821": "127.0.0.1:9821", "0.0.0.0:9821": "0.0.0.0:9821", "[::1]:9821": "[::1]:9821",
		"unix:///run/cuzk-status.sock": "unix:///run/cuzk-status.sock", "": "",
	} {
		if got := (Daemon{StatusListen: in}).StatusAddr(); got != want {
			t.Errorf("StatusAddr(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckListeners(t *testing.T) {
	const (
		tok  = "/etc/cuzk/tokens"
		cert = "/etc/cuzk/tls.crt"
		key  = "/etc/cuzk/tls.key"
		ca   = "/etc/cuzk/clients-ca.crt"
	)
	const moved = " authenticates nobody, so the daemon listens on "
	for _, tc := range []struct {
		name string
		d    Daemon
		warn []string
		// listen and status are where the daemon listens ("": as written).
		listen, status string
	}{
		{name: "unix socket, no credentials", d: Daemon{Listen: DefaultListen}},
		{name: "the Rust example's address moves to loopback", d: Daemon{Listen: "0.0.0.0:9820"}, listen: "127.0.0.1:9820",
			warn: []string{`daemon.listen = "0.0.0.0:9820"` + moved + `127.0.0.1:9820 instead: this machine only, where every local user and process can submit and cancel proofs`}},
		{name: "the warning names both ways to serve other machines", d: Daemon{Listen: "0.0.0.0:9820"}, listen: "127.0.0.1:9820",
			warn: []string{"To serve other machines, authenticate callers: daemon.token_file (bearer tokens) or daemon.tls_cert_file, tls_key_file and tls_client_ca_file (client certificates) (docs/security.md), or set daemon.insecure_tcp = true (--insecure-tcp)"}},
		{name: "empty host is every interface", d: Daemon{Listen: ":9820"}, listen: "127.0.0.1:9820", warn: []string{`daemon.listen = ":9820"` + moved}},
		{name: "private address", d: Daemon{Listen: "10.0.0.5:9820"}, listen: "127.0.0.1:9820", warn: []string{`daemon.listen = "10.0.0.5:9820"` + moved}},
		{name: "IPv6 any", d: Daemon{Listen: "[::]:9820"}, listen: "[::1]:9820", warn: []string{`daemon.listen = "[::]:9820"` + moved + "[::1]:9820"}},
		{name: "IPv4-mapped any", d: Daemon{Listen: "[::ffff:0.0.0.0]:9820"}, listen: "127.0.0.1:9820", warn: []string{moved}},
		{name: "loopback tcp allowed, loudly (Curio's address)", d: Daemon{Listen: "127.0.0.1:9820"},
			warn: []string{`daemon.listen = "127.0.0.1:9820" authenticates nobody: every local user and process can submit`}},
		{name: "all of 127/8 is loopback", d: Daemon{Listen: "127.1.2.3:9820"}, warn: []string{`"127.1.2.3:9820" authenticates nobody`}},
		{name: "IPv6 loopback", d: Daemon{Listen: "[::1]:9820"}, warn: []string{`"[::1]:9820" authenticates nobody`}},
		{name: "a name that starts with localhost is not loopback", d: Daemon{Listen: "localhost.example.com:9820"}, listen: "127.0.0.1:9820",
			warn: []string{`"localhost.example.com:9820"` + moved}},
		{name: "localhost", d: Daemon{Listen: "localhost:9820"}, warn: []string{`"localhost:9820" authenticates nobody`}},
		{name: "loopback with insecure_tcp: one warning", d: Daemon{Listen: "127.0.0.1:9820", InsecureTCP: true},
			warn: []string{`daemon.insecure_tcp = true: daemon.listen = "127.0.0.1:9820" authenticates nobody`}},
		{name: "tls without client CA moves, saying why", d: Daemon{Listen: ":9820", TLSCertFile: cert, TLSKeyFile: key}, listen: "127.0.0.1:9820",
			warn: []string{"TLS without daemon.tls_client_ca_file encrypts but identifies nobody"}},
		{name: "tls without client CA on loopback", d: Daemon{Listen: "127.0.0.1:9820", TLSCertFile: cert, TLSKeyFile: key},
			warn: []string{`"127.0.0.1:9820" authenticates nobody`}},
		{name: "insecure_tcp serves as written, loudly", d: Daemon{Listen: "0.0.0.0:9820", InsecureTCP: true},
			warn: []string{`daemon.insecure_tcp = true: daemon.listen = "0.0.0.0:9820" authenticates nobody`}},
		{name: "token over plain tcp", d: Daemon{Listen: "0.0.0.0:9820", TokenFile: tok},
			warn: []string{"bearer tokens cross the network in clear text"}},
		{name: "token on loopback: no warning", d: Daemon{Listen: "127.0.0.1:9820", TokenFile: tok}},
		{name: "mTLS", d: Daemon{Listen: "0.0.0.0:9820", TLSCertFile: cert, TLSKeyFile: key, TLSClientCAFile: ca}},
		{name: "token over TLS", d: Daemon{Listen: "0.0.0.0:9820", TLSCertFile: cert, TLSKeyFile: key, TokenFile: tok}},
		{name: "status on loopback", d: Daemon{Listen: DefaultListen, StatusListen: "127.0.0.1:9821"}},
		{name: "status without host is loopback", d: Daemon{Listen: DefaultListen, StatusListen: ":9821"}},
		{name: "status on localhost", d: Daemon{Listen: DefaultListen, StatusListen: "localhost:9821"}},
		{name: "status on all interfaces moves", d: Daemon{Listen: DefaultListen, StatusListen: "0.0.0.0:9821"}, status: "127.0.0.1:9821",
			warn: []string{`daemon.status_listen = "0.0.0.0:9821"` + moved + "127.0.0.1:9821 instead: this machine only, where every local user and process can read /status, /metrics and /debug/pprof"}},
		{name: "both move: one warning each", d: Daemon{Listen: "0.0.0.0:9820", StatusListen: "0.0.0.0:9821"}, listen: "127.0.0.1:9820", status: "127.0.0.1:9821",
			warn: []string{`daemon.listen = "0.0.0.0:9820"` + moved, `daemon.status_listen = "0.0.0.0:9821"` + moved}},
		{name: "status with token", d: Daemon{Listen: DefaultListen, StatusListen: "10.0.0.5:9821", TokenFile: tok},
			warn: []string{`daemon.status_listen = "10.0.0.5:9821": bearer tokens cross the network in clear text`}},
		{name: "insecure_tcp with credentials", d: Daemon{Listen: DefaultListen, TokenFile: tok, InsecureTCP: true},
			warn: []string{"daemon.insecure_tcp = true has no effect"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			c.Daemon = tc.d
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			warn, err := c.CheckListeners()
			if err != nil {
				t.Fatal(err)
			}
			if len(warn) != len(tc.warn) {
				t.Fatalf("warnings %q, want %d", warn, len(tc.warn))
			}
			for i, w := range tc.warn {
				if !strings.Contains(warn[i], w) {
					t.Errorf("warning %q, want %q", warn[i], w)
				}
			}
			for _, l := range []struct{ key, got, want, written string }{
				{"listen", c.Daemon.Listen, tc.listen, tc.d.Listen}, {"status_listen", c.Daemon.StatusListen, tc.status, tc.d.StatusListen},
			} {
				if l.want == "" {
					l.want = l.written
				}
				if l.got != l.want {
					t.Errorf("daemon.%s = %q after the check, want %q", l.key, l.got, l.want)
				}
			}
		})
	}
}

func TestTLSKeysValidate(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"[daemon]\ntls_cert_file = \"/c\"", "daemon.tls_cert_file and daemon.tls_key_file are set together"},
		{"[daemon]\ntls_key_file = \"/k\"", "daemon.tls_cert_file and daemon.tls_key_file are set together"},
		{"[daemon]\ntls_client_ca_file = \"/ca\"", `daemon.tls_client_ca_file = "/ca": client certificates need TLS`},
	} {
		_, err := Parse([]byte(tc.src))
		if !errors.Is(err, ErrInvalidValue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want %q", tc.src, err, tc.want)
		}
	}
	cfg, err := Parse([]byte("[daemon]\nlisten = \"0.0.0.0:9820\"\ntoken_file = \"/etc/cuzk/tokens\"\ntls_cert_file = \"/c\"\ntls_key_file = \"/k\"\ntls_client_ca_file = \"/ca\"\ninsecure_tcp = false\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d := cfg.Daemon; d.TokenFile != "/etc/cuzk/tokens" || d.TLSCertFile != "/c" || d.TLSKeyFile != "/k" || d.TLSClientCAFile != "/ca" {
		t.Errorf("daemon = %+v", d)
	}
}
