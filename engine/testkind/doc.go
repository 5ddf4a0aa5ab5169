// Package testkind is the daemon's built-in test circuit kind: requests of
// proofkind.Test are proved with testcircuits.Mixed, a deterministic
// circuit of any power-of-two size, so the whole daemon (scheduling,
// batching, memory budget, self-check, gRPC) can be exercised without a
// Filecoin circuit or official parameters. The daemon registers it only
// with --enable-test-circuits.
//
// A test request:
//
//   - proof_kind = 1000 (proofkind.Test);
//   - registered_proof = k, the log2 of the circuit's rows (MinLog..MaxLog);
//     the circuit id is "test-k<k>";
//   - sector_size = 2^k (anything else is rejected, as a wrong sector size
//     is for a real proof);
//   - vanilla_proof = empty, or a JSON Options object (unknown fields are
//     an error).
//
// Parameters live in the parameter cache as cuzk-test-mixed-k<k>.params and
// .vk, with the ".INSECURE-TEST-PARAMETERS" marker beside them; WriteParams
// generates them with fixed, publicly known toxic waste.
package testkind
