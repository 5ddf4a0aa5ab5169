package daemon

import (
	"errors"
	"net"
	"testing"

	"github.com/cuzk-dev/cuzk/config"
)

// TestCheckBound: an unauthenticated TCP listener that config allowed as
// loopback by its name must really be bound to a loopback address.
func TestCheckBound(t *testing.T) {
	tcp := func(ip string) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: 9820} }
	for _, tc := range []struct {
		name    string
		d       config.Daemon
		bound   net.Addr
		refused bool
	}{
		{"localhost on 127.0.0.1", config.Daemon{Listen: "localhost:9820"}, tcp("127.0.0.1"), false},
		{"localhost on ::1", config.Daemon{Listen: "localhost:9820"}, tcp("::1"), false},
		{"localhost resolved elsewhere", config.Daemon{Listen: "localhost:9820"}, tcp("10.1.2.3"), true},
		{"elsewhere with a token", config.Daemon{Listen: "localhost:9820", TokenFile: "/t"}, tcp("10.1.2.3"), false},
		{"elsewhere with insecure_tcp", config.Daemon{Listen: "localhost:9820", InsecureTCP: true}, tcp("10.1.2.3"), false},
		{"unix socket", config.Daemon{Listen: "unix:///run/curio/cuzk.sock"}, &net.UnixAddr{Name: "/run/curio/cuzk.sock", Net: "unix"}, false},
	} {
		err := checkBound(tc.d, tc.bound)
		if tc.refused != (err != nil) || (err != nil && !errors.Is(err, config.ErrInsecureListener)) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
