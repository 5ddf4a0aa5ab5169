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
