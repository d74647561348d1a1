//! One scalar multiplication per method, next to arkworks' `Projective * Fr`,
//! on BN254 G1, BN254 G2, BLS12-381 G1 and secp256k1, in one run.
//!
//! Each iteration takes the next of 32 fixed (point, scalar) pairs, so every
//! contender sees the same inputs. `Dbc` includes computing the chain.
//! secp256k1 also runs NAF and DBC with the generic-`a` formulas: the paper's
//! setting (OpenSSL's generic curve code).

use ark_ec::short_weierstrass::Projective;
use ark_ec::PrimeGroup;
use ark_ff::UniformRand;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use zkaccel::cpu::{mul_scalar_with, CurveMul, FormulaSet, Plain, ScalarMulMethod};

fn bench_curve<P: CurveMul>(c: &mut Criterion, name: &str, glv: bool) {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let inputs: Vec<(Projective<P>, P::ScalarField)> = (0..32)
        .map(|_| {
            let p = Projective::<P>::generator() * P::ScalarField::rand(&mut rng);
            (p, P::ScalarField::rand(&mut rng))
        })
        .collect();
    let mut group = c.benchmark_group(format!("scalar_mul/{name}"));
    let mut i = 0usize;
    group.bench_function("arkworks", |b| {
        b.iter(|| {
            i = (i + 1) % inputs.len();
            let (p, k) = &inputs[i];
            black_box(*black_box(p) * black_box(k))
        })
    });
    let own = FormulaSet::for_curve::<P>();
    let mut runs: Vec<(String, ScalarMulMethod, FormulaSet)> = vec![
        ("auto".into(), ScalarMulMethod::Auto, own),
        ("naf".into(), ScalarMulMethod::Naf, own),
        ("wnaf-4".into(), ScalarMulMethod::Wnaf(4), own),
        ("wnaf-5".into(), ScalarMulMethod::Wnaf(5), own),
        ("dbc-1".into(), ScalarMulMethod::Dbc { delta: 1 }, own),
        ("dbc-2".into(), ScalarMulMethod::Dbc { delta: 2 }, own),
    ];
    if glv {
        runs.push(("glv".into(), ScalarMulMethod::Glv, own));
    }
    if own != FormulaSet::Generic && !glv {
        runs.push((
            "naf-generic-a".into(),
            ScalarMulMethod::Naf,
            FormulaSet::Generic,
        ));
        runs.push((
            "dbc-1-generic-a".into(),
            ScalarMulMethod::Dbc { delta: 1 },
            FormulaSet::Generic,
        ));
    }
    for (label, method, set) in runs {
        group.bench_function(BenchmarkId::from_parameter(label), |b| {
            b.iter(|| {
                i = (i + 1) % inputs.len();
                let (p, k) = &inputs[i];
                black_box(mul_scalar_with(black_box(p), k, method, set, &mut Plain).unwrap())
            })
        });
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    bench_curve::<ark_bn254::g1::Config>(c, "bn254-g1", true);
    bench_curve::<ark_bn254::g2::Config>(c, "bn254-g2", true);
    bench_curve::<ark_bls12_381::g1::Config>(c, "bls12-381-g1", true);
    bench_curve::<ark_secp256k1::Config>(c, "secp256k1", false);
}

criterion_group!(scalar_mul, benches);
criterion_main!(scalar_mul);
