//! Fast zk-SNARK proving for arkworks and circom: multi-scalar
//! multiplication and NTTs on the CPU (x86-64 assembly, AVX-512 IFMA lanes)
//! and the GPU, and drop-ins that keep arkworks' and snarkjs' keys and give
//! byte-identical proofs.
//!
//! This crate re-exports the workspace's crates as modules ([`circom`],
//! [`groth16`], [`curves`], [`pcs`], [`bulletproofs`], [`cpu`], [`ntt`], [`dbc`], [`cuda`], and
//! `witness` with the feature of that name); the
//! README's crate table says what each gives.
//!
//! ```
//! use ark_bn254::{Bn254, Fr};
//! use ark_snark::SNARK;
//! use rand::SeedableRng;
//! use zkaccel::groth16::{circuits::MimcChain, Groth16};
//!
//! let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
//! let circuit = MimcChain::new(Fr::from(3u64), 64);
//! let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng).unwrap();
//! // The same proof ark_groth16::Groth16::<Bn254>::prove gives for this RNG.
//! let proof = Groth16::<Bn254>::prove(&pk, circuit.clone(), &mut rng).unwrap();
//! assert!(Groth16::<Bn254>::verify(&vk, &circuit.public_inputs(), &proof).unwrap());
//! ```
//!
//! The guides (circom, Groth16, curve types, MSM, NTT, chains, CUDA,
//! results) are in the repository's
//! [`docs/`](https://github.com/zkaccel/zkaccel/tree/main/docs) folder.
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

/// circom's wasm witness calculator run in-process: `input.json` to a
/// witness, `.wtns` export (crate `zkaccel-witness`, feature `witness`:
/// it builds wasmtime). `circom::CircomProver::prove_inputs` proves from it.
#[cfg(feature = "witness")]
pub use zkaccel_witness as witness;

/// BN254 and BLS12-381 group and pairing types for arkworks' traits with
/// zkaccel's MSM and scalar multiplication ([`zkaccel_curves`]): swap
/// `ark_bn254::Bn254` for `zkaccel::curves::bn254::Bn254`.
pub use zkaccel_curves as curves;

/// Linear-code polynomial commitments for unmodified ark-poly-commit:
/// Ligero's encoder on zkaccel's NTT, a faster byte-identical column
/// hasher, and the Merkle-path check stock verification leaves out
/// ([`zkaccel_pcs`]).
pub use zkaccel_pcs as pcs;

/// Bulletproofs on secp256k1 in secp256k1-zkp's (Grin's) format: its
/// generators and Pedersen commitments, byte-compatible
/// ([`zkaccel_bulletproofs`]).
pub use zkaccel_bulletproofs as bulletproofs;
