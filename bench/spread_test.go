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
