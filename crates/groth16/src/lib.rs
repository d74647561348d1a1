//! Drop-in faster Groth16 for arkworks.
//!
//! Two ways in, both keeping ark-groth16's keys and proofs:
//!
//! 1. **NTT only, no other change**: `ark_groth16::Groth16::<E, NttReduction>`
//!    ([`NttReduction`]) runs the witness map's seven transforms on zkaccel's
//!    NTT; everything else is ark-groth16.
//! 2. **Everything**: [`Groth16<E>`] implements `ark_snark::SNARK` with
//!    `ProvingKey = ark_groth16::ProvingKey<E>`, `Proof = ark_groth16::Proof<E>`
//!    and ark-groth16's verifying keys; its prover runs the witness map on
//!    zkaccel's NTT and the five multi-scalar multiplications (A, B in G1 and
//!    G2, L, H) on zkaccel's MSM. With the same RNG its proofs are
//!    byte-identical to ark-groth16's.
//!
//! ```
//! use ark_bn254::{Bn254, Fr};
//! use ark_snark::SNARK;
//! use rand::SeedableRng;
//! use zkaccel_groth16::{circuits::MimcChain, Groth16};
//!
//! let circuit = MimcChain::<Fr>::new(Fr::from(7u64), 300);
//! let public = circuit.public_inputs();
//! let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(0);
//! let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng)?;
//! let proof = Groth16::<Bn254>::prove(&pk, circuit, &mut rng)?;
//! assert!(Groth16::<Bn254>::verify(&vk, &public, &proof)?);
//! # Ok::<(), zkaccel_groth16::Groth16Error>(())
//! ```
//!
//! Errors are [`Groth16Error`]s with a message: an unsatisfied circuit, a key
//! made for another circuit, or a wrong number of public inputs never yields a
//! proof (or a verdict) that fails later without explanation.

#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod backend;
#[cfg(feature = "circuits")]
pub mod circuits;
pub mod clock;
mod error;
mod matrix;
mod pairing;
mod prover;
mod reduction;

pub use backend::{Backend, BackendChoice, BACKEND_ENV};
pub use error::Groth16Error;
pub use matrix::{ConstraintMatrix, CsrMatrix, MatrixError};
pub use pairing::{
    AccelPairing, PairingQuotientMsmFn, QuotientMsmFn, QuotientOffloadFn, ResidentBases,
};
pub use prover::{
    Groth16, KeyQuery, MatrixWitness, PreparedProvingKey, ProofPart, ProofSums, ProofTimings,
    ProvingKeyRef, ReleaseQuery, ResidentKey,
};
pub use reduction::{snarkjs_root_exponent, CircomReduction, NttReduction, Qap};
