//! The MSM's field arithmetic ([`PortableOps`], [`PortableFp2Ops`], and the
//! assembly [`AdxOps`], [`AdxFp2Ops`] where the CPU runs them: the four-limb,
//! full-width four-limb and six-limb kernels) equals arkworks' operators, inversion and comparisons, on edge values and on random ones, for every base
//! field a curve of zkaccel-cpu runs on: BN254 (four limbs, a spare top bit),
//! BLS12-381 (six limbs), secp256k1 and P-256 (four full-width limbs), and
//! the quadratic extensions of BN254 and BLS12-381 (G2).

use ark_ff::{BigInteger, Field, Fp2, Fp2Config, PrimeField};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::io::Write;
use zkaccel_cpu::{AdxFp2Ops, AdxOps, FieldOps, PortableFp2Ops, PortableOps};
use zkaccel_ff::MontField;

/// 0, 1, 2, p - 1, p - 2, (p - 1)/2, (p + 1)/2, 2^64, 2^128, and the largest
/// value below 2^k for k at the top limb's boundaries (all below p).
fn edges<F: PrimeField>() -> Vec<F> {
    let mut v = vec![F::ZERO, F::ONE, F::from(2u64), -F::ONE, -F::from(2u64)];
    let half = F::from(2u64).inverse().unwrap();
    v.push(-half); // (p - 1) / 2
    v.push(half); // (p + 1) / 2
    v.push(F::from(u64::MAX) + F::ONE);
    v.push(F::from(u128::MAX) + F::ONE);
    let bits = F::MODULUS_BIT_SIZE as usize;
    for k in [bits - 1, bits - 2, 255.min(bits - 1), 192, 64] {
        let mut b = F::BigInt::from(1u64);
        b <<= k as u32;
        b.sub_with_borrow(&F::BigInt::from(1u64));
        v.push(F::from_bigint(b).expect("below the modulus"));
    }
    v
}

fn agree<F: Field, O: FieldOps<F>>(ops: &mut O, a: &F, b: &F, what: &str) {
    assert_eq!(ops.mul(a, b), *a * b, "{what}: {a} * {b}");
    assert_eq!(ops.sqr(a), a.square(), "{what}: {a}^2");
    assert_eq!(ops.add(a, b), *a + b, "{what}: {a} + {b}");
    assert_eq!(ops.sub(a, b), *a - b, "{what}: {a} - {b}");
    assert_eq!(ops.double(a), a.double(), "{what}: 2 * {a}");
    assert_eq!(ops.equal(a, b), a == b, "{what}: {a} == {b}");
    assert!(ops.equal(a, a), "{what}: {a} == itself");
    assert_eq!(ops.is_zero(a), a.is_zero(), "{what}: {a} == 0");
    assert_eq!(ops.inverse(a), a.inverse(), "{what}: 1 / {a}");
}

/// The portable ops, and the assembly ones where the CPU runs them (a skip
/// is written where cargo shows it).
fn base_field<F: MontField>(a: &F, b: &F, what: &str) {
    agree(&mut PortableOps, a, b, what);
    if let Some(mut adx) = AdxOps::without_lanes() {
        agree(&mut adx, a, b, what);
    }
}

fn ext_field<P: Fp2Config>(a: &Fp2<P>, b: &Fp2<P>, what: &str)
where
    P::Fp: MontField,
{
    agree(&mut PortableFp2Ops, a, b, what);
    if let Some(mut adx) = AdxFp2Ops::without_lanes() {
        agree(&mut adx, a, b, what);
    }
}

fn all_pairs<F: MontField>(what: &str) {
    let e = edges::<F>();
    for a in &e {
        for b in &e {
            base_field(a, b, what);
        }
    }
}

#[test]
fn edge_values_agree_with_arkworks() {
    if AdxOps::without_lanes().is_none() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED (part): the AdxOps checks (this CPU lacks BMI2/ADX, or ZKACCEL_KERNEL=portable); PortableOps checked"
        );
    }
    all_pairs::<ark_bn254::Fq>("bn254 Fq");
    all_pairs::<ark_bls12_381::Fq>("bls12-381 Fq");
    all_pairs::<ark_secp256k1::Fq>("secp256k1 Fq");
    all_pairs::<ark_secp256r1::Fq>("p256 Fq");
    let e = edges::<ark_bn254::Fq>();
    for (i, a) in e.iter().enumerate() {
        let b = &e[(i * 7 + 3) % e.len()];
        ext_field(
            &ark_bn254::Fq2::new(*a, *b),
            &ark_bn254::Fq2::new(*b, *a),
            "bn254 Fq2",
        );
    }
    let e = edges::<ark_bls12_381::Fq>();
    for (i, a) in e.iter().enumerate() {
        let b = &e[(i * 5 + 1) % e.len()];
        ext_field(
            &ark_bls12_381::Fq2::new(*a, *b),
            &ark_bls12_381::Fq2::new(-*b, *a),
            "bls12-381 Fq2",
        );
    }
}

fn random<F: Field>(seed: u64) -> F {
    F::rand(&mut ChaCha20Rng::seed_from_u64(seed))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_values_agree_with_arkworks(s in any::<u64>(), t in any::<u64>()) {
        base_field(&random::<ark_bn254::Fq>(s), &random::<ark_bn254::Fq>(t), "bn254 Fq");
        base_field(&random::<ark_bls12_381::Fq>(s), &random::<ark_bls12_381::Fq>(t), "bls12-381 Fq");
        base_field(&random::<ark_secp256k1::Fq>(s), &random::<ark_secp256k1::Fq>(t), "secp256k1 Fq");
        base_field(&random::<ark_secp256r1::Fq>(s), &random::<ark_secp256r1::Fq>(t), "p256 Fq");
        ext_field(&random::<ark_bn254::Fq2>(s), &random::<ark_bn254::Fq2>(t), "bn254 Fq2");
        ext_field(&random::<ark_bls12_381::Fq2>(s), &random::<ark_bls12_381::Fq2>(t), "bls12-381 Fq2");
    }
}
