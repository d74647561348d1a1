//! The AVX-512 IFMA lane arithmetic against arkworks' operators: random
//! values, the edge values 0, 1, p - 1, p - 2, 1/2, and long random chains of
//! operations on lazily reduced values (results in `[p, 2p)` feeding the next
//! operation). Prints that it was skipped on CPUs without AVX-512 IFMA.
#![cfg(target_arch = "x86_64")]

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::Write;
use zkaccel_ff::ifma::{self, Consts, Ifma, Lanes};
use zkaccel_ff::MontField;

fn values<F: MontField>(seed: u64) -> Vec<F> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut vals: Vec<F> = (0..196).map(|_| F::rand(&mut rng)).collect();
    vals.extend([
        F::zero(),
        F::one(),
        -F::one(),
        -F::one().double(),
        F::from(2u64).inverse().unwrap(),
    ]);
    vals.resize(vals.len().div_ceil(8) * 8, F::zero());
    vals
}

fn pack8<F: MontField>(_: Ifma, xs: &[F]) -> Lanes {
    // SAFETY: the token proves the CPU features; F has four limbs.
    unsafe { ifma::pack(core::array::from_fn(|l| &xs[l])) }
}

fn unpack8<F: MontField>(_: Ifma, v: &Lanes, c: &Consts) -> [F; 8] {
    // SAFETY: as above.
    unsafe { ifma::unpack(v, c) }
}

fn check<F: MontField>(token: Ifma, seed: u64) {
    assert!(F::ADX_MUL);
    let c = Consts::of::<F>();
    let vals = values::<F>(seed);
    let twiddles: Vec<[u64; 5]> = vals.iter().map(ifma::to_r260).collect();
    for (ci, a) in vals.chunks(8).enumerate() {
        let va = pack8(token, a);
        assert_eq!(unpack8::<F>(token, &va, &c), <[F; 8]>::try_from(a).unwrap());
        for (bi, b) in vals.chunks(8).enumerate().step_by(3) {
            let vb = pack8(token, b);
            // SAFETY: as above.
            let (sum, diff) = unsafe { (ifma::add(&va, &vb, &c), ifma::sub(&va, &vb, &c)) };
            let (sum, diff) = (
                unpack8::<F>(token, &sum, &c),
                unpack8::<F>(token, &diff, &c),
            );
            for l in 0..8 {
                assert_eq!(sum[l], a[l] + b[l]);
                assert_eq!(diff[l], a[l] - b[l]);
            }
            // A broadcast factor in R' form (the twiddle case).
            let w = &twiddles[bi * 8 + ci % 8];
            let f = vals[bi * 8 + ci % 8];
            // SAFETY: as above.
            let prod = unsafe { ifma::mul(&va, &ifma::splat(w), &c) };
            let prod = unpack8::<F>(token, &prod, &c);
            for l in 0..8 {
                assert_eq!(prod[l], a[l] * f);
            }
        }
    }
    // Two R'-form factors give the R'-form product: (a b) * 2^4 read back.
    let sixteen = F::from(16u64);
    for (a, b) in vals.iter().zip(vals.iter().rev()) {
        // SAFETY: as above.
        let p = unsafe {
            ifma::mul(
                &ifma::splat(&ifma::to_r260(a)),
                &ifma::splat(&ifma::to_r260(b)),
                &c,
            )
        };
        assert_eq!(unpack8::<F>(token, &p, &c)[3], *a * b * sixteen);
    }
    // Random chains: every result stays in [0, 2p) and feeds the next step.
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xabcd);
    let mut lanes = pack8(token, &vals[..8]);
    let mut expect: Vec<F> = vals[..8].to_vec();
    for step in 0..3000 {
        let k = rng.gen_range(0..vals.len() / 8);
        let other = &vals[k * 8..k * 8 + 8];
        let vo = pack8(token, other);
        // SAFETY: as above.
        unsafe {
            match rng.gen_range(0..4) {
                0 => {
                    lanes = ifma::add(&lanes, &vo, &c);
                    expect.iter_mut().zip(other).for_each(|(e, o)| *e += o);
                }
                1 => {
                    lanes = ifma::sub(&lanes, &vo, &c);
                    expect.iter_mut().zip(other).for_each(|(e, o)| *e -= o);
                }
                2 => {
                    lanes = ifma::add(&lanes, &lanes, &c);
                    expect.iter_mut().for_each(|e| *e = e.double());
                }
                _ => {
                    let w = ifma::to_r260(&other[0]);
                    lanes = ifma::mul(&lanes, &ifma::splat(&w), &c);
                    expect.iter_mut().for_each(|e| *e *= other[0]);
                }
            }
        }
        if step % 97 == 0 {
            assert_eq!(
                unpack8::<F>(token, &lanes, &c).to_vec(),
                expect,
                "step {step}"
            );
        }
    }
    assert_eq!(unpack8::<F>(token, &lanes, &c).to_vec(), expect);
}

#[test]
fn lanes_match_arkworks() {
    let Some(token) = Ifma::detect() else {
        let _ = writeln!(std::io::stderr(), "SKIPPED: lanes_match_arkworks (this CPU lacks AVX-512 IFMA, or ZKACCEL_KERNEL caps it)");
        return;
    };
    check::<ark_bn254::Fr>(token, 1);
    check::<ark_bn254::Fq>(token, 2);
    check::<ark_bls12_381::Fr>(token, 3);
}

/// Batched affine additions equal arkworks' `P + Q` for every batch length
/// around the lane width, on random BN254 G1 points (`P != ±Q`).
#[test]
fn affine_batch_matches_arkworks() {
    use ark_bn254::{Fq, G1Affine, G1Projective};
    use ark_ec::{AffineRepr, CurveGroup};
    use ark_ff::UniformRand;
    let Some(_token) = Ifma::detect() else {
        let _ = writeln!(std::io::stderr(), "SKIPPED: affine_batch_matches_arkworks (this CPU lacks AVX-512 IFMA, or ZKACCEL_KERNEL caps it)");
        return;
    };
    let c = Consts::of::<Fq>();
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for n in [0usize, 1, 2, 7, 8, 9, 15, 16, 17, 100, 256] {
        let p: Vec<G1Affine> = (0..n)
            .map(|_| G1Projective::rand(&mut rng).into_affine())
            .collect();
        let q: Vec<G1Affine> = (0..n)
            .map(|_| G1Projective::rand(&mut rng).into_affine())
            .collect();
        let (mut px, mut py): (Vec<Fq>, Vec<Fq>) = p.iter().map(|a| (a.x, a.y)).unzip();
        let (qx, qy): (Vec<Fq>, Vec<Fq>) = q.iter().map(|a| (a.x, a.y)).unzip();
        // SAFETY: the token proves the CPU features; Fq has four limbs.
        unsafe { ifma::add_affine_batch(&mut px, &mut py, &qx, &qy, &c) };
        for i in 0..n {
            let want = (p[i].into_group() + q[i]).into_affine();
            assert_eq!((px[i], py[i]), (want.x, want.y), "n = {n}, i = {i}");
        }
    }
}

/// The same over BN254's Fq2 (G2's base field): random G2 points.
#[test]
fn affine_batch_fp2_matches_arkworks() {
    use ark_bn254::{Fq2, G2Affine, G2Projective};
    use ark_ec::{AffineRepr, CurveGroup};
    use ark_ff::UniformRand;
    let Some(token) = Ifma::detect() else {
        let _ = writeln!(std::io::stderr(), "SKIPPED: affine_batch_fp2_matches_arkworks (this CPU lacks AVX-512 IFMA, or ZKACCEL_KERNEL caps it)");
        return;
    };
    let mut rng = ChaCha8Rng::seed_from_u64(10);
    for n in [0usize, 1, 7, 8, 9, 33, 256] {
        let p: Vec<G2Affine> = (0..n)
            .map(|_| G2Projective::rand(&mut rng).into_affine())
            .collect();
        let q: Vec<G2Affine> = (0..n)
            .map(|_| G2Projective::rand(&mut rng).into_affine())
            .collect();
        let (mut px, mut py): (Vec<Fq2>, Vec<Fq2>) = p.iter().map(|a| (a.x, a.y)).unzip();
        let (qx, qy): (Vec<Fq2>, Vec<Fq2>) = q.iter().map(|a| (a.x, a.y)).unzip();
        assert!(token.add_affine_batch_fp2(&mut px, &mut py, &qx, &qy));
        for i in 0..n {
            let want = (p[i].into_group() + q[i]).into_affine();
            assert_eq!((px[i], py[i]), (want.x, want.y), "n = {n}, i = {i}");
        }
    }
    // Refused, untouched: unequal lengths, and a non-residue other than -1
    // (BLS12-381's Fq2 has -1 too, but six-limb Fq).
    let mut x = vec![Fq2::from(3u64); 2];
    let mut y = x.clone();
    assert!(!token.add_affine_batch_fp2(&mut x, &mut y, &[Fq2::from(5u64)], &[Fq2::from(7u64)]));
    assert_eq!(x, vec![Fq2::from(3u64); 2]);
    let mut a = vec![ark_bls12_381::Fq2::from(3u64)];
    let mut b = a.clone();
    assert!(!token.add_affine_batch_fp2(
        &mut a,
        &mut b,
        &[ark_bls12_381::Fq2::from(4u64)],
        &[ark_bls12_381::Fq2::from(5u64)]
    ));
    assert_eq!(a, vec![ark_bls12_381::Fq2::from(3u64)]);
}
