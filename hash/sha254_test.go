package hash

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

func TestSha254(t *testing.T) {
	// sha256("abc") = ba7816bf...f20015ad; the last byte 0xad & 0x3f = 0x2d.
	got := Sha254([]byte("a"), []byte("bc"))
	want, _ := hex.DecodeString("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f200152d")
	if !bytes.Equal(got[:], want) {
		t.Fatalf("Sha254(abc) = %x", got)
	}
	if got := Sha254(); got[31] != sha256.Sum256(nil)[31]&0x3f {
		t.Fatalf("Sha254() = %x", got)
	}
}

func TestSha254Pair(t *testing.T) {
	var l, r [32]byte
	for i := range l {
		l[i], r[i] = byte(i), byte(0xff-i)
	}
	got := Sha254Pair(&l, &r)
	if want := Sha254(l[:], r[:]); got != want {
		t.Fatalf("Sha254Pair differs from Sha254(l||r)")
	}
	full := sha256.Sum256(append(l[:], r[:]...))
	if got[31] != full[31]&0x3f || !bytes.Equal(got[:31], full[:31]) {
		t.Fatalf("Sha254Pair is not sha256 with the top two bits cleared")
	}
	if got[31]&0xc0 != 0 {
		t.Fatalf("top bits not cleared: %x", got)
	}
}

func BenchmarkSha254Pair(b *testing.B) {
	var l, r [32]byte
	b.SetBytes(64)
	for b.Loop() {
		l = Sha254Pair(&l, &r)
	}
}
