package fr32

import (
	"errors"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// ErrNonCanonical is returned when 32 bytes' little-endian value is not below
// the scalar field modulus r.
var ErrNonCanonical = errors.New("fr32: bytes are not a canonical field element")

// ToElement reads 32 little-endian bytes as a field element. Values >= r are
// rejected with ErrNonCanonical rather than reduced, so that a node that
// upstream would refuse is never silently accepted here.
func ToElement(b [32]byte) (fr.Element, error) {
	e, err := fr.LittleEndian.Element(&b)
	if err != nil {
		return fr.Element{}, ErrNonCanonical
	}
	return e, nil
}

// FromElement writes e as 32 little-endian bytes (always canonical).
func FromElement(e *fr.Element) [32]byte {
	var b [32]byte
	fr.LittleEndian.PutElement(&b, *e)
	return b
}

// TrimToFr32 clears the two most significant bits of b, which makes any 32
// bytes a canonical element below 2^254 < r. Filecoin applies it to every
// SHA-256 digest it uses as a field element (SHA-254) and to replica ids
// (bytes_into_fr_repr_safe).
func TrimToFr32(b *[32]byte) {
	b[31] &= 0x3f
}
