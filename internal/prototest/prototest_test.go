package prototest

import (
	"testing"
)

// Every field of the request is set, so a copy that drops one differs.
func TestFullRequestSetsEveryField(t *testing.T) {
	m := FullRequest(t, "p-").ProtoReflect()
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		if fd := fields.Get(i); !m.Has(fd) {
			t.Errorf("field %s not set", fd.Name())
		}
	}
	if fields.Len() == 0 {
		t.Fatal("no fields")
	}
}
