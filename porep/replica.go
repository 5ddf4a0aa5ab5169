package porep

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/hash"
)

// ReplicaID is generate_replica_id: sha256(prover_id || sector u64 BE ||
// ticket || comm_d || porep_id) with the top two bits cleared, read as a
// little-endian field element (always canonical).
func ReplicaID(proverID [32]byte, sector uint64, ticket, commD, porepID [32]byte) [32]byte {
	h := sha256.New()
	h.Write(proverID[:])
	var s [8]byte
	binary.BigEndian.PutUint64(s[:], sector)
	h.Write(s[:])
	h.Write(ticket[:])
	h.Write(commD[:])
	h.Write(porepID[:])
	var id [32]byte
	h.Sum(id[:0])
	fr32.TrimToFr32(&id)
	return id
}

// LabelHeaderSize is the size of the label preimage before the parents:
// replica_id, layer (u32 BE), node (u64 BE) and 20 zero bytes.
const LabelHeaderSize = 64

// LabelHeader writes the first LabelHeaderSize bytes of a label preimage
// into dst.
func LabelHeader(dst *[LabelHeaderSize]byte, replicaID *[32]byte, layer uint32, node uint64) {
	copy(dst[:32], replicaID[:])
	binary.BigEndian.PutUint32(dst[32:36], layer)
	binary.BigEndian.PutUint64(dst[36:44], node)
	clear(dst[44:])
}

// Label is the SDR label of node in layer (1-based) given its 37 parent
// labels (LabelingProof::create_label): sha256(header || parents) with the
// top two bits cleared. Node 0 has no parents: its label hashes the header
// alone, and parents must be empty.
func Label(replicaID *[32]byte, layer uint32, node uint64, parents [][32]byte) [32]byte {
	var hdr [LabelHeaderSize]byte
	LabelHeader(&hdr, replicaID, layer, node)
	h := sha256.New()
	h.Write(hdr[:])
	for i := range parents {
		h.Write(parents[i][:])
	}
	var out [32]byte
	h.Sum(out[:0])
	fr32.TrimToFr32(&out)
	return out
}

// ColumnHash is hash_single_column: Poseidon with arity len(rows) over the
// labels of one node, layer 1 first.
func ColumnHash(rows []fr.Element) fr.Element {
	return hash.Poseidon(len(rows)).Hash(rows)
}

// Encode is the replica node: key (the last layer's label) plus the data
// node, in the field (encode.rs).
func Encode(key, data fr.Element) fr.Element {
	var out fr.Element
	out.Add(&key, &data)
	return out
}
