//! The limb kernels against arkworks' operators, on random values and the
//! edge values 0, 1, p - 1, p - 2 and 1/2, and (for the assembly) values
//! whose Montgomery limbs are at their maximum.

use ark_ff::UniformRand;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::io::Write;
use zkaccel_ff::{adx_supported, MontField};

mod common;

/// Whether the multiplication kernel behind `mul_adx` runs here: the
/// BMI2/ADX one on x86-64 CPUs with those extensions, the aarch64 one on
/// every aarch64 CPU.
fn asm_mul_runs() -> bool {
    adx_supported() || cfg!(target_arch = "aarch64")
}

/// Elements whose Montgomery-form limbs are at their maximum: every limb
/// but the top one `u64::MAX` and the top one `p_top - 1` (the largest
/// such value below p), and each lower limb alone at `u64::MAX`.
fn max_limb_values<F: MontField>() -> Vec<F> {
    let n = F::LIMBS;
    let p = F::MODULUS;
    let top = p.as_ref()[n - 1];
    let mut out = Vec::new();
    let mut words = [u64::MAX; 8];
    words[n - 1] = top - 1;
    words[n..].fill(0);
    out.push(F::from_mont_words(words));
    for i in 0..n - 1 {
        let mut words = [0u64; 8];
        words[i] = u64::MAX;
        out.push(F::from_mont_words(words));
    }
    // All limbs at the maximum below the top, top limb zero.
    let mut words = [u64::MAX; 8];
    words[n - 1..].fill(0);
    out.push(F::from_mont_words(words));
    out
}

fn random_vec<F: UniformRand>(n: usize, seed: u64) -> Vec<F> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| F::rand(&mut rng)).collect()
}

/// The limb arithmetic equals arkworks' operators, edge values included.
#[test]
fn field_kernels_match_arkworks() {
    fn check<F: MontField>(seed: u64) {
        let mut vals: Vec<F> = common::random_and_edge_values(200, seed);
        vals.extend(max_limb_values::<F>());
        for a in &vals {
            for b in vals.iter().step_by(7) {
                assert_eq!(a.add_fast(b), *a + b);
                assert_eq!(a.sub_fast(b), *a - b);
                assert_eq!(a.mul_fast(b), *a * b);
                assert!(a.eq_fast(a));
                assert_eq!(a.eq_fast(b), a == b);
                if F::ADX_MUL || F::ADX_MUL6 || F::ADX_MUL_FULL {
                    // SAFETY: a kernel (four limbs, full-width four limbs or
                    // six limbs) covers F; the CPU check guards mul_adx.
                    unsafe {
                        assert_eq!(a.add_asm(b), *a + b, "{a} + {b}");
                        assert_eq!(a.sub_asm(b), *a - b, "{a} - {b}");
                        if asm_mul_runs() {
                            assert_eq!(a.mul_adx(b), *a * b, "{a} * {b}");
                        }
                    }
                }
            }
        }
        if (F::ADX_MUL || F::ADX_MUL6 || F::ADX_MUL_FULL) && !asm_mul_runs() {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: mul_adx (this CPU lacks BMI2/ADX)"
            );
        }
    }
    check::<ark_bn254::Fr>(1);
    check::<ark_bls12_381::Fr>(2);
    check::<ark_bn254::Fq>(3);
    check::<ark_bls12_381::Fq>(4);
    check::<ark_bls12_377::Fq>(5);
    // Full-width moduli (the top bit set): sums carry out of 256 bits.
    check::<ark_secp256k1::Fq>(6);
    check::<ark_secp256k1::Fr>(7);
    check::<ark_secp256r1::Fq>(8);
    check::<ark_secp256r1::Fr>(9);
}

/// The assembly kernels (`add_asm`, `sub_asm`, and `mul_adx` when
/// `with_mul`) against arkworks' operators on `n` random pairs (seeds
/// `seed`, `seed + 1`) and on every pair of `edges`. `F` must be covered by
/// a kernel, and `with_mul` only where the multiplication runs.
fn asm_agrees_on_pairs<F: MontField>(seed: u64, n: usize, edges: &[F], with_mul: bool) {
    assert!(F::ADX_MUL || F::ADX_MUL6 || F::ADX_MUL_FULL);
    let a: Vec<F> = random_vec(n, seed);
    let b: Vec<F> = random_vec(n, seed + 1);
    let pairs = a.iter().zip(&b).map(|(x, y)| (*x, *y)).chain(
        edges
            .iter()
            .flat_map(|x| edges.iter().map(move |y| (*x, *y))),
    );
    for (x, y) in pairs {
        // SAFETY: a kernel covers F (asserted above); the caller sets
        // `with_mul` only where the multiplication runs.
        unsafe {
            assert_eq!(x.add_asm(&y), x + y, "{x} + {y}");
            assert_eq!(x.sub_asm(&y), x - y, "{x} - {y}");
            if with_mul {
                assert_eq!(x.mul_adx(&y), x * y, "{x} * {y}");
            }
        }
    }
}

/// The spare-bit assembly kernels (x86-64's BMI2/ADX, aarch64's) on many
/// random pairs (`ZKACCEL_TEST_FIELD_PAIRS`, default 20,000) and on every
/// pair of edge and maximum-limb values.
#[test]
fn spare_bit_kernels_on_many_values() {
    fn check<F: MontField>(seed: u64, n: usize) {
        assert!(F::ADX_MUL || F::ADX_MUL6);
        let mut edges: Vec<F> = common::random_and_edge_values(0, seed);
        edges.extend(max_limb_values::<F>());
        // `asm_mul_runs` was checked before any call.
        asm_agrees_on_pairs(seed, n, &edges, true);
    }
    if !asm_mul_runs() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: spare_bit_kernels_on_many_values (no assembly kernel for this CPU)"
        );
        return;
    }
    let n = std::env::var("ZKACCEL_TEST_FIELD_PAIRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    check::<ark_bn254::Fr>(21, n);
    check::<ark_bn254::Fq>(23, n);
    check::<ark_bls12_381::Fr>(25, n);
    check::<ark_bls12_381::Fq>(27, n);
    check::<ark_bls12_377::Fq>(29, n);
}

/// The full-width four-limb kernels on many random pairs, and on values
/// whose limbs are all ones or all zeros but one (the carries out of the
/// top limb the sixth accumulator takes).
#[test]
fn full_width_kernels_on_many_values() {
    fn check<F: MontField>(seed: u64) {
        assert!(F::ADX_MUL_FULL);
        let mut edges: Vec<F> = [0u64, 1, u64::MAX]
            .iter()
            .flat_map(|&w| (0..4).map(move |i| (w, i)))
            .filter_map(|(w, i)| {
                let mut limbs = [0u64; 4];
                limbs[i] = w;
                F::from_bigint(limbs_to_bigint::<F>(limbs))
            })
            .collect();
        edges.extend([
            -F::one(),
            -F::one().double(),
            F::from(2u64).inverse().unwrap(),
        ]);
        asm_agrees_on_pairs(seed, 20_000, &edges, adx_supported());
    }
    fn limbs_to_bigint<F: MontField>(limbs: [u64; 4]) -> F::BigInt {
        let mut b = F::BigInt::default();
        b.as_mut().copy_from_slice(&limbs);
        b
    }
    if !cfg!(target_arch = "x86_64") {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: full_width_kernels_on_many_values (x86-64 only)"
        );
        return;
    }
    if !adx_supported() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: full_width_kernels_on_many_values mul_adx (this CPU lacks BMI2/ADX)"
        );
    }
    check::<ark_secp256k1::Fq>(11);
    check::<ark_secp256r1::Fq>(13);
}

/// The shape constants the MSM's portable arithmetic chooses by, against the
/// moduli as written out (not as the implementation derives them); the
/// `const` assertions fail the build.
#[test]
fn limbs_and_spare_bit_follow_the_modulus() {
    // BN254's q < 2^254: four limbs, top bit free.
    assert_eq!(<ark_bn254::Fq as MontField>::LIMBS, 4);
    const { assert!(<ark_bn254::Fq as MontField>::SPARE_BIT) };
    // BLS12-381's q < 2^381: six limbs, top bit free.
    assert_eq!(<ark_bls12_381::Fq as MontField>::LIMBS, 6);
    const { assert!(<ark_bls12_381::Fq as MontField>::SPARE_BIT) };
    // secp256k1's q = 2^256 - 2^32 - 977 and P-256's q = 2^256 - 2^224 + ...:
    // the top bit is used.
    assert_eq!(<ark_secp256k1::Fq as MontField>::LIMBS, 4);
    const { assert!(!<ark_secp256k1::Fq as MontField>::SPARE_BIT) };
    const { assert!(!<ark_secp256r1::Fq as MontField>::SPARE_BIT) };
    // BLS12-377's q < 2^377: six limbs, top bit free.
    assert_eq!(<ark_bls12_377::Fq as MontField>::LIMBS, 6);
    const { assert!(<ark_bls12_377::Fq as MontField>::SPARE_BIT) };
    // Which assembly kernel covers which field.
    // The spare-bit kernels exist in x86-64 and aarch64 assembly; the
    // full-width one and the lazy butterfly in x86-64 assembly only.
    let x86 = cfg!(target_arch = "x86_64");
    let asm = x86 || cfg!(target_arch = "aarch64");
    assert_eq!(<ark_bn254::Fq as MontField>::ADX_MUL, asm);
    assert_eq!(<ark_bls12_381::Fr as MontField>::ADX_MUL, asm);
    const { assert!(!<ark_bn254::Fq as MontField>::ADX_MUL6) };
    assert_eq!(<ark_bls12_381::Fq as MontField>::ADX_MUL6, asm);
    assert_eq!(<ark_bls12_377::Fq as MontField>::ADX_MUL6, asm);
    const { assert!(!<ark_bls12_381::Fq as MontField>::ADX_MUL) };
    const { assert!(!<ark_secp256k1::Fq as MontField>::ADX_MUL) };
    const { assert!(!<ark_secp256k1::Fq as MontField>::ADX_MUL6) };
    // The full-width kernel takes exactly the four-limb moduli with the top
    // bit set.
    assert_eq!(<ark_secp256k1::Fq as MontField>::ADX_MUL_FULL, x86);
    assert_eq!(<ark_secp256r1::Fq as MontField>::ADX_MUL_FULL, x86);
    assert_eq!(<ark_secp256k1::Fr as MontField>::ADX_MUL_FULL, x86);
    const { assert!(!<ark_bn254::Fq as MontField>::ADX_MUL_FULL) };
    const { assert!(!<ark_bls12_381::Fr as MontField>::ADX_MUL_FULL) };
    const { assert!(!<ark_bls12_381::Fq as MontField>::ADX_MUL_FULL) };
    // Lazy butterfly sums need 5p < 2^256: BN254's r and q (about 0.19 *
    // 2^256) qualify, BLS12-381's r (about 0.45 * 2^256) does not.
    assert_eq!(<ark_bn254::Fr as MontField>::LAZY_SUMS, x86);
    assert_eq!(<ark_bn254::Fq as MontField>::LAZY_SUMS, x86);
    const { assert!(!<ark_bls12_381::Fr as MontField>::LAZY_SUMS) };
    const { assert!(!<ark_secp256k1::Fq as MontField>::LAZY_SUMS) };
    const { assert!(!<ark_bls12_381::Fq as MontField>::LAZY_SUMS) };
}

/// `Adx::dif4` (lazy sums for BN254, modular operations otherwise) against
/// the butterfly written with arkworks' operators, on random values and
/// every combination of the edge values 0, 1, p - 1 and p - 2 in the four
/// inputs (the largest unreduced sums), with random and edge twiddles.
#[test]
fn radix4_butterfly_matches_arkworks() {
    fn check<F: MontField>(seed: u64) {
        let Some(adx) = zkaccel_ff::Asm::detect() else {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: Asm::dif4 (no assembly kernel: a CPU without BMI2/ADX, or ZKACCEL_KERNEL=portable)"
            );
            return;
        };
        let want = |x: [F; 4], w4: F, w: [F; 3]| {
            let (s, t) = (x[0] + x[2], x[1] + x[3]);
            let (d, e) = (x[0] - x[2], (x[1] - x[3]) * w4);
            [s + t, (s - t) * w[1], (d + e) * w[0], (d - e) * w[2]]
        };
        let edges = [F::zero(), F::one(), -F::one(), -F::one().double()];
        let random: Vec<F> = random_vec(4000, seed);
        let mut inputs: Vec<[F; 4]> = random
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect();
        for i in 0..256 {
            inputs.push(core::array::from_fn(|k| edges[(i >> (2 * k)) & 3]));
        }
        let twiddles: Vec<F> = random_vec(8, seed + 1).into_iter().chain(edges).collect();
        for (i, x) in inputs.iter().enumerate() {
            let w4 = twiddles[i % twiddles.len()];
            let w = [0, 3, 5].map(|k| twiddles[(i + k) % twiddles.len()]);
            let got = adx.dif4([&x[0], &x[1], &x[2], &x[3]], &w4, [&w[0], &w[1], &w[2]]);
            assert_eq!(got, want(*x, w4, w), "inputs {x:?}, w4 {w4}, w {w:?}");
        }
    }
    check::<ark_bn254::Fr>(11);
    check::<ark_bn254::Fq>(12);
    check::<ark_bls12_381::Fr>(13);
    check::<ark_bls12_381::Fq>(14);
    check::<ark_secp256k1::Fq>(15);
}
