// Package r1cs is the constraint-system API that cuzk circuits are written
// against, and the systems that consume what a circuit emits.
//
// It mirrors bellpepper-core's ConstraintSystem (crates/bellpepper-core/src/
// constraint_system.rs) and bellperson's ProvingAssignment and
// KeypairAssembly (src/groth16/prover/mod.rs, src/groth16/generator.rs):
//
//   - Variables are inputs or auxiliaries; input 0 is the constant ONE and is
//     allocated by [New] before a circuit runs, as bellperson's prover does.
//   - A row is (A)·(B) = (C) over linear combinations. Row order and variable
//     order are part of the Groth16 parameters (the row index picks ω^row in
//     the QAP, the variable index picks the query point), so circuits must
//     emit them exactly in upstream order.
//   - [CS.Enforce] takes a closure that fills the three linear combinations.
//     Systems that do not need them (witness-only, counting) never call it, so
//     a witness-only synthesis pays nothing for building them. CS is a concrete
//     type so that the closure does not escape and costs no allocation.
//
// Before a row reaches a [Sink], each linear combination is canonicalised:
// repeated variables are merged and terms whose net coefficient is zero are
// dropped. This is exactly what bellperson's density trackers observe
// (a variable is dense only if its merged coefficient is non-zero), and it is
// the form the R1CS digests in [Recorder] are defined on.
//
// Field elements are gnark-crypto fr.Element (Montgomery form). Where bytes
// are involved (digests), Fr is written as its 32-byte little-endian
// canonical representation, Filecoin's convention.
package r1cs
