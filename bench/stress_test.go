package bench

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/proofkind"
)

func TestParseMix(t *testing.T) {
	mix, err := ParseMix("porep=2/m, test=1.5/s,winning-post=36/h")
	if err != nil {
		t.Fatal(err)
	}
	want := []Rate{{proofkind.PoRep, 2.0 / 60, "2/m"}, {proofkind.Test, 1.5, "1.5/s"}, {proofkind.WinningPoSt, 0.01, "36/h"}}
	if len(mix) != len(want) {
		t.Fatalf("%+v", mix)
	}
	for i := range want {
		if mix[i].Kind != want[i].Kind || math.Abs(mix[i].PerSecond-want[i].PerSecond) > 1e-12 || mix[i].Text != want[i].Text {
			t.Errorf("%d: %+v, want %+v", i, mix[i], want[i])
		}
	}
	for _, bad := range []struct{ in, want string }{
		{"porep=2", "needs a unit"},
		{"porep", "TYPE=RATE"},
		{"pore=2/s", "unknown proof kind"},
		{"porep=-1/s", "positive"},
		{"porep=x/s", "positive"},
		{"porep=1/d", "unit must be"},
		{"test=1/s,test=2/s", "twice"},
		{"", "empty"},
	} {
		_, err := ParseMix(bad.in)
		if !errors.Is(err, ErrBadMix) || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: %v, want %q", bad.in, err, bad.want)
		}
	}
}

func TestScheduleFixed(t *testing.T) {
	s := Schedule([]Rate{{Kind: proofkind.Test, PerSecond: 2}, {Kind: proofkind.PoRep, PerSecond: 1}}, 3*time.Second, Fixed, 0)
	var test, porep []time.Duration
	for _, a := range s {
		if a.Kind == proofkind.Test {
			test = append(test, a.At)
		} else {
			porep = append(porep, a.At)
		}
	}
	if !slices.Equal(test, ms(0, 500, 1000, 1500, 2000, 2500)) || !slices.Equal(porep, ms(0, 1000, 2000)) {
		t.Fatalf("test %v porep %v", test, porep)
	}
	if !slices.IsSortedFunc(s, func(a, b Arrival) int { return int(a.At - b.At) }) {
		t.Fatal("not in time order")
	}
}

func TestSchedulePoisson(t *testing.T) {
	mix := []Rate{{Kind: proofkind.Test, PerSecond: 100}, {Kind: proofkind.PoRep, PerSecond: 10}}
	d := 10 * time.Second
	a := Schedule(mix, d, Poisson, 7)
	b := Schedule(mix, d, Poisson, 7)
	if !slices.Equal(a, b) {
		t.Fatal("same seed, different schedules")
	}
	if slices.Equal(a, Schedule(mix, d, Poisson, 8)) {
		t.Fatal("different seeds, same schedule")
	}
	n := map[proofkind.Kind]int{}
	for i, x := range a {
		if x.At < 0 || x.At >= d || (i > 0 && x.At < a[i-1].At) {
			t.Fatalf("arrival %d at %v", i, x.At)
		}
		n[x.Kind]++
	}
	// Counts are Poisson(λ·d): 1000 ± 5·√1000 and 100 ± 5·√100.
	if math.Abs(float64(n[proofkind.Test])-1000) > 5*math.Sqrt(1000) || math.Abs(float64(n[proofkind.PoRep])-100) > 50 {
		t.Fatalf("counts %v", n)
	}
}

func TestParseArrivals(t *testing.T) {
	if a, err := ParseArrivals("Fixed"); err != nil || a != Fixed {
		t.Fatal(a, err)
	}
	if _, err := ParseArrivals("bursty"); err == nil {
		t.Fatal("accepted bursty")
	}
}

func TestKindStatsAccounted(t *testing.T) {
	k := KindStats{Submitted: 10, Rejected: 1, Completed: 6, Failed: 1, Cancelled: 1, Lost: 1}
	if !k.Accounted() {
		t.Fatal("balanced stats not accounted")
	}
	k.Completed--
	if k.Accounted() {
		t.Fatal("a missing job went unnoticed")
	}
}
