package server

import (
	"context"
	"fmt"
	"net/url"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// jobNamespace is the prefix of the engine job ids of the RPC's caller:
// "" for a caller no credential named (a unix socket, or a daemon without
// authentication), else the caller's name, escaped so it holds no '/',
// then '/'. Each authenticated caller so has its own request ids: it
// awaits and cancels only jobs it submitted, and two callers that send
// the same request id get two jobs, neither attached to the other's.
// Callers sharing one token share one namespace, as they share the trust.
func jobNamespace(ctx context.Context) string {
	c := Caller(ctx)
	if c == "" {
		return ""
	}
	return url.PathEscape(c) + "/"
}

// maxCircuitIDLen bounds a circuit id ("porep-32g", "test-k10", ...).
const maxCircuitIDLen = 64

// checkCircuitID refuses, before the engine sees it, anything PreloadSRS
// or EvictSRS get that is not shaped like a circuit id: lower-case letters
// and digits in groups joined by single '-'. That leaves no room for a
// path, a file name or a parent directory whatever locator the engine
// uses; ids of the right shape that no locator knows are refused by the
// engine (also InvalidArgument).
func checkCircuitID(id string) error {
	if id == "" {
		return status.Error(codes.InvalidArgument, "circuit_id is empty; want a circuit id such as \"porep-32g\"")
	}
	ok := len(id) <= maxCircuitIDLen && id[0] != '-' && id[len(id)-1] != '-'
	for i := 0; ok && i < len(id); i++ {
		c := id[i]
		ok = 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' && id[i-1] != '-'
	}
	if ok {
		return nil
	}
	shown := id
	if len(shown) > maxCircuitIDLen {
		shown = shown[:maxCircuitIDLen] + "..."
	}
	return status.Error(codes.InvalidArgument, fmt.Sprintf(
		"circuit_id %q is not a circuit id (lower-case letters and digits joined by '-', at most %d characters, such as \"porep-32g\"); paths and file names are not accepted",
		shown, maxCircuitIDLen))
}

// MaxIDLen bounds a request id and a job id, in bytes. Curio's longest
// ids are tens of bytes (wdpost-<miner>-<deadline>-[<partitions>],
// ps-snap-<miner>-<sector>-<task>); a bound keeps every log line, error,
// /status document and the engine's ring of recent jobs small whatever a
// caller sends (256 finished jobs × 256 bytes of id).
const MaxIDLen = 256

// checkID refuses an id (field names it: request_id, job_id) of more than
// MaxIDLen bytes or with a byte outside printable ASCII (0x20-0x7e),
// before it is logged, stored or echoed. Spaces and brackets are in
// range: Curio formats a WindowPoSt id from a byte slice with %d, which
// gives "wdpost-1000-0-[0 1 2 3 4 5 6 7]". The error quotes at most a
// short prefix of what was sent. "" passes: the engine names the job.
func checkID(field, id string) error {
	bad := -1
	for i := 0; i < len(id) && i <= MaxIDLen; i++ {
		if c := id[i]; c < 0x20 || c > 0x7e {
			bad = i
			break
		}
	}
	if bad < 0 && len(id) <= MaxIDLen {
		return nil
	}
	why := fmt.Sprintf("it is %d bytes long", len(id))
	if bad >= 0 {
		why = fmt.Sprintf("byte %d is %#02x", bad, id[bad])
	}
	const shown = 32
	prefix := id[:min(len(id), shown)]
	more := ""
	if len(id) > shown {
		more = "..."
	}
	return status.Error(codes.InvalidArgument, fmt.Sprintf(
		"%s %q%s (%d bytes) is not an id: %s; ids are at most %d bytes of printable ASCII (0x20-0x7e), such as \"porep-1000-7\"",
		field, prefix, more, len(id), why, MaxIDLen))
}
