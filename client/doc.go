// Package client is the Go client of the cuzk daemon (cuzk.v1
// ProvingEngine), used by `cuzk bench` and the tests. It dials the same
// address forms the daemon listens on, raises gRPC's message limits to
// 256 MiB as Curio does (the daemon takes up to 128 MiB), and turns a proof that did not complete into an error
// (*JobError) the way Curio's lib/cuzk does. Credentials (a bearer token
// file, TLS with a CA and a client certificate) are for a daemon that
// authenticates its callers (docs/security.md); DialWith applies them.
//
// One address talks to that daemon alone, as Curio's client does. Several
// (a comma-separated list, DialDaemons, or a dns: name with several
// records) are balanced with gRPC's own machinery: a resolver (manual for a
// list, DNS for a name), the cuzk_least_loaded balancing policy built on
// balancer/base with gRPC health checking, a producer per sub-connection
// that polls GetStatus, and a unary interceptor that keeps calls about a
// job on the daemon that holds it and sends a refused Prove or SubmitProof
// on to the next daemon. docs/balancing.md describes the rules.
package client
