package bench

import (
	"reflect"
	"testing"
)

func TestSpread(t *testing.T) {
	results := []Result{
		{Daemon: "a", Status: StatusCompleted},
		{Daemon: "b", Status: StatusCompleted, Moved: []string{"c"}},
		{Daemon: "b", Status: StatusFailed},
		{Daemon: "a", Status: StatusCompleted, Moved: []string{"c", "b"}},
		{Status: StatusRejected}, // never placed
	}
	got := Spread(nil, results)
	want := []DaemonStats{
		{Addr: "a", Jobs: 2, Completed: 2},
		{Addr: "c", MovedAway: 2},
		{Addr: "b", Jobs: 2, Completed: 1, MovedAway: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%+v\nwant %+v", got, want)
	}
	if s := MaxShare(got); s != 0.5 {
		t.Fatalf("max share %v", s)
	}
	if s := MaxShare(nil); s != 0 {
		t.Fatalf("max share of nothing %v", s)
	}
}

func TestAddMoved(t *testing.T) {
	for _, tc := range []struct{ moved, tried, want []string }{
		{nil, nil, nil},
		{nil, []string{"a", "b"}, []string{"a", "b"}},
		// Lost with a, then refused by a (draining) on the way elsewhere.
		{[]string{"a"}, []string{"a"}, []string{"a"}},
		{[]string{"a"}, []string{"b", "a"}, []string{"a", "b", "a"}},
		{[]string{"a", "b"}, []string{"b", "b", "c"}, []string{"a", "b", "c"}},
	} {
		if got := addMoved(append([]string(nil), tc.moved...), tc.tried); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("addMoved(%q, %q) = %q, want %q", tc.moved, tc.tried, got, tc.want)
		}
	}
}
