package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/client"
)

// TestStatusClientToken: with a token file the status client sends
// "Authorization: Bearer <token>"; without it the daemon's 401 is an error
// naming the status.
func TestStatusClientToken(t *testing.T) {
	const tok = "e9deaa0b968681adb282baff0b85058c"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+tok {
			http.Error(w, "unauthenticated", http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`{"uptime_ns": 1}`))
	}))
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("bench "+tok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	plain, err := NewStatusClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := plain.Status(context.Background()); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("without token: %v, want 401", err)
	}
	sc, err := NewStatusClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.WithCredentials(client.Credentials{TokenFile: file}); err != nil {
		t.Fatal(err)
	}
	if st, _, err := sc.Status(context.Background()); err != nil || st.Uptime != 1 {
		t.Fatalf("with token: %v %v", st, err)
	}
}
