package filecoin

// ProverID is the 32-byte prover_id of a miner actor id: the unsigned LEB128
// varint of the id (the payload of its f0 ID address), left-aligned in 32
// zero bytes (curio extern/cuzk make_prover_id). The id fits in at most 10
// varint bytes, so it always fits.
func ProverID(minerID uint64) [32]byte {
	var id [32]byte
	i := 0
	for minerID >= 0x80 {
		id[i] = byte(minerID) | 0x80
		minerID >>= 7
		i++
	}
	id[i] = byte(minerID)
	return id
}
