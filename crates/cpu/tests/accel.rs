//! `Projective<Accel<P>>` against `Projective<P>`: products and serialization.

use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::{AffineRepr, CurveGroup, PrimeGroup};
use ark_ff::UniformRand;
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize, Compress, Validate};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use zkaccel_cpu::accel::{from_inner, to_inner};
use zkaccel_cpu::{mul_scalar, Accel, CurveMul, ScalarMulMethod};

fn check<P: CurveMul>() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    for _ in 0..8 {
        let k = P::ScalarField::rand(&mut rng);
        let p = Projective::<P>::generator() * P::ScalarField::rand(&mut rng);
        let pa: Projective<Accel<P>> = from_inner(&p.into_affine()).into();
        // `*` reaches `mul_projective`, `mul_bigint` too; both must agree with P.
        assert_eq!(to_inner(&(pa * k).into_affine()), (p * k).into_affine());
        let affine_product: Projective<Accel<P>> = pa.into_affine() * k;
        assert_eq!(
            to_inner(&affine_product.into_affine()),
            (p * k).into_affine()
        );
        // zkaccel's own entry point on the wrapped curve, every method.
        for m in [
            ScalarMulMethod::Auto,
            ScalarMulMethod::Naf,
            ScalarMulMethod::Wnaf(5),
            ScalarMulMethod::Dbc { delta: 1 },
        ] {
            let got = mul_scalar(&pa, &k, m).unwrap();
            assert_eq!(to_inner(&got.into_affine()), (p * k).into_affine(), "{m:?}");
        }
        // Serialization is byte-identical, both ways, compressed or not.
        for compress in [Compress::Yes, Compress::No] {
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            pa.into_affine()
                .serialize_with_mode(&mut ours, compress)
                .unwrap();
            p.into_affine()
                .serialize_with_mode(&mut theirs, compress)
                .unwrap();
            assert_eq!(ours, theirs);
            let back =
                Affine::<Accel<P>>::deserialize_with_mode(&theirs[..], compress, Validate::Yes)
                    .unwrap();
            assert_eq!(back, pa.into_affine());
        }
    }
    // Identity and generator.
    assert!(to_inner(&Affine::<Accel<P>>::identity()).is_zero());
    assert_eq!(
        to_inner(&Affine::<Accel<P>>::generator()),
        Affine::<P>::generator()
    );
}

#[test]
fn bn254_g1() {
    check::<ark_bn254::g1::Config>();
}

#[test]
fn bn254_g2() {
    check::<ark_bn254::g2::Config>();
}

#[test]
fn bls12_381_g1() {
    check::<ark_bls12_381::g1::Config>();
}

#[test]
fn secp256k1() {
    check::<ark_secp256k1::Config>();
}
