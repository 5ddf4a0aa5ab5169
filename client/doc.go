// Package client is the Go client of the cuzk daemon (cuzk.v1
// ProvingEngine), used by `cuzk bench` and the tests. It dials the same
// address forms the daemon listens on, raises gRPC's message limits to the
// daemon's 256 MiB, and turns a proof that did not complete into an error
// (*JobError) the way Curio's lib/cuzk does. Credentials (a bearer token
// file, TLS with a CA and a client certificate) are for a daemon that
// authenticates its callers (docs/security.md); DialWith applies them.
package client
