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

mod common;

fn values<F: MontField>(seed: u64) -> Vec<F> {
    let mut vals: Vec<F> = common::random_and_edge_values(196, seed);
    vals.resize(vals.len().div_ceil(8) * 8, F::zero());
    vals
}

fn pack8<F: MontField, const L: usize>(_: Ifma, xs: &[F]) -> Lanes<L> {
    assert_eq!(ifma::lanes_fit::<F>(), Some(L));
    // SAFETY: the token proves the CPU features; F fits L limbs.
    unsafe { ifma::pack(core::array::from_fn(|l| &xs[l])) }
}

fn unpack8<F: MontField, const L: usize>(_: Ifma, v: &Lanes<L>, c: &Consts<L>) -> [F; 8] {
    // SAFETY: as above.
    unsafe { ifma::unpack(v, c) }
}

/// Every lane operation on `F` in lanes of `L` limbs; `R'/R = 2^shift`.
fn check<F: MontField, const L: usize>(token: Ifma, seed: u64, shift: u32) {
    let c = Consts::<L>::of::<F>();
    let vals = values::<F>(seed);
    let twiddles: Vec<[u64; L]> = vals.iter().map(ifma::to_rprime::<F, L>).collect();
    if L == 5 {
        // The four-limb helper is the same conversion.
        for v in &vals {
            assert_eq!(ifma::to_r260(v)[..], ifma::to_rprime::<F, L>(v)[..]);
        }
    }
    for (ci, a) in vals.chunks(8).enumerate() {
        let va = pack8(token, a);
        assert_eq!(
            unpack8::<F, L>(token, &va, &c),
            <[F; 8]>::try_from(a).unwrap()
        );
        for (bi, b) in vals.chunks(8).enumerate().step_by(3) {
            let vb = pack8(token, b);
            // SAFETY: as above.
            let (sum, diff) = unsafe { (ifma::add(&va, &vb, &c), ifma::sub(&va, &vb, &c)) };
            let (sum, diff) = (
                unpack8::<F, L>(token, &sum, &c),
                unpack8::<F, L>(token, &diff, &c),
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
            let prod = unpack8::<F, L>(token, &prod, &c);
            for l in 0..8 {
                assert_eq!(prod[l], a[l] * f);
            }
        }
    }
    // Two R'-form factors give the R'-form product: (a b) * R'/R read back.
    let ratio = F::from(1u64 << shift);
    for (a, b) in vals.iter().zip(vals.iter().rev()) {
        // SAFETY: as above.
        let p = unsafe {
            ifma::mul(
                &ifma::splat(&ifma::to_rprime::<F, L>(a)),
                &ifma::splat(&ifma::to_rprime::<F, L>(b)),
                &c,
            )
        };
        assert_eq!(unpack8::<F, L>(token, &p, &c)[3], *a * b * ratio);
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
                    let w = ifma::to_rprime::<F, L>(&other[0]);
                    lanes = ifma::mul(&lanes, &ifma::splat(&w), &c);
                    expect.iter_mut().for_each(|e| *e *= other[0]);
                }
            }
        }
        if step % 97 == 0 {
            assert_eq!(
                unpack8::<F, L>(token, &lanes, &c).to_vec(),
                expect,
                "step {step}"
            );
        }
    }
    assert_eq!(unpack8::<F, L>(token, &lanes, &c).to_vec(), expect);
}

#[test]
fn lanes_match_arkworks() {
    let Some(token) = Ifma::detect() else {
        let _ = writeln!(std::io::stderr(), "SKIPPED: lanes_match_arkworks (this CPU lacks AVX-512 IFMA, or ZKACCEL_KERNEL caps it)");
        return;
    };
    check::<ark_bn254::Fr, 5>(token, 1, 4);
    check::<ark_bn254::Fq, 5>(token, 2, 4);
    check::<ark_bls12_381::Fr, 5>(token, 3, 4);
    // Six-limb fields in eight 52-bit limbs (R' = 2^416, R = 2^384).
    check::<ark_bls12_381::Fq, 8>(token, 4, 32);
    check::<ark_bls12_377::Fq, 8>(token, 5, 32);
    // Four-limb moduli using the top bit (p - 1 has every limb near its
    // maximum): five limbs still hold 4p.
    check::<ark_secp256k1::Fq, 5>(token, 6, 4);
    check::<ark_secp256r1::Fq, 5>(token, 7, 4);
    // A field that fits no lane width.
    assert_eq!(ifma::lanes_fit::<Goldilocks>(), None);
}

/// A one-limb field (2^64 - 2^32 + 1), which no lane width takes.
#[derive(ark_ff::MontConfig)]
#[modulus = "18446744069414584321"]
#[generator = "7"]
struct GoldilocksConfig;
type Goldilocks = ark_ff::Fp64<ark_ff::MontBackend<GoldilocksConfig, 1>>;

/// Batched affine additions equal arkworks' `P + Q` for every batch length
/// around the lane width, on random points (`P != ±Q`), through the safe
/// call (which picks the lane width) and, for `L`, the unsafe one.
fn affine_batch<C: ark_ec::short_weierstrass::SWCurveConfig, const L: usize>(token: Ifma, seed: u64)
where
    C::BaseField: MontField,
{
    use ark_ec::short_weierstrass::{Affine, Projective};
    use ark_ec::{AffineRepr, CurveGroup};
    use ark_ff::UniformRand;
    let c = Consts::<L>::of::<C::BaseField>();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for n in [0usize, 1, 2, 7, 8, 9, 15, 16, 17, 100, 256] {
        let p: Vec<Affine<C>> = (0..n)
            .map(|_| Projective::<C>::rand(&mut rng).into_affine())
            .collect();
        let q: Vec<Affine<C>> = (0..n)
            .map(|_| Projective::<C>::rand(&mut rng).into_affine())
            .collect();
        let (px, py): (Vec<_>, Vec<_>) = p.iter().map(|a| (a.x, a.y)).unzip();
        let (qx, qy): (Vec<_>, Vec<_>) = q.iter().map(|a| (a.x, a.y)).unzip();
        let (mut ux, mut uy) = (px.clone(), py.clone());
        assert_eq!(ifma::lanes_fit::<C::BaseField>(), Some(L));
        // SAFETY: the token proves the CPU features; the field fits L limbs.
        unsafe { ifma::add_affine_batch(&mut ux, &mut uy, &qx, &qy, &c) };
        let (mut sx, mut sy) = (px, py);
        assert!(token.add_affine_batch(&mut sx, &mut sy, &qx, &qy));
        for i in 0..n {
            let want = (p[i].into_group() + q[i]).into_affine();
            assert_eq!((ux[i], uy[i]), (want.x, want.y), "n = {n}, i = {i}");
            assert_eq!((sx[i], sy[i]), (want.x, want.y), "n = {n}, i = {i}");
        }
    }
}

#[test]
fn affine_batch_matches_arkworks() {
    let Some(token) = Ifma::detect() else {
        let _ = writeln!(std::io::stderr(), "SKIPPED: affine_batch_matches_arkworks (this CPU lacks AVX-512 IFMA, or ZKACCEL_KERNEL caps it)");
        return;
    };
    affine_batch::<ark_bn254::g1::Config, 5>(token, 9);
    affine_batch::<ark_bls12_381::g1::Config, 8>(token, 11);
    affine_batch::<ark_bls12_377::g1::Config, 8>(token, 12);
    affine_batch::<ark_secp256k1::Config, 5>(token, 13);
    affine_batch::<ark_secp256r1::Config, 5>(token, 14);
    // Refused, untouched: a field no lane width fits, unequal lengths.
    let g = |v: u64| Goldilocks::from(v);
    let mut x = vec![g(3); 2];
    let mut y = x.clone();
    assert!(!token.add_affine_batch(&mut x, &mut y, &[g(5); 2], &[g(7); 2]));
    use ark_secp256k1::Fq;
    let mut x = vec![Fq::from(3u64); 2];
    let mut y = x.clone();
    assert!(!token.add_affine_batch(&mut x, &mut y, &[Fq::from(5u64)], &[Fq::from(7u64)]));
    assert_eq!(x, vec![Fq::from(3u64); 2]);
}

/// The same over `Fp2` with non-residue -1 (G2's base field), through the
/// safe call.
fn affine_batch_fp2<C, P>(token: Ifma, seed: u64)
where
    P: ark_ff::Fp2Config,
    P::Fp: MontField,
    C: ark_ec::short_weierstrass::SWCurveConfig<BaseField = ark_ff::Fp2<P>>,
{
    use ark_ec::short_weierstrass::{Affine, Projective};
    use ark_ec::{AffineRepr, CurveGroup};
    use ark_ff::UniformRand;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for n in [0usize, 1, 7, 8, 9, 33, 256] {
        let p: Vec<Affine<C>> = (0..n)
            .map(|_| Projective::<C>::rand(&mut rng).into_affine())
            .collect();
        let q: Vec<Affine<C>> = (0..n)
            .map(|_| Projective::<C>::rand(&mut rng).into_affine())
            .collect();
        let (mut px, mut py): (Vec<_>, Vec<_>) = p.iter().map(|a| (a.x, a.y)).unzip();
        let (qx, qy): (Vec<_>, Vec<_>) = q.iter().map(|a| (a.x, a.y)).unzip();
        assert!(token.add_affine_batch_fp2(&mut px, &mut py, &qx, &qy));
        for i in 0..n {
            let want = (p[i].into_group() + q[i]).into_affine();
            assert_eq!((px[i], py[i]), (want.x, want.y), "n = {n}, i = {i}");
        }
    }
}

#[test]
fn affine_batch_fp2_matches_arkworks() {
    let Some(token) = Ifma::detect() else {
        let _ = writeln!(std::io::stderr(), "SKIPPED: affine_batch_fp2_matches_arkworks (this CPU lacks AVX-512 IFMA, or ZKACCEL_KERNEL caps it)");
        return;
    };
    affine_batch_fp2::<ark_bn254::g2::Config, _>(token, 10);
    affine_batch_fp2::<ark_bls12_381::g2::Config, _>(token, 13);
    // Refused, untouched: unequal lengths, and a non-residue other than -1
    // (BLS12-377's Fq2 has -5).
    use ark_bn254::Fq2;
    let mut x = vec![Fq2::from(3u64); 2];
    let mut y = x.clone();
    assert!(!token.add_affine_batch_fp2(&mut x, &mut y, &[Fq2::from(5u64)], &[Fq2::from(7u64)]));
    assert_eq!(x, vec![Fq2::from(3u64); 2]);
    let mut a = vec![ark_bls12_377::Fq2::from(3u64)];
    let mut b = a.clone();
    assert!(!token.add_affine_batch_fp2(
        &mut a,
        &mut b,
        &[ark_bls12_377::Fq2::from(4u64)],
        &[ark_bls12_377::Fq2::from(5u64)]
    ));
    assert_eq!(a, vec![ark_bls12_377::Fq2::from(3u64)]);
}
