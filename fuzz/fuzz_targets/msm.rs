//! MSM on hostile inputs: arbitrary base sets (the point at infinity,
//! repeated points, P and -P together) and arbitrary 256-bit scalars, many of
//! them non-canonical (>= r). Every zkaccel algorithm, `PreparedBases`
//! included, must equal the plain sum of arkworks' `mul_bigint` (and
//! arkworks' own `msm_bigint` where the scalars fit in the modulus' bit
//! size: beyond it arkworks drops the top bits), on BN254 G1 (ADX field code), BN254 G2 (Fq2)
//! and BLS12-381 G1 (portable limbs). Mismatched lengths must be refused.
#![no_main]

use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::{AffineRepr, CurveGroup, VariableBaseMSM};
use ark_ff::{BigInt, BigInteger, PrimeField};
use libfuzzer_sys::fuzz_target;
use zkaccel_cpu::CurveMul;
use zkaccel_cpu::{msm_bigint_with, msm_with, MsmAlgorithm, MsmError, PreparedBases};

/// How each base is made from the previous ones.
#[derive(Debug, arbitrary::Arbitrary)]
enum BaseOp {
    Infinity,
    Multiple(u16),
    Repeat(u8),
    NegateOf(u8),
}

#[derive(Debug, arbitrary::Arbitrary)]
struct Input {
    curve: u8,
    ops: Vec<BaseOp>,
    scalars: Vec<[u64; 4]>,
    /// Repeat the inputs this many times (bigger inputs reach the windowed paths).
    copies: u8,
    /// Drop one scalar to check the length error.
    mismatch: bool,
}

fn bases<P: CurveMul>(ops: &[BaseOp]) -> Vec<Affine<P>> {
    let g = Affine::<P>::generator();
    let mut out: Vec<Affine<P>> = Vec::with_capacity(ops.len());
    for op in ops {
        let p = match *op {
            BaseOp::Infinity => Affine::identity(),
            BaseOp::Multiple(k) => (g * P::ScalarField::from(u64::from(k))).into_affine(),
            BaseOp::Repeat(i) if !out.is_empty() => out[usize::from(i) % out.len()],
            BaseOp::NegateOf(i) if !out.is_empty() => -out[usize::from(i) % out.len()],
            _ => g,
        };
        out.push(p);
    }
    out
}

fn check<P: CurveMul>(input: &Input)
where
    P::ScalarField: PrimeField<BigInt = BigInt<4>>,
{
    let copies = 1 + usize::from(input.copies % 8);
    let n = input.ops.len().min(input.scalars.len()).min(96);
    let one = bases::<P>(&input.ops[..n]);
    let bases: Vec<Affine<P>> = (0..copies).flat_map(|_| one.iter().copied()).collect();
    let scalars: Vec<BigInt<4>> = (0..copies)
        .flat_map(|c| {
            input.scalars[..n].iter().map(move |l| {
                let mut l = *l;
                l[0] = l[0].wrapping_add(c as u64);
                BigInt(l)
            })
        })
        .collect();
    let want: Projective<P> = bases
        .iter()
        .zip(&scalars)
        .map(|(b, k)| b.mul_bigint(k))
        .sum();
    // arkworks 0.6's msm_bigint reads only MODULUS_BIT_SIZE bits of each
    // scalar (found by this target): it is a reference only below that.
    let bits = P::ScalarField::MODULUS_BIT_SIZE;
    if scalars.iter().all(|k| k.num_bits() <= bits) {
        assert_eq!(
            Projective::<P>::msm_bigint(&bases, &scalars),
            want,
            "arkworks itself"
        );
    }
    for alg in [
        MsmAlgorithm::Auto,
        MsmAlgorithm::Pippenger,
        MsmAlgorithm::PippengerGlv,
        MsmAlgorithm::Strauss,
        MsmAlgorithm::DbcPerTerm,
    ] {
        assert_eq!(
            msm_bigint_with(&bases, &scalars, alg).unwrap(),
            want,
            "{alg:?} on integers"
        );
    }
    let reduced: Vec<P::ScalarField> = scalars
        .iter()
        .map(|k| P::ScalarField::from_bigint_mod(k))
        .collect();
    for alg in [
        MsmAlgorithm::Auto,
        MsmAlgorithm::Pippenger,
        MsmAlgorithm::PippengerGlv,
        MsmAlgorithm::DbcPerTerm,
    ] {
        assert_eq!(
            msm_with(&bases, &reduced, alg).unwrap(),
            want,
            "{alg:?} on field elements"
        );
    }
    let prepared = PreparedBases::new(&bases);
    assert_eq!(prepared.msm(&reduced).unwrap(), want, "PreparedBases");
    assert_eq!(
        prepared.msm_bigint(&scalars).unwrap(),
        want,
        "PreparedBases on integers"
    );
    if input.mismatch && !bases.is_empty() {
        let short = &reduced[..reduced.len() - 1];
        assert!(matches!(
            msm_with(&bases, short, MsmAlgorithm::Auto),
            Err(MsmError::LengthMismatch { .. })
        ));
        assert!(prepared.msm(short).is_err());
    }
}

/// `k mod r` for any 256-bit integer.
trait FromBigIntMod: PrimeField<BigInt = BigInt<4>> {
    fn from_bigint_mod(k: &BigInt<4>) -> Self {
        Self::from_le_bytes_mod_order(&k.to_bytes_le())
    }
}
impl<F: PrimeField<BigInt = BigInt<4>>> FromBigIntMod for F {}

fuzz_target!(|input: Input| {
    match input.curve % 3 {
        0 => check::<ark_bn254::g1::Config>(&input),
        1 => check::<ark_bn254::g2::Config>(&input),
        _ => check::<ark_bls12_381::g1::Config>(&input),
    }
});
