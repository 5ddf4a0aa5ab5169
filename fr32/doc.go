// Package fr32 holds Filecoin's byte conventions for BLS12-381 scalars.
//
// Filecoin stores every field element ("Fr32", a Merkle node, a commitment, a
// replica id) as 32 little-endian bytes of the canonical integer, the layout of
// blstrs' to_repr. gnark-crypto's fr.Element.SetBytes/Bytes are big-endian and
// SetBytes silently reduces modulo r, so this package is the one place where
// Filecoin bytes become fr.Element values: [ToElement] rejects values >= r, as
// rust-fil-proofs' bytes_into_fr (blstrs from_repr_vartime) does.
//
// Raw sector data is made field-safe by fr32 padding: the data is read as one
// little-endian bit stream (bit i of byte j is stream bit 8j+i) and two zero bits
// are inserted after every 254 data bits, so each 32-byte output element is below
// 2^254 < r. 127 raw bytes (1016 bits = 4 x 254) become exactly 128 padded bytes,
// which is why piece sizes come in 127/128 pairs.
//
// Upstream: rust-fil-proofs fr32/src/convert.rs (bytes_into_fr,
// bytes_into_fr_repr_safe), fr32/src/padding.rs (to_padded_bytes,
// to_unpadded_bytes, write_unpadded) and fr32/src/reader.rs (Fr32Reader).
package fr32
