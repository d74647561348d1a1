//! arkworks' own test templates (ark-algebra-test-templates 0.6, as
//! ark-bn254 and ark-bls12-381 run them on their types) on zkaccel's types:
//! group laws, serialization, MSM (including arkworks' mixed-width,
//! chunked and hash-map Pippenger tests against a naive sum), cofactor and
//! short-Weierstrass properties, and bilinearity of the pairings.

mod bn254 {
    use ark_algebra_test_templates::*;
    use zkaccel_curves::bn254::{G1Projective, G2Projective};
    test_group!(g1; G1Projective; sw);
    test_group!(g2; G2Projective; sw);
    test_pairing!(pairing; zkaccel_curves::bn254::Bn254);
}

mod bls12_381 {
    use ark_algebra_test_templates::*;
    use zkaccel_curves::bls12_381::{G1Projective, G2Projective};
    test_group!(g1; G1Projective; sw);
    test_group!(g2; G2Projective; sw);
    test_pairing!(pairing; zkaccel_curves::bls12_381::Bls12_381);
}
