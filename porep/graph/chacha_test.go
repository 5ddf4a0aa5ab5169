package graph

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"testing"

	"golang.org/x/crypto/chacha20"
)

func blockBytes(key [32]byte, counter uint64, rounds int) []byte {
	var kw [8]uint32
	for i := range kw {
		kw[i] = binary.LittleEndian.Uint32(key[4*i:])
	}
	var out [16]uint32
	chachaBlock(&out, &kw, counter, rounds)
	b := make([]byte, 64)
	for i, w := range out {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

// TestChaCha8Vector checks TC1 of draft-strombergson-chacha-test-vectors:
// ChaCha8, 256-bit zero key, zero IV, first two blocks.
func TestChaCha8Vector(t *testing.T) {
	want, _ := hex.DecodeString(
		"3e00ef2f895f40d67f5bb8e81f09a5a12c840ec3ce9a7f3b181be188ef711a1e" +
			"984ce172b9216f419f445367456d5619314a42a3da86b001387bfdb80e0cfe42" +
			"d2aefa0deaa5c151bf0adb6c01f2a5adc0fd581259f9a2aadcf20f8fd566a26b" +
			"5032ec38bbc5da98ee0c6f568b872a65a08abf251deb21bb4b56e5d8821e68aa")
	var key [32]byte
	got := append(blockBytes(key, 0, 8), blockBytes(key, 1, 8)...)
	if !bytes.Equal(got, want) {
		t.Fatalf("ChaCha8 keystream\n got %x\nwant %x", got, want)
	}
}

// TestChaCha20MatchesXCrypto runs the same core with 20 rounds against
// golang.org/x/crypto/chacha20; with a zero nonce and a small counter the
// IETF layout equals the original 64-bit counter layout rand_chacha uses.
func TestChaCha20MatchesXCrypto(t *testing.T) {
	for seed := range 4 {
		var key [32]byte
		for i := range key {
			key[i] = byte(seed*37 + i*11)
		}
		c, err := chacha20.NewUnauthenticatedCipher(key[:], make([]byte, chacha20.NonceSize))
		if err != nil {
			t.Fatal(err)
		}
		want := make([]byte, 3*64)
		c.XORKeyStream(want, want)
		var got []byte
		for ctr := range uint64(3) {
			got = append(got, blockBytes(key, ctr, 20)...)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("key %x: ChaCha20 mismatch\n got %x\nwant %x", key, got, want)
		}
	}
}
