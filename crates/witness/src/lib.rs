//! circom's WebAssembly witness calculator run in-process: a circuit's
//! `circuit_js/circuit.wasm` and its `input.json` in, the witness out, as
//! field elements straight into a prover (no `.wtns` round trip) or as the
//! `.wtns` file `snarkjs wtns calculate` writes, byte for byte.
//!
//! - [`WitnessCalculator`]: the module compiled once (wasmtime's Cranelift),
//!   a fresh instance per witness; [`WitnessCalculator::calculate`] and
//!   [`WitnessCalculator::calculate_wtns`]; compiled modules optionally kept
//!   on disk between runs, and time limits ([`CalculatorOptions`]).
//! - [`Inputs`]: `input.json` read as circom's calculator reads it (keys in
//!   file order, arrays row-major, objects as bus fields, decimal and hex
//!   strings, negative values as `p - x`).
//! - [`WitnessError`]: every bad module, bad input and failed circuit check,
//!   in snarkjs' words with the signal named; never a panic.
//!
//! ```no_run
//! use zkaccel_witness::{Inputs, WitnessCalculator};
//! let calc = WitnessCalculator::from_file("circuit_js/circuit.wasm")?;
//! let witness: Vec<ark_bn254::Fr> = calc.calculate(&Inputs::from_file("input.json")?)?;
//! std::fs::write("witness.wtns", calc.calculate_wtns(&Inputs::from_file("input.json")?)?)
//!     .unwrap();
//! # Ok::<(), zkaccel_witness::WitnessError>(())
//! ```
//!
//! Trust: the module is code from the circuit's author, run sandboxed by
//! wasmtime (it reaches nothing but its own memory, the four logging and
//! error functions above, and the host's field product, which reads and
//! writes that memory only); a module that never returns is not stopped.

#![warn(missing_docs)]
#![deny(unsafe_code)]

mod cache;
mod calculator;
mod error;
mod input;
mod native;
mod wtns;

pub use cache::default_cache_dir;
pub use calculator::{CalculatorOptions, WitnessCalculator};
pub use error::WitnessError;
pub use input::Inputs;
/// The integers [`Inputs::set`] takes.
pub use num_bigint;
