//! Proving circom circuits on zkaccel: the same `.zkey` and `.wtns` files
//! snarkjs and rapidsnark take, the same proofs out.
//!
//! - [`CircomReduction`]: the R1CS-to-QAP reduction snarkjs keys are made
//!   for, on zkaccel's NTT. `ark_groth16::Groth16::<Bn254, CircomReduction>`
//!   is a drop-in where ark-circom users write ark-circom's type of the same
//!   name.
//! - [`CircomProver`]: decodes a zkey once ([`read_zkey`], sections in
//!   parallel) and proves from witnesses with zkaccel's MSM and NTT, no
//!   circuit synthesis, on the backend asked for.
//! - snarkjs' files: [`read_zkey`] / [`write_zkey`], [`read_wtns`] /
//!   [`write_wtns`], [`read_r1cs`] (and [`R1cs::check_witness`]), and the
//!   JSON files ([`proof_json`], [`public_json`], [`vkey_json`] and their
//!   readers), written byte for byte as snarkjs writes them.
//! - [`export_circuit`]: any arkworks circuit as a zkey and wtns that
//!   snarkjs and rapidsnark prove (keys for tests and benchmarks only).
//! - From `input.json` (feature `witness`): [`CircomProver::with_calculator`]
//!   holds the circuit's compiled `circuit.wasm` and
//!   [`CircomProver::prove_inputs`] computes the witness in-process;
//!   [`native_witness`] runs circom's C++ generator instead.
//! - The binary `zkaccel-prover`, with rapidsnark's arguments:
//!   `zkaccel-prover circuit.zkey witness.wtns proof.json public.json`, and
//!   snarkjs' `fullprove input.json circuit.wasm circuit.zkey proof.json
//!   public.json` and `wtns calculate circuit.wasm input.json out.wtns`.
//!
//! ```
//! use ark_bn254::{Bn254, Fr};
//! use rand::SeedableRng;
//! use zkaccel_circom::{export_circuit, read_wtns, CircomProver, ZkeyOptions};
//! use zkaccel_groth16::{circuits::MimcChain, Backend};
//!
//! // An arkworks circuit as snarkjs files (test keys only).
//! let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(0);
//! let files = export_circuit::<Bn254, _, _>(MimcChain::<Fr>::new(Fr::from(7u64), 50), &mut rng)?;
//! // What a rapidsnark user has: a zkey and a wtns.
//! let prover = CircomProver::<Bn254>::from_zkey_bytes(&files.zkey, Backend::Cpu, ZkeyOptions::default())?;
//! let witness = read_wtns(&files.wtns)?;
//! let out = prover.prove(&witness, &mut rng)?;
//! assert!(prover.verify(&out.proof, &out.public)?);
//! # Ok::<(), zkaccel_circom::CircomError>(())
//! ```
//!
//! Trust: a zkey's points are range-checked but not checked on the curve
//! unless asked ([`ZkeyOptions::check_points`]); see SECURITY.md.

#![warn(missing_docs)]
// Unsafe code only in `points` (the mapped key), which allows it.
#![deny(unsafe_code)]

mod binfile;
mod curve;
mod error;
mod export;
#[cfg(feature = "witness")]
mod inputs;
mod json;
mod native;
mod points;
mod prover;
mod r1cs;
#[cfg(feature = "serve")]
mod serve;
mod wtns;
mod zkey;

pub use curve::{CircomCurve, Curve};
pub use error::{CircomError, FileKind};
pub use export::{export_circuit, setup_r1cs, Exported, R1csCircuit};
pub use json::{
    json_curve, proof_json, public_json, read_proof_json, read_public_json, read_vkey_json,
    vkey_json,
};
pub use native::{native_witness, native_witness_of};
pub use points::ZkeyMap;
pub use prover::{verify, CircomProof, CircomProver};
pub use r1cs::{read_r1cs, Lc, R1cs};
#[cfg(feature = "serve")]
pub use serve::ServedCircuit;
pub use wtns::{read_wtns, write_wtns};
pub use zkaccel_groth16::CircomReduction;
pub use zkaccel_groth16::{ConstraintMatrix, CsrMatrix};
#[cfg(feature = "serve")]
pub use zkaccel_service as service;
/// circom's wasm witness calculator (feature `witness`): `input.json` to a
/// witness in-process, for [`CircomProver::prove_inputs`].
#[cfg(feature = "witness")]
pub use zkaccel_witness as witness;
pub use zkey::{
    map_zkey, read_zkey, read_zkey_from, write_zkey, zkey_curve, zkey_curve_from,
    zkey_curve_prefix, KeyMatrix, ProverKey, Zkey, ZkeyHeader, ZkeyOptions, ZkeyStream,
};
