package main

import (
	"encoding/json"
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
)

// preload --json and evict --json print what protojson prints of the
// proto answers (rpcJSON), field for field: a field added to the proto and
// forgotten here fails.
func TestPreloadEvictJSONIsTheWire(t *testing.T) {
	for _, c := range []struct {
		ours any
		wire proto.Message
	}{
		{preloadJSON{AlreadyLoaded: true, LoadTimeMs: 1234}, &cuzkv1.PreloadSrsResponse{AlreadyLoaded: true, LoadTimeMs: 1234}},
		{preloadJSON{}, &cuzkv1.PreloadSrsResponse{}},
		{evictJSON{WasLoaded: true, FreedBytes: 1 << 40}, &cuzkv1.EvictSrsResponse{WasLoaded: true, FreedBytes: 1 << 40}},
		{evictJSON{}, &cuzkv1.EvictSrsResponse{}},
	} {
		ours, err := json.Marshal(c.ours)
		if err != nil {
			t.Fatal(err)
		}
		wire, err := rpcJSON.Marshal(c.wire)
		if err != nil {
			t.Fatal(err)
		}
		var a, b map[string]any
		if err := json.Unmarshal(ours, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(wire, &b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%T prints %s, the wire's %s", c.ours, ours, wire)
		}
	}
}
