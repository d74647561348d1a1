//! The circom crate's file tests in one binary (one build of the prover
//! for both): `fixtures`, snarkjs fixtures proved and checked against
//! ark-groth16 and snarkjs; `bad_input`, truncated and corrupted files
//! rejected with an error naming what is wrong. The command-line tests
//! (`cli.rs`) run the `zkaccel-prover` binary and stay apart.

#[path = "../support/mod.rs"]
mod support;

mod bad_input;
mod fixtures;
