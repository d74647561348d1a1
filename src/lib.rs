#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// Double-base chains, recodings and their cost model ([`zkaccel_dbc`]).
pub use zkaccel_dbc as dbc;

/// Point formulas and scalar multiplication on the CPU ([`zkaccel_cpu`]).
pub use zkaccel_cpu as cpu;

/// Number-theoretic transforms and the arkworks `EvaluationDomain` ([`zkaccel_ntt`]).
pub use zkaccel_ntt as ntt;

/// Drop-in Groth16: `NttReduction` and the zkaccel prover ([`zkaccel_groth16`]).
pub use zkaccel_groth16 as groth16;

/// The CUDA backend: kernels, their host emulation, `CudaMsm` (zkaccel-cuda;
/// drives a GPU with the feature `cuda`).
pub use zkaccel_cuda as cuda;

/// Proving circom circuits from snarkjs `.zkey` / `.wtns` files: `CircomReduction`,
/// the file formats, `CircomProver` (crate `zkaccel-circom`).
pub use zkaccel_circom as circom;
/// BN254 and BLS12-381 group and pairing types for arkworks' traits with
/// zkaccel's MSM and scalar multiplication ([`zkaccel_curves`]): swap
/// `ark_bn254::Bn254` for `zkaccel::curves::bn254::Bn254`.
pub use zkaccel_curves as curves;
