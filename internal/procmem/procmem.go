// Package procmem reads this process's memory from /proc/self/status
// (Linux): resident memory split into anonymous (heap, what the Go runtime
// allocated) and file-backed (mapped files such as parameter files, which
// the kernel can drop and read again), and the peak of the resident total.
package procmem

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// Usage is a reading of /proc/self/status, in bytes.
type Usage struct {
	RSS     int64 // VmRSS: resident, all kinds
	Anon    int64 // RssAnon: anonymous resident memory
	File    int64 // RssFile: file-backed resident memory (mappings)
	Shmem   int64 // RssShmem
	PeakRSS int64 // VmHWM: the peak of VmRSS since start (or the last reset)
}

// ErrUnavailable is returned where /proc/self/status does not exist or
// lacks the fields (not Linux, or a kernel before 4.5).
var ErrUnavailable = errors.New("procmem: /proc/self/status has no RSS breakdown")

// Read returns the process's current usage.
func Read() (Usage, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return Usage{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return Parse(bytes.NewReader(b))
}

// Parse reads the fields of a /proc/<pid>/status text.
func Parse(r io.Reader) (Usage, error) {
	var u Usage
	fields := map[string]*int64{"VmRSS:": &u.RSS, "RssAnon:": &u.Anon, "RssFile:": &u.File, "RssShmem:": &u.Shmem, "VmHWM:": &u.PeakRSS}
	seen := 0
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) != 3 || string(f[2]) != "kB" {
			continue
		}
		dst, ok := fields[string(f[0])]
		if !ok {
			continue
		}
		kib, err := strconv.ParseInt(string(f[1]), 10, 64)
		if err != nil || kib < 0 {
			return Usage{}, fmt.Errorf("procmem: bad %s line %q", f[0], sc.Text())
		}
		*dst = kib << 10
		seen++
	}
	if err := sc.Err(); err != nil {
		return Usage{}, err
	}
	if seen < len(fields) {
		return Usage{}, ErrUnavailable
	}
	return u, nil
}

// ResetPeak resets VmHWM to the current RSS (writing 5 to
// /proc/self/clear_refs), so that the next Read's PeakRSS is the peak of
// what follows: how a stage's own peak is measured.
func ResetPeak() error {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}
