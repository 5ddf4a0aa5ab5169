package config

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// ErrNoMemTotal is returned when /proc/meminfo has no usable MemTotal line.
var ErrNoMemTotal = errors.New("no MemTotal in meminfo")

// MemTotalFunc reports the machine's total memory in bytes. ReadMemTotal is
// the real one; tests pass their own.
type MemTotalFunc func() (uint64, error)

// ReadMemTotal returns MemTotal from /proc/meminfo, in bytes. It works only
// on Linux; elsewhere it returns the error from opening the file.
func ReadMemTotal() (uint64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, fmt.Errorf("read total memory: %w", err)
	}
	defer f.Close()
	n, err := ParseMemInfo(f)
	if err != nil {
		return 0, fmt.Errorf("read total memory from /proc/meminfo: %w", err)
	}
	return n, nil
}

// ReadMemAvailable returns MemAvailable from /proc/meminfo, in bytes: the
// kernel's estimate of what can be allocated without swapping (free memory
// plus the page cache and slab it can reclaim).
func ReadMemAvailable() (uint64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, fmt.Errorf("read available memory: %w", err)
	}
	defer f.Close()
	n, err := parseMemInfoField(f, "MemAvailable:", ErrNoMemAvailable)
	if err != nil {
		return 0, fmt.Errorf("read available memory from /proc/meminfo: %w", err)
	}
	return n, nil
}

// ErrNoMemAvailable is returned when /proc/meminfo has no usable
// MemAvailable line (kernels before 3.14).
var ErrNoMemAvailable = errors.New("no MemAvailable in meminfo")

// ParseMemInfo reads text in /proc/meminfo format and returns MemTotal in
// bytes. The kernel reports the value in kB meaning KiB
// ("MemTotal:       263041396 kB"), which the Rust cuzk also multiplies by 1024.
func ParseMemInfo(r io.Reader) (uint64, error) {
	return parseMemInfoField(r, "MemTotal:", ErrNoMemTotal)
}

// parseMemInfoField returns the field with the given prefix, in bytes;
// missing or malformed, an error wrapping missing.
func parseMemInfoField(r io.Reader, prefix string, missing error) (uint64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), prefix)
		if !ok {
			continue
		}
		num, ok := strings.CutSuffix(strings.TrimSpace(rest), "kB")
		if !ok {
			return 0, fmt.Errorf("%w: line %q lacks the kB unit", missing, sc.Text())
		}
		kib, err := strconv.ParseUint(strings.TrimSpace(num), 10, 64)
		if err != nil || kib == 0 || kib > (1<<64-1)/1024 {
			return 0, fmt.Errorf("%w: bad value in %q", missing, sc.Text())
		}
		return kib * 1024, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, missing
}
