//! BLS12-381 with zkaccel's MSM and scalar multiplication: the drop-in for
//! `ark_bls12_381`'s group and pairing types.

pub use ark_bls12_381::{Fq, Fq12, Fq2, Fq6, Fr};

/// G1 in affine coordinates.
pub type G1Affine = crate::Affine<ark_bls12_381::g1::Config>;
/// G1 in Jacobian coordinates.
pub type G1Projective = crate::Projective<ark_bls12_381::g1::Config>;
/// G2 in affine coordinates.
pub type G2Affine = crate::Affine<ark_bls12_381::g2::Config>;
/// G2 in Jacobian coordinates.
pub type G2Projective = crate::Projective<ark_bls12_381::g2::Config>;

crate::pairing::accel_pairing!(
    Bls12_381,
    ark_bls12_381::Bls12_381,
    ark_bls12_381::g1::Config,
    ark_bls12_381::g2::Config,
    ark_ec::bls12::G1Prepared<ark_bls12_381::Config>,
    ark_ec::bls12::G2Prepared<ark_bls12_381::Config>,
    "The BLS12-381 pairing (`ark_bls12_381::Bls12_381`'s Miller loop and final exponentiation) over zkaccel's groups."
);
