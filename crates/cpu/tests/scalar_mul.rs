//! Every method and formula set against arkworks' `Projective * Fr`, per curve.

use ark_ec::short_weierstrass::Projective;
use ark_ec::{CurveGroup, PrimeGroup};
use ark_ff::{Field, PrimeField, UniformRand};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use zkaccel_cpu::{
    mul, mul_with, Counting, CurveMul, FormulaSet, MulError, Plain, ScalarMulMethod,
};
use zkaccel_dbc::Dbc;

fn methods(glv: bool) -> Vec<ScalarMulMethod> {
    let mut v = vec![
        ScalarMulMethod::Auto,
        ScalarMulMethod::Naf,
        ScalarMulMethod::Dbc { delta: 1 },
        ScalarMulMethod::Dbc { delta: 3 },
    ];
    v.extend((2..=6).map(ScalarMulMethod::Wnaf));
    if glv {
        v.push(ScalarMulMethod::Glv);
        v.push(ScalarMulMethod::GlvDbc);
    }
    v
}

/// Checks every method and both formula sets for `k * p` against arkworks.
fn check<P: CurveMul>(p: &Projective<P>, k: &P::ScalarField, glv: bool) {
    let want = *p * k;
    let big = k.into_bigint();
    for m in methods(glv) {
        for set in [FormulaSet::for_curve::<P>(), FormulaSet::Generic] {
            let got = mul_with(p, big.as_ref(), m, set, &mut Plain).unwrap();
            assert_eq!(got, want, "{m:?} with {set:?} formulas, k = {k}");
        }
    }
}

fn edge_scalars<F: PrimeField>() -> Vec<F> {
    let mut v = vec![
        F::zero(),
        F::one(),
        F::from(2u64),
        F::from(3u64),
        -F::one(),
        -F::from(2u64),
    ];
    for k in [1u64, 63, 64, 100, 128, 200] {
        v.push(F::from(2u64).pow([k]));
        v.push(F::from(3u64).pow([k / 2]));
    }
    v
}

macro_rules! curve_tests {
    ($name:ident, $proj:ty, $scalar:ty, $glv:expr) => {
        mod $name {
            use super::*;

            #[test]
            fn edge_cases_match_arkworks() {
                let mut rng = ChaCha20Rng::seed_from_u64(1);
                let g = <$proj>::generator();
                let p = g * <$scalar>::rand(&mut rng);
                for k in edge_scalars::<$scalar>() {
                    check(&g, &k, $glv);
                    check(&p, &k, $glv);
                    check(&<$proj>::default(), &k, $glv); // infinity
                                                          // A base given with Z != 1 and its normalised twin agree.
                    let affine: $proj = p.into_affine().into();
                    check(&affine, &k, $glv);
                }
            }

            #[test]
            fn too_large_scalars_and_bad_parameters_are_errors() {
                let g = <$proj>::generator();
                let huge = vec![u64::MAX; 17];
                assert!(matches!(
                    mul(&g, &huge, ScalarMulMethod::Dbc { delta: 1 }),
                    Err(MulError::Scalar(_))
                ));
                assert!(matches!(
                    mul(&g, &[5u64], ScalarMulMethod::Dbc { delta: 0 }),
                    Err(MulError::Scalar(_))
                ));
                assert!(matches!(
                    mul(&g, &[5u64], ScalarMulMethod::Wnaf(1)),
                    Err(MulError::Scalar(_))
                ));
                if !$glv {
                    assert_eq!(
                        mul(&g, &[5u64], ScalarMulMethod::Glv),
                        Err(MulError::GlvUnavailable)
                    );
                }
            }

            #[test]
            fn wider_than_field_scalars_are_exact() {
                // k + r and k * 2^300: exact integer multiples (r P = 0 on the subgroup).
                let g = <$proj>::generator();
                let k = <$scalar>::from(987654321u64);
                let mut wide = k.into_bigint().as_ref().to_vec();
                let r = <$scalar as PrimeField>::MODULUS;
                let mut carry = 0u128;
                for (i, limb) in r.as_ref().iter().enumerate() {
                    let s = wide[i] as u128 + *limb as u128 + carry;
                    wide[i] = s as u64;
                    carry = s >> 64;
                }
                wide.push(carry as u64);
                for m in [
                    ScalarMulMethod::Auto,
                    ScalarMulMethod::Naf,
                    ScalarMulMethod::Dbc { delta: 1 },
                    ScalarMulMethod::Wnaf(5),
                ] {
                    assert_eq!(mul(&g, &wide, m).unwrap(), g * k, "{m:?}");
                }
            }

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(
                    std::env::var("ZKACCEL_TEST_CASES").map_or(16, |s| s.parse().unwrap())
                ))]
                #[test]
                fn random_points_and_scalars_match_arkworks(seed in any::<u64>()) {
                    let mut rng = ChaCha20Rng::seed_from_u64(seed);
                    let p = <$proj>::generator() * <$scalar>::rand(&mut rng);
                    let k = <$scalar>::rand(&mut rng);
                    check(&p, &k, $glv);
                }
            }
        }
    };
}

curve_tests!(bn254_g1, ark_bn254::G1Projective, ark_bn254::Fr, true);
curve_tests!(bn254_g2, ark_bn254::G2Projective, ark_bn254::Fr, true);
curve_tests!(
    bls12_381_g1,
    ark_bls12_381::G1Projective,
    ark_bls12_381::Fr,
    true
);
curve_tests!(
    secp256k1,
    ark_secp256k1::Projective,
    ark_secp256k1::Fr,
    false
);

/// The chain-driven multiplication spends exactly what the chain's cost model
/// says: `a` doublings, `b` triplings and `l - 1` mixed additions, plus, with
/// the `a = 0` formulas, one multiplication that maps the result back from
/// the isomorphic curve the base is affine on (instead of an inversion of the
/// base, which the generic formulas pay outside the counted formulas).
fn check_counts<P: CurveMul>(set: FormulaSet) {
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let p = Projective::<P>::generator() * P::ScalarField::rand(&mut rng);
    for _ in 0..20 {
        let k = P::ScalarField::rand(&mut rng).into_bigint();
        for delta in [1, 2, 5] {
            let chain =
                Dbc::suboptimal_with(k.as_ref(), delta, None, &set.cost_model(0.8)).unwrap();
            let (a, b) = chain.leading().unwrap();
            let adds = chain.hamming_weight() as u64 - 1;
            let (dm, ds) = set.double_cost();
            let (tm, ts) = set.triple_cost();
            let (am, as_) = set.madd_cost();
            let rescale = u64::from(set == FormulaSet::AZero);
            let mut ops = Counting::default();
            let got = mul_with(
                &p,
                k.as_ref(),
                ScalarMulMethod::Dbc { delta },
                set,
                &mut ops,
            )
            .unwrap();
            assert_eq!(got, p * P::ScalarField::from_bigint(k).unwrap());
            assert_eq!(
                ops.mul - rescale,
                a as u64 * dm + b as u64 * tm + adds * am,
                "multiplications, {set:?}"
            );
            assert_eq!(
                ops.sqr,
                a as u64 * ds + b as u64 * ts + adds * as_,
                "squarings, {set:?}"
            );
            let model = set.cost_model(0.8);
            let counted = (ops.mul - rescale) as f64 + 0.8 * ops.sqr as f64;
            assert!(
                (counted - chain.cost(&model)).abs() < 1e-6,
                "{counted} vs {}",
                chain.cost(&model)
            );
        }
    }
}

#[test]
fn operation_counts_match_the_cost_model() {
    check_counts::<ark_bn254::g1::Config>(FormulaSet::AZero);
    check_counts::<ark_bn254::g1::Config>(FormulaSet::Generic);
    check_counts::<ark_secp256k1::Config>(FormulaSet::AZero);
    check_counts::<ark_secp256k1::Config>(FormulaSet::Generic);
}

#[test]
fn a_minus_3_formulas_are_refused_on_a_zero_curves() {
    let g = ark_bn254::G1Projective::generator();
    assert_eq!(
        mul_with(
            &g,
            &[5u64],
            ScalarMulMethod::Naf,
            FormulaSet::AMinus3,
            &mut Plain
        ),
        Err(MulError::FormulasInvalid(FormulaSet::AMinus3))
    );
    let _ = ark_bn254::Fq::ONE;
}
curve_tests!(
    bls12_381_g2,
    ark_bls12_381::G2Projective,
    ark_bls12_381::Fr,
    true
);
// NIST P-256: a = -3, so the `AMinus3` formulas and the generic ones both run.
curve_tests!(
    secp256r1,
    ark_secp256r1::Projective,
    ark_secp256r1::Fr,
    false
);

#[test]
fn p256_uses_the_a_minus_3_formulas_and_they_count_as_documented() {
    assert_eq!(
        FormulaSet::for_curve::<ark_secp256r1::Config>(),
        FormulaSet::AMinus3
    );
    check_counts::<ark_secp256r1::Config>(FormulaSet::AMinus3);
    check_counts::<ark_secp256r1::Config>(FormulaSet::Generic);
}
