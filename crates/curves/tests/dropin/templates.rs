//! arkworks' own test templates (ark-algebra-test-templates 0.6, as
//! ark-bn254 and ark-bls12-381 run them on their types) on zkaccel's types:
//! group laws, serialization, MSM (including arkworks' mixed-width,
//! chunked and hash-map Pippenger tests against a naive sum), cofactor and
//! short-Weierstrass properties, and bilinearity of the pairings.

// The G2 groups run 100 iterations of each property test, G1 arkworks'
// default of 500: a G2 scalar multiplication costs several G1 ones, and at
// 500 BLS12-381 G2's `test_mul_properties` alone took 46 s of the test
// command (one thread, 2-core CI machine); 100 random cases per property
// keep the group laws covered.

mod bn254 {
    use ark_algebra_test_templates::*;
    use zkaccel_curves::bn254::{G1Projective, G2Projective};
    test_group!(g1; G1Projective; sw);
    test_group!(100; g2; G2Projective; sw);
    test_pairing!(pairing; zkaccel_curves::bn254::Bn254);
}

mod bls12_381 {
    use ark_algebra_test_templates::*;
    use zkaccel_curves::bls12_381::{G1Projective, G2Projective};
    test_group!(g1; G1Projective; sw);
    test_group!(100; g2; G2Projective; sw);
    test_pairing!(pairing; zkaccel_curves::bls12_381::Bls12_381);
}
