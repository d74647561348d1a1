//! The SIMD128 lanes' chord additions (`zkaccel_ff::simd128`) checked in
//! WebAssembly: `scripts/wasm-check.sh` builds it for `wasm32-wasip1` with
//! `-C target-feature=+simd128` and runs it under node's WASI. It exits
//! non-zero unless, on BN254 G1,
//! - every batch of chord additions (lengths 1-9, 16, 17, 255 and 1,000,
//!   so every padding of the last group of eight) equals arkworks' affine
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
//!   15-bit windows equals `(sum i k_i) G` (its bases are `i G`).
//!
//! ```text
//! RUSTFLAGS="-C target-feature=+simd128" cargo build -p zkaccel-cpu --example wasm_chords --target wasm32-wasip1
//! node scripts/wasm-run.mjs target/wasm32-wasip1/debug/examples/wasm_chords.wasm
//! ```

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn main() {
    println!("wasm_chords checks WebAssembly's SIMD128 lanes: built for wasm32 with +simd128 (scripts/wasm-check.sh)");
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn main() -> std::process::ExitCode {
    use ark_bn254::{Fq, Fr, G1Affine, G1Projective};
    use ark_ec::{AffineRepr, CurveGroup, VariableBaseMSM};
    use ark_ff::{AdditiveGroup, Field, UniformRand};
    use rand::SeedableRng;
    use std::process::ExitCode;

    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
    let g = G1Affine::generator();
    // A non-trivial cube root of unity in Fq: (x, y) -> (w x, y) keeps a
    // point on y^2 = x^3 + 3 with the same y.
    let w = (2u64..)
        .map(|b| Fq::from(b).pow(cube_exponent()))
        .find(|w| *w != Fq::ONE)
        .expect("a cube root of unity");
    assert_eq!(w * w * w, Fq::ONE);
    let rand_point = |rng: &mut rand_chacha::ChaCha20Rng| (g * Fr::rand(rng)).into_affine();
    let mut failures = 0;
    let mut check = |name: &str, p: &[G1Affine], q: &[G1Affine]| {
        let (mut px, mut py): (Vec<Fq>, Vec<Fq>) = p.iter().map(|a| (a.x, a.y)).unzip();
        let (qx, qy): (Vec<Fq>, Vec<Fq>) = q.iter().map(|a| (a.x, a.y)).unzip();
        if !zkaccel_ff::simd128::add_affine_batch(&mut px, &mut py, &qx, &qy) {
            eprintln!("FAIL {name}: the lanes refused BN254 Fq");
            failures += 1;
            return;
        }
        for i in 0..p.len() {
            let want = (p[i] + q[i]).into_affine();
            if (px[i], py[i]) != (want.x, want.y) {
                eprintln!(
                    "FAIL {name}: addition {i} of {} differs from arkworks'",
                    p.len()
                );
                failures += 1;
                return;
            }
        }
        println!("ok   {name}: {} additions equal arkworks'", p.len());
    };
    for n in [1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17, 255, 1000] {
        let p: Vec<_> = (0..n).map(|_| rand_point(&mut rng)).collect();
        let q: Vec<_> = (0..n).map(|_| rand_point(&mut rng)).collect();
        check(&format!("random, {n}"), &p, &q);
    }
    // Edge points mixed with random ones, every one in its own lane.
    let mut p = Vec::new();
    let mut q = Vec::new();
    for i in 0..40 {
        let r = rand_point(&mut rng);
        let (a, b) = match i % 5 {
            // The generator and its negative (y = p - 2).
            0 => (g, r),
            1 => (r, -g),
            // Equal y: a zero slope.
            2 => (r, G1Affine::new_unchecked(w * r.x, r.y)),
            // Q = 2P.
            3 => (r, (r + r).into_affine()),
            // A sum landing on -G: (-G - R) + R.
            _ => ((-g + -r).into_affine(), r),
        };
        p.push(a);
        q.push(b);
    }
    check("edge points", &p, &q);

    // Through the MSM, against arkworks'.
    for n in [1usize, 100, 5000] {
        let mut bases: Vec<G1Affine> = (0..n).map(|_| rand_point(&mut rng)).collect();
        let mut scalars: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        if n > 10 {
            // Repeated points, the point at infinity, 0, 1 and r - 1.
            for i in (0..n).step_by(7) {
                bases[i] = bases[0];
            }
            bases[3] = G1Affine::identity();
            scalars[4] = Fr::ZERO;
            scalars[5] = Fr::ONE;
            scalars[6] = -Fr::ONE;
            for i in (8..n).step_by(11) {
                scalars[i] = Fr::ONE;
            }
        }
        let want = G1Projective::msm(&bases, &scalars).expect("equal lengths");
        match zkaccel_cpu::msm::msm(&bases, &scalars) {
            Ok(got) if got == want => println!("ok   MSM of {n} terms equals arkworks'"),
            Ok(_) => {
                eprintln!("FAIL MSM of {n} terms differs from arkworks'");
                failures += 1;
            }
            Err(e) => {
                eprintln!("FAIL MSM of {n} terms: {e}");
                failures += 1;
            }
        }
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
    match zkaccel_cpu::msm::msm(&bases, &scalars) {
        Ok(got) if got == g * sum => {
            println!("ok   MSM of {n} terms on 15-bit windows equals (sum i k_i) G")
        }
        Ok(_) => {
            eprintln!("FAIL MSM of {n} terms on 15-bit windows differs from (sum i k_i) G");
            failures += 1;
        }
        Err(e) => {
            eprintln!("FAIL MSM of {n} terms: {e}");
            failures += 1;
        }
    }
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
