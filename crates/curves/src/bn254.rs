//! BN254 (alt_bn128) with zkaccel's MSM and scalar multiplication: the
//! drop-in for `ark_bn254`'s group and pairing types.

pub use ark_bn254::{Fq, Fq12, Fq2, Fq6, Fr};

/// G1 in affine coordinates.
pub type G1Affine = crate::Affine<ark_bn254::g1::Config>;
/// G1 in Jacobian coordinates.
pub type G1Projective = crate::Projective<ark_bn254::g1::Config>;
/// G2 in affine coordinates.
pub type G2Affine = crate::Affine<ark_bn254::g2::Config>;
/// G2 in Jacobian coordinates.
pub type G2Projective = crate::Projective<ark_bn254::g2::Config>;

crate::pairing::accel_pairing!(
    Bn254,
    ark_bn254::Bn254,
    ark_bn254::g1::Config,
    ark_bn254::g2::Config,
    ark_ec::bn::G1Prepared<ark_bn254::Config>,
    ark_ec::bn::G2Prepared<ark_bn254::Config>,
    "The BN254 pairing (`ark_bn254::Bn254`'s Miller loop and final exponentiation) over zkaccel's groups."
);
