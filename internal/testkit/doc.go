// Package testkit is the one test harness: what tests of several packages
// share instead of writing it again. It is imported by tests only (its
// functions take a testing.TB and fail it). The readers of the rustref
// golden files (JSON, base64 lists, hex field elements) are
// internal/golden's, which the circuit packages' own tests can import.
//
//   - params.go: the test circuits' parameters, generated once per
//     machine into a cache directory and shared by every test process
//     (TestParams, RunWithTestParams for a TestMain);
//   - engine.go: an engine over the CPU backend with the test kind and
//     whatever planners a test adds (Engine);
//   - fixtures.go: the sealed 2 KiB sector (SealedC1, with its public
//     inputs SealedPublic), sectors sealed or drawn in memory for PoSt and
//     SnapDeals (CCSector, RandomSector) and their vanilla proofs;
//   - buffer.go: a buffer safe for concurrent writes (logs a test reads);
//   - stubproof.go: Groth16 proofs bound to given public inputs, for
//     verifiers whose circuit is too large to prove in a unit test.
package testkit
