//! # zkaccel-curves
//!
//! Group and pairing types for BN254 and BLS12-381 that implement arkworks'
//! traits (`CurveGroup`, `AffineRepr`, `PrimeGroup`, `ScalarMul`,
//! `VariableBaseMSM`, `Pairing`, ark-serialize, ...) by delegating to the
//! arkworks types, except that multi-scalar multiplication and scalar
//! multiplication run on zkaccel. Swap one type name and unmodified generic
//! arkworks code (ark-groth16, polynomial commitments, your own) gets
//! zkaccel's MSM:
//!
//! ```
//! use ark_ec::{pairing::Pairing, CurveGroup, PrimeGroup, VariableBaseMSM};
//! use ark_std::UniformRand;
//! use zkaccel_curves::bn254::{Bn254, Fr, G1Projective};
//!
//! let mut rng = ark_std::test_rng();
//! let bases: Vec<_> = (0..100).map(|_| G1Projective::rand(&mut rng).into_affine()).collect();
//! let scalars: Vec<Fr> = (0..100).map(|_| Fr::rand(&mut rng)).collect();
//! // zkaccel's MSM, through arkworks' trait.
//! let sum = G1Projective::msm(&bases, &scalars).unwrap();
//! // The same point as arkworks' own types give, byte for byte.
//! let plain: Vec<ark_bn254::G1Affine> = bases.iter().map(|b| b.0).collect();
//! assert_eq!(sum.0, ark_bn254::G1Projective::msm(&plain, &scalars).unwrap());
//! // The pairing is arkworks' own.
//! let e = Bn254::pairing(G1Projective::generator(), <Bn254 as Pairing>::G2::generator());
//! assert_eq!(e.0, ark_bn254::Bn254::pairing(ark_bn254::G1Projective::generator(),
//!     ark_bn254::G2Projective::generator()).0);
//! ```
//!
//! Why a type of our own: arkworks' provers call
//! `VariableBaseMSM::msm_bigint`, a trait default on
//! `ark_ec::short_weierstrass::Projective<P>` that no curve configuration
//! can override (`SWCurveConfig::msm` is reached only by `msm`). The types
//! here are `#[repr(transparent)]` newtypes, so slices convert without
//! copying ([`inner_slice`], [`outer_slice`]), `From` converts single
//! points and serialization is byte-identical: keys, proofs and commitments
//! move between the two worlds as bytes or by `From`.
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod backend;
pub mod bls12_381;
pub mod bn254;
mod group;
mod pairing;

pub use backend::{set_backend, Backend};
pub use group::{inner_slice, outer_slice, Affine, Projective, Route};
