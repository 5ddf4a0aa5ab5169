package client

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCredentialsErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const tok = "e9deaa0b968681adb282baff0b85058c"
	for _, tc := range []struct {
		c    Credentials
		want string
	}{
		{Credentials{CAFile: write("notpem", "hello")}, "no PEM certificate"},
		{Credentials{CAFile: filepath.Join(dir, "missing")}, "no such file"},
		{Credentials{CertFile: write("c", "x")}, "needs both its certificate and its key file"},
		{Credentials{TokenFile: write("two", tok+"\n"+tok+"x\n")}, "holds 2 tokens"},
		{Credentials{TokenFile: write("short", "abc")}, "token is 3 characters"},
	} {
		if _, err := tc.c.DialOptions(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.c, err, tc.want)
		}
	}
	opts, err := Credentials{TokenFile: write("one", "curio "+tok+"\n")}.DialOptions()
	if err != nil || len(opts) != 1 {
		t.Fatalf("token only: %d options, %v", len(opts), err)
	}
	md, _ := bearerToken(tok).GetRequestMetadata(context.Background())
	if md["authorization"] != "Bearer "+tok {
		t.Errorf("metadata %v", md)
	}
	if (Credentials{}).TLS() || !(Credentials{CAFile: "x"}).TLS() || !(Credentials{CertFile: "x"}).TLS() {
		t.Error("TLS() wrong")
	}
}
