package fr32_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/cuzk-dev/cuzk/fr32"
)

// Sector data is fr32-padded before it is sealed: every 254 bits take 256,
// so that each 32-byte word is a BLS12-381 scalar (its two top bits
// zero). A 2 KiB sector holds 2032 bytes of a client's data.
func Example() {
	raw := bytes.Repeat([]byte{0xff}, 2032)
	padded := make([]byte, fr32.PaddedSize(uint64(len(raw))))
	if err := fr32.Pad(padded, raw); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(raw), "raw bytes pad to", len(padded))
	fmt.Printf("word 0 ends %#02x: a scalar\n", padded[31])
	if _, err := fr32.ToElement([32]byte(padded[32:64])); err != nil {
		log.Fatal(err)
	}

	back := make([]byte, fr32.UnpaddedSize(uint64(len(padded))))
	if err := fr32.Unpad(back, padded); err != nil {
		log.Fatal(err)
	}
	fmt.Println("round trip:", bytes.Equal(back, raw))

	// Buffers must be whole 127-byte chunks.
	fmt.Println(fr32.Pad(make([]byte, 128), raw[:100]))
	// Output:
	// 2032 raw bytes pad to 2048
	// word 0 ends 0x3f: a scalar
	// round trip: true
	// pad 100 raw bytes into 128: fr32: buffer length is not a whole number of chunks
}
