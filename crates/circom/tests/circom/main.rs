//! The circom crate's file tests in one binary (one build of the prover
//! for both): `fixtures`, snarkjs fixtures proved and checked against
//! ark-groth16 and snarkjs; `bad_input`, truncated and corrupted files
//! rejected with an error naming what is wrong; `fullprove`, from
//! `input.json` to a verified proof (the witness calculator in Rust and
//! `zkaccel-prover fullprove`); `stream`, keys decoded chunk by chunk
//! ([`zkaccel_circom::ZkeyStream`]) against the whole-file reader. The
//! other command-line tests (`cli.rs`)
//! run only the `zkaccel-prover` binary and stay apart.

#[path = "../support/mod.rs"]
mod support;

mod bad_input;
mod fixtures;
mod fullprove;
mod pages;
mod stream;
