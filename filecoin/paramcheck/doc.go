// Package paramcheck verifies a directory of Groth16 parameter files
// against Filecoin's official parameter manifest: every file the manifest
// lists (or the ones a sector size needs) must be present and have the
// manifest's digest.
//
// The manifest (parameters.json, embedded, verbatim) is the official one
// for parameter version v28, the parameters.json rust-fil-proofs'
// paramfetch (and Lotus' and Curio's fetch-params) download by: file name
// → IPFS cid, digest, sector size. It is the one copy in this repository;
// the filecoin and srs tests derive file names against it.
//
// A digest is the first 16 bytes, as 32 lower-case hex characters, of the
// unkeyed BLAKE2b-512 hash of the whole file: rust-fil-proofs'
// fil-proofs-param get_digest_for_file (blake2b_simd::State::new(), hex,
// [..32]) and go-paramfetch's checkFile (blake2b.New512, sum[:16]) agree.
// It is not BLAKE2b-128, whose output length parameter changes every byte.
//
// Files are read in streaming fashion (a 32 GiB PoRep .params file is
// about 47 GB), with progress reported and the context checked between
// chunks. Test parameters made by cuzk (package testparams) carry an
// INSECURE-TEST-PARAMETERS marker file; a file whose digest does not match
// and has that marker is reported as test parameters rather than as a
// corrupt official file.
//
// With a sector size, Check looks at the .params and .vk files of that
// size: what proving and verifying its proofs need. paramfetch
// --params-for-sector-sizes (and go-paramfetch's GetParams) fetch every
// verifying key besides, but a directory set up for one size lacks the
// other sizes' keys without being wrong for that size.
//
// A Verifier does the digest check for the daemon: once per file path,
// size and modification time, with the digest recorded in RecordFile
// (.cuzk-verified.json) beside the file, or in memory where the directory
// cannot be written. Check records the digests it computes the same way
// when Options.Record is set.
package paramcheck
