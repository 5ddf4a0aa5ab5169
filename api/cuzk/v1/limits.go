package cuzkv1

// MaxMessageSize is the Go client's gRPC send and receive limit, as
// Curio's client sets it (gRPC's default is 4 MiB). The daemon receives
// at most server.MaxRecvMsgSize (128 MiB), twice the largest request. The largest requests Curio sends are a 32 GiB PoRep C1 (about
// 50 MB) and a full 32 GiB WindowPoSt partition, 2,349 sectors of 24,960
// bytes (58.6 MB on the wire; server's TestWindowPoStPartitionMessageSize
// sends one).
const MaxMessageSize = 256 << 20
