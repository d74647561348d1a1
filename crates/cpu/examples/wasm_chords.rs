//! The SIMD128 lanes' chord additions (`zkaccel_ff::simd128`) checked in
//! WebAssembly: `scripts/wasm-check.sh` builds it for `wasm32-wasip1` with
//! `-C target-feature=+simd128` and runs it under node's WASI. It exits
//! non-zero unless, on BN254 G1,
//! - every batch of chord additions (lengths 1-17, 31-33, 255 and 1,000,
//!   so every padding of the last group of sixteen) equals arkworks' affine
//!   additions, on random points and on edge ones: the generator `(1, 2)`
//!   and its negative (`y = p - 2`), points whose `y` are equal (`Q` the
//!   image of `P` by the cube root of unity on `x`: the slope is zero),
//!   `Q = 2 P`, and sums that land on `-P` and on points of small
//!   coordinates;
//! - the MSM (`Auto`, whose bucket additions run on the lanes from its
//!   batch-affine windows) equals arkworks' on random terms and on terms
//!   with repeated points, zero and one scalars, `r - 1`, and the point at
//!   infinity, at 1, 100 and 5,000 terms;
//! - the window plan is WebAssembly's (13-bit windows at 60,000 full-width
//!   terms, 15-bit ones from about 82,000) and an MSM of 100,000 terms on
//!   15-bit windows equals `(sum i k_i) G` (its bases are `i G`);
//!
//! and, on BN254 G2 (`add_affine_batch_fp2`),
//! - the chord rule on 2,000 arbitrary `Fq2` values (not points: each
//!   component 0, 1, 2, `p - 1`, `p - 2` or random, every pair of those
//!   small ones as `x_p` and its swap as `x_q`) equals the rule in
//!   arkworks' `Fq2` arithmetic, and batches of points
//!   (the same lengths and edge points as G1's) equal arkworks' additions;
//! - the G2 MSM equals arkworks' at 1, 100 and 3,000 terms with the same
//!   edge terms.
//!
//! ```text
//! RUSTFLAGS="-C target-feature=+simd128" cargo build --release -p zkaccel-cpu --example wasm_chords --target wasm32-wasip1
//! node scripts/wasm-run.mjs target/wasm32-wasip1/release/examples/wasm_chords.wasm
//! ```

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn main() {
    println!("wasm_chords checks WebAssembly's SIMD128 lanes: built for wasm32 with +simd128 (scripts/wasm-check.sh)");
}

/// A batch of chord additions in the lanes, `zkaccel_ff::simd128`'s form.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
type Lanes<F> = fn(&mut [F], &mut [F], &[F], &[F]) -> bool;

/// A named batch of point pairs to add.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
type Case<P> = (
    String,
    Vec<ark_ec::short_weierstrass::Affine<P>>,
    Vec<ark_ec::short_weierstrass::Affine<P>>,
);

/// The lanes' chord additions `p[i] + q[i]` (`lanes` on the coordinates)
/// against arkworks' point additions; `true` where all are equal.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn chords_equal<P: ark_ec::short_weierstrass::SWCurveConfig>(
    name: &str,
    p: &[ark_ec::short_weierstrass::Affine<P>],
    q: &[ark_ec::short_weierstrass::Affine<P>],
    lanes: Lanes<P::BaseField>,
) -> bool {
    use ark_ec::CurveGroup;
    let (mut px, mut py): (Vec<_>, Vec<_>) = p.iter().map(|a| (a.x, a.y)).unzip();
    let (qx, qy): (Vec<_>, Vec<_>) = q.iter().map(|a| (a.x, a.y)).unzip();
    if !lanes(&mut px, &mut py, &qx, &qy) {
        eprintln!("FAIL {name}: the lanes refused the field");
        return false;
    }
    for i in 0..p.len() {
        let want = (p[i] + q[i]).into_affine();
        if (px[i], py[i]) != (want.x, want.y) {
            eprintln!(
                "FAIL {name}: addition {i} of {} differs from arkworks'",
                p.len()
            );
            return false;
        }
    }
    println!("ok   {name}: {} additions equal arkworks'", p.len());
    true
}

/// Random pairs of points, and 40 pairs of edge points mixed with random
/// ones, every one in its own lane: the generator and its negative, equal
/// `y` (`Q` is `P` with `x` times the cube root of unity `w`: a zero
/// slope), `Q = 2 P`, and a sum landing on `-G`.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn chord_cases<P: ark_ec::short_weierstrass::SWCurveConfig<ScalarField = ark_bn254::Fr>>(
    w: P::BaseField,
    rng: &mut rand_chacha::ChaCha20Rng,
) -> Vec<Case<P>> {
    use ark_ec::short_weierstrass::Affine;
    use ark_ec::{AffineRepr, CurveGroup};
    use ark_ff::UniformRand;
    let g = Affine::<P>::generator();
    let mut rand_point = || (g * ark_bn254::Fr::rand(rng)).into_affine();
    let mut cases = Vec::new();
    for n in (1..=17).chain([31, 32, 33, 255, 1000]) {
        let p: Vec<_> = (0..n).map(|_| rand_point()).collect();
        let q: Vec<_> = (0..n).map(|_| rand_point()).collect();
        cases.push((format!("random, {n}"), p, q));
    }
    let (mut p, mut q) = (Vec::new(), Vec::new());
    for i in 0..40 {
        let r = rand_point();
        let (a, b) = match i % 5 {
            0 => (g, r),
            1 => (r, -g),
            2 => (r, Affine::new_unchecked(w * r.x, r.y)),
            3 => (r, (r + r).into_affine()),
            _ => ((-g + -r).into_affine(), r),
        };
        p.push(a);
        q.push(b);
    }
    cases.push(("edge points".to_string(), p, q));
    cases
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn main() -> std::process::ExitCode {
    use ark_bn254::{Fq, Fq2, Fr, G1Affine, G1Projective, G2Affine, G2Projective};
    use ark_ec::{AffineRepr, CurveGroup, VariableBaseMSM};
    use ark_ff::{AdditiveGroup, Field, UniformRand};
    use rand::SeedableRng;
    use std::process::ExitCode;

    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
    let g = G1Affine::generator();
    // A non-trivial cube root of unity in Fq: (x, y) -> (w x, y) keeps a
    // point on y^2 = x^3 + b with the same y, in G1 and in G2.
    let w = (2u64..)
        .map(|b| Fq::from(b).pow(cube_exponent()))
        .find(|w| *w != Fq::ONE)
        .expect("a cube root of unity");
    assert_eq!(w * w * w, Fq::ONE);
    let mut failures = 0;
    for (name, p, q) in chord_cases::<ark_bn254::g1::Config>(w, &mut rng) {
        let lanes = zkaccel_ff::simd128::add_affine_batch::<Fq>;
        failures += usize::from(!chords_equal(&format!("G1 {name}"), &p, &q, lanes));
    }
    for (name, p, q) in chord_cases::<ark_bn254::g2::Config>(Fq2::new(w, Fq::ZERO), &mut rng) {
        let lanes = zkaccel_ff::simd128::add_affine_batch_fp2::<ark_bn254::Fq2Config>;
        failures += usize::from(!chords_equal(&format!("G2 {name}"), &p, &q, lanes));
    }
    // The chord rule on Fq2 values that are not points, against the rule
    // in arkworks' Fq2 arithmetic: components 0, 1, p - 1 and random ones
    // in every coordinate (x_p != x_q), so the lanes meet their largest
    // intermediate values.
    let edges = [Fq::ZERO, Fq::ONE, -Fq::ONE, -Fq::from(2u64), Fq::from(2u64)];
    let value = |rng: &mut rand_chacha::ChaCha20Rng| {
        let mut c = || match u32::rand(rng) % 3 {
            0 => edges[usize::rand(rng) % edges.len()],
            _ => Fq::rand(rng),
        };
        Fq2::new(c(), c())
    };
    let (mut px, mut py, mut qx, mut qy) = (vec![], vec![], vec![], vec![]);
    while px.len() < 2000 {
        let (a, b) = (value(&mut rng), value(&mut rng));
        if a != b {
            px.push(a);
            qx.push(b);
            py.push(value(&mut rng));
            qy.push(value(&mut rng));
        }
    }
    // Every pair of edge values as x_p, x_q (so d's components hit 0, 1
    // and p - 1 together), at the front.
    for (i, a) in edges.iter().enumerate() {
        for b in &edges[i..] {
            px[0] = Fq2::new(*a, *b);
            qx[0] = Fq2::new(*b, *a);
            px.rotate_left(1);
            qx.rotate_left(1);
        }
    }
    for i in 0..px.len() {
        if px[i] == qx[i] {
            qx[i] += Fq2::ONE;
        }
    }
    let want: Vec<(Fq2, Fq2)> = (0..px.len())
        .map(|i| {
            let l = (qy[i] - py[i]) / (qx[i] - px[i]);
            let x3 = l.square() - px[i] - qx[i];
            (x3, l * (px[i] - x3) - py[i])
        })
        .collect();
    let (mut x3, mut y3) = (px.clone(), py.clone());
    let accepted = zkaccel_ff::simd128::add_affine_batch_fp2(&mut x3, &mut y3, &qx, &qy);
    match (0..px.len()).find(|&i| (x3[i], y3[i]) != want[i]) {
        None if accepted => println!("ok   G2 chord rule on {} Fq2 edge values", px.len()),
        None => {
            eprintln!("FAIL the lanes refused BN254 Fq2");
            failures += 1;
        }
        Some(i) => {
            eprintln!(
                "FAIL G2 chord rule on Fq2 value {i}: {:?} + {:?}",
                (px[i], py[i]),
                (qx[i], qy[i])
            );
            failures += 1;
        }
    }

    // Through the MSM, against arkworks': 1 where it differs or fails.
    let msm_check = |name: &str, same: Result<bool, zkaccel_core::MsmError>| match same {
        Ok(true) => {
            println!("ok   {name} equals arkworks'");
            0
        }
        Ok(false) => {
            eprintln!("FAIL {name} differs from arkworks'");
            1
        }
        Err(e) => {
            eprintln!("FAIL {name}: {e}");
            1
        }
    };
    // Random terms, with repeated points, the point at infinity, 0, 1 and
    // r - 1 from 11 terms.
    fn terms<A: AffineRepr<ScalarField = Fr>>(
        n: usize,
        rng: &mut rand_chacha::ChaCha20Rng,
    ) -> (Vec<A>, Vec<Fr>) {
        let mut bases: Vec<A> = (0..n)
            .map(|_| (A::generator() * Fr::rand(rng)).into())
            .collect();
        let mut scalars: Vec<Fr> = (0..n).map(|_| Fr::rand(rng)).collect();
        if n > 10 {
            for i in (0..n).step_by(7) {
                bases[i] = bases[0];
            }
            bases[3] = A::zero();
            scalars[4] = Fr::ZERO;
            scalars[5] = Fr::ONE;
            scalars[6] = -Fr::ONE;
            for i in (8..n).step_by(11) {
                scalars[i] = Fr::ONE;
            }
        }
        (bases, scalars)
    }
    for n in [1usize, 100, 5000] {
        let (bases, scalars) = terms::<G1Affine>(n, &mut rng);
        let want = G1Projective::msm(&bases, &scalars).expect("equal lengths");
        let got = zkaccel_cpu::msm::msm(&bases, &scalars).map(|got| got == want);
        failures += msm_check(&format!("G1 MSM of {n} terms"), got);
    }
    for n in [1usize, 100, 3000] {
        let (bases, scalars) = terms::<G2Affine>(n, &mut rng);
        let want = G2Projective::msm(&bases, &scalars).expect("equal lengths");
        let got = zkaccel_cpu::msm::msm(&bases, &scalars).map(|got| got == want);
        failures += msm_check(&format!("G2 MSM of {n} terms"), got);
    }
    // WebAssembly's wider windows (`BATCH_AFFINE_WALK_MAX_WINDOW_WASM`):
    // 13 bits at 60,000 full-width terms, 15 from about 82,000.
    use zkaccel_cpu::msm::{pippenger_plan, BucketAdds};
    for (n, want) in [(60_000usize, 13u32), (100_000, 15), (1 << 17, 15)] {
        let (c, parts) = pippenger_plan(n, 254, BucketAdds::Lanes);
        if (c, parts) == (want, 1) {
            println!("ok   {n} full-width terms plan {c}-bit windows");
        } else {
            eprintln!(
                "FAIL {n} full-width terms plan {c}-bit windows on {parts} ranges, not {want} on 1"
            );
            failures += 1;
        }
    }
    // An MSM on 15-bit windows: bases i G (0 G the point at infinity, so
    // the sum is (sum i k_i) G, one scalar multiplication to check it).
    let n = 100_000usize;
    let mut chain = Vec::with_capacity(n);
    let mut acc = G1Projective::ZERO;
    for _ in 0..n {
        chain.push(acc);
        acc += g;
    }
    let bases = G1Projective::normalize_batch(&chain);
    let scalars: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let sum: Fr = scalars
        .iter()
        .enumerate()
        .map(|(i, k)| Fr::from(i as u64) * k)
        .sum();
    let got = zkaccel_cpu::msm::msm(&bases, &scalars).map(|got| got == g * sum);
    failures += msm_check(
        &format!("G1 MSM of {n} terms on 15-bit windows (against (sum i k_i) G)"),
        got,
    );
    if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `(p - 1) / 3` for BN254's Fq, as `pow` takes it.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn cube_exponent() -> [u64; 4] {
    use ark_ff::{BigInteger, PrimeField};
    let mut e = ark_bn254::Fq::MODULUS;
    e.sub_with_borrow(&1u64.into());
    // Long division of the four limbs by 3, most significant first.
    let mut out = [0u64; 4];
    let mut rem = 0u128;
    for i in (0..4).rev() {
        let cur = (rem << 64) | e.0[i] as u128;
        out[i] = (cur / 3) as u64;
        rem = cur % 3;
    }
    out
}
