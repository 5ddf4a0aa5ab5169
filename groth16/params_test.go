package groth16

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/internal/testcircuits"
)

func smallParams(t testing.TB) (*Params, []byte) {
	t.Helper()
	p, err := Setup(testcircuits.Mixed{Constraints: 200, Inputs: 2, Seed: 7}, fixedToxicWaste(), SetupOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := p.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return p, buf.Bytes()
}

func TestParamsFileRoundTrip(t *testing.T) {
	p, raw := smallParams(t)
	path := filepath.Join(t.TempDir(), "x.params")
	if err := WriteParamsFile(path, p); err != nil {
		t.Fatal(err)
	}
	got, err := LoadParamsFile(path, LoadOptions{SubgroupChecks: true, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	got.WriteTo(&buf)
	if !bytes.Equal(buf.Bytes(), raw) {
		t.Fatal("file round trip changed the bytes")
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Error("temporary file left behind")
	}
}

func TestParamsDecodeErrors(t *testing.T) {
	p, raw := smallParams(t)
	vkLen := int(p.VK.EncodedSize())
	hStart := vkLen + 4
	lStart := hStart + len(p.H)*G1Uncompressed + 4
	bg2Start := len(raw) - len(p.BG2)*G2Uncompressed

	cases := []struct {
		name    string
		mutate  func([]byte) []byte
		want    error
		mention string
	}{
		{"truncated in h", func(b []byte) []byte { return b[:hStart+5*G1Uncompressed+10] }, ErrTruncated, "h holds"},
		{"truncated in b_g2", func(b []byte) []byte { return b[:len(b)-1] }, ErrTruncated, "b_g2"},
		{"trailing byte", func(b []byte) []byte { return append(b, 0) }, ErrParamsFormat, "trailing"},
		{"l[5] off curve", func(b []byte) []byte { b[lStart+5*G1Uncompressed+60] ^= 1; return b }, ErrNotOnCurve, "l[5]"},
		{"b_g2[1] at infinity", func(b []byte) []byte {
			o := bg2Start + G2Uncompressed
			clear(b[o : o+G2Uncompressed])
			b[o] = 0x40
			return b
		}, ErrInfinity, "b_g2[1]"},
		{"h[0] compressed flag", func(b []byte) []byte { b[hStart] |= 0x80; return b }, ErrInvalidEncoding, "h[0]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.mutate(append([]byte(nil), raw...))
			_, err := DecodeParams(b, LoadOptions{Workers: 2})
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if !strings.Contains(err.Error(), c.mention) {
				t.Errorf("error %q does not mention %q", err, c.mention)
			}
		})
	}
}

// A point on the curve but outside the subgroup passes unchecked loading
// (as upstream's unchecked mmap loading does) and fails checked loading.
func TestParamsSubgroupCheck(t *testing.T) {
	p, _ := smallParams(t)
	bad := nonSubgroupG1(t)
	p.L[3] = bad
	var buf bytes.Buffer
	p.WriteTo(&buf)
	if _, err := DecodeParams(buf.Bytes(), LoadOptions{}); err != nil {
		t.Fatalf("unchecked load failed: %v", err)
	}
	_, err := DecodeParams(buf.Bytes(), LoadOptions{SubgroupChecks: true})
	if !errors.Is(err, ErrNotInSubgroup) || !strings.Contains(err.Error(), "l[3]") {
		t.Fatalf("checked load: %v", err)
	}
}

// TestParamsFileTruncatedWhileLoading: a parameter file that shrinks after
// it was mapped (another process rewriting the cache) makes the read fault;
// the load returns ErrFileChanged with the byte offset instead of the
// SIGBUS killing the process, whether the fault hits the goroutine reading
// the headers or a decoding worker.
func TestParamsFileTruncatedWhileLoading(t *testing.T) {
	p, raw := smallParams(t)
	page := os.Getpagesize()
	if len(raw) < 8*page {
		t.Fatalf("test parameters are %d bytes, want at least 8 pages", len(raw))
	}
	for _, tc := range []struct {
		name string
		size int
	}{
		{"headers", page},                         // the section lengths are past the end
		{"points", (len(raw)/page - 2) * page},    // b_g2's points are, its length is not
		{"last page", (len(raw)/page-1)*page - 1}, // only the tail
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.params")
			if err := WriteParamsFile(path, p); err != nil {
				t.Fatal(err)
			}
			data, unmap, err := mapFile(path)
			if err != nil {
				t.Fatal(err)
			}
			defer unmap()
			if err := os.Truncate(path, int64(tc.size)); err != nil {
				t.Fatal(err)
			}
			_, err = decodeMapped(path, data, LoadOptions{Workers: 3})
			if !errors.Is(err, ErrFileChanged) {
				t.Fatalf("got %v, want ErrFileChanged", err)
			}
			t.Log(err)
			// The loader keeps working for the next file.
			if _, err := LoadParamsFile(path, LoadOptions{}); err == nil || errors.Is(err, ErrFileChanged) {
				t.Fatalf("loading the truncated file afresh: %v, want a format error", err)
			}
		})
	}
}
