package procmem

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	u, err := Parse(strings.NewReader("Name:\tcuzk\nVmHWM:\t  2048 kB\nVmRSS:\t 1024 kB\nRssAnon:\t  1000 kB\nRssFile:\t 20 kB\nRssShmem:\t 4 kB\n"))
	if err != nil {
		t.Fatal(err)
	}
	if u != (Usage{RSS: 1024 << 10, Anon: 1000 << 10, File: 20 << 10, Shmem: 4 << 10, PeakRSS: 2048 << 10}) {
		t.Fatalf("%+v", u)
	}
	if _, err := Parse(strings.NewReader("VmRSS: 1 kB\n")); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("missing fields: %v", err)
	}
	if _, err := Parse(strings.NewReader("VmRSS: x kB\nVmHWM: 1 kB\nRssAnon: 1 kB\nRssFile: 1 kB\nRssShmem: 1 kB\n")); err == nil {
		t.Fatal("bad number accepted")
	}
}

// TestReadSeesAllocation: on Linux, touching 64 MiB shows in the anonymous
// RSS and the peak, and ResetPeak brings the peak back down once it is
// freed.
func TestReadSeesAllocation(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("linux only")
	}
	before, err := Read()
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 64<<20)
	for i := range b {
		b[i] = 1
	}
	after, err := Read()
	if err != nil {
		t.Fatal(err)
	}
	if after.Anon-before.Anon < 48<<20 || after.PeakRSS < after.RSS || after.RSS != after.Anon+after.File+after.Shmem {
		t.Fatalf("before %+v after %+v", before, after)
	}
	runtime.KeepAlive(b)
}

// TestRecorder: steps come back in order with their times and the memory
// seen while they ran.
func TestRecorder(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("linux only")
	}
	r := NewRecorder(5 * time.Millisecond)
	r.Step("small")
	time.Sleep(20 * time.Millisecond)
	r.Step("big")
	b := make([]byte, 32<<20)
	for i := range b {
		b[i] = 2
	}
	time.Sleep(20 * time.Millisecond)
	st := r.Stop()
	runtime.KeepAlive(b)
	if len(st) != 2 || st[0].Name != "small" || st[1].Name != "big" {
		t.Fatalf("%+v", st)
	}
	if st[1].PeakAnon-st[0].PeakAnon < 24<<20 || st[1].Wall < 20*time.Millisecond || st[1].CPU <= 0 || st[1].PeakRSS < st[1].PeakAnon {
		t.Fatalf("%+v", st)
	}
}
