package daemon

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/config"
)

// TestJSONLogDurations: the JSON log gives durations in seconds with the
// unit in the key, at the top level and in groups; the text log keeps Go's
// duration strings.
func TestJSONLogDurations(t *testing.T) {
	var buf bytes.Buffer
	log, err := NewLogger(config.Logging{Level: "info", Format: "json"}, &buf)
	if err != nil {
		t.Fatal(err)
	}
	log.Info("x", "timeout", 30*time.Second, "wait_s", 1500*time.Millisecond, slog.Group("job", "queue_wait", 250*time.Millisecond), "n", 3, "total", 3236*time.Millisecond)
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, buf.String())
	}
	job, _ := got["job"].(map[string]any)
	if got["timeout_s"] != 30.0 || got["wait_s"] != 1.5 || job == nil || job["queue_wait_s"] != 0.25 || got["n"] != 3.0 {
		t.Errorf("JSON log %s", buf.String())
	}
	// Written as the decimal it is, not 3.2359999999999998.
	if !strings.Contains(buf.String(), `"total_s":3.236,`) && !strings.Contains(buf.String(), `"total_s":3.236}`) {
		t.Errorf("JSON log writes 3.236 s as %s", buf.String())
	}
	for _, k := range []string{"timeout", "wait_s_s", "queue_wait"} {
		if strings.Contains(buf.String(), `"`+k+`"`) {
			t.Errorf("JSON log has key %q: %s", k, buf.String())
		}
	}

	buf.Reset()
	if log, err = NewLogger(config.Logging{Level: "info"}, &buf); err != nil {
		t.Fatal(err)
	}
	log.Info("x", "timeout", 30*time.Second)
	if !strings.Contains(buf.String(), " timeout=30s") {
		t.Errorf("text log %q", buf.String())
	}
}
