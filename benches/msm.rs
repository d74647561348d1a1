//! MSM on BN254 G1: zkaccel's algorithms and arkworks' `VariableBaseMSM::msm`
//! (with its `parallel` feature) on the same inputs, in one run. A compact
//! grid: dense 2^10..2^16, sparse (sqrt(d) and 1/100 nonzero) at 2^16, and
//! 64-bit scalars at 2^14 (arkworks' `msm_u64` is the reference there).
//! `cargo bench --bench msm`; `compare msm` gives interleaved medians.
//!
//! `ZKACCEL_BENCH_MSM_FULL=1` adds issue 4's whole grid (hours on a 2-core
//! machine): sizes 2^10, 2^12, ..., 2^20 (`ZKACCEL_BENCH_MSM_LOG_MAX`
//! lowers the top), densities 1, sqrt(n)/n, 1/100 and 1/1000, scalar widths
//! 1, 8, 16, 32, 64 and full; per cell arkworks' `msm` and every algorithm
//! except where its cost makes it hopeless (`support/grid.rs` says where).
//! `cargo run --release --example msm_grid` runs the same cells with
//! interleaved paired ratios, which resolve Auto against the best single
//! algorithm better than separate criterion runs on a noisy machine.

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::VariableBaseMSM;
use ark_ff::UniformRand;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use zkaccel::cpu::{msm_with, MsmAlgorithm};

use zkaccel_testkit::grid;
use zkaccel_testkit::inputs;

fn bases(rng: &mut ChaCha20Rng, n: usize) -> Vec<G1Affine> {
    inputs::progression(n, rng)
}

fn bench_msm(c: &mut Criterion) {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let mut group = c.benchmark_group("msm/bn254-g1");
    group.sample_size(10);
    let mut run = |label: String, b: &[G1Affine], s: &[Fr], algs: &[MsmAlgorithm]| {
        group.bench_function(BenchmarkId::new("arkworks", &label), |bn| {
            bn.iter(|| black_box(G1Projective::msm(black_box(b), black_box(s)).unwrap()))
        });
        for alg in algs {
            group.bench_function(BenchmarkId::new(format!("{alg:?}"), &label), |bn| {
                bn.iter(|| black_box(msm_with(black_box(b), black_box(s), *alg).unwrap()))
            });
        }
    };
    for log_n in [10usize, 12, 14, 16] {
        let b = bases(&mut rng, 1 << log_n);
        let s: Vec<Fr> = (0..1 << log_n).map(|_| Fr::rand(&mut rng)).collect();
        let algs: &[MsmAlgorithm] = if log_n <= 10 {
            &[
                MsmAlgorithm::Auto,
                MsmAlgorithm::Pippenger,
                MsmAlgorithm::Strauss,
            ]
        } else {
            &[
                MsmAlgorithm::Auto,
                MsmAlgorithm::Pippenger,
                MsmAlgorithm::PippengerGlv,
            ]
        };
        run(format!("dense-2^{log_n}"), &b, &s, algs);
    }
    let n = 1 << 16;
    let b = bases(&mut rng, n);
    for (label, nonzero) in [("sqrt", 256usize), ("1/100", n / 100)] {
        let mut s = vec![Fr::from(0u64); n];
        for _ in 0..nonzero {
            s[rng.gen_range(0..n)] = Fr::rand(&mut rng);
        }
        run(
            format!("sparse-{label}-2^16"),
            &b,
            &s,
            &[MsmAlgorithm::Auto, MsmAlgorithm::Pippenger],
        );
    }
    if std::env::var("ZKACCEL_BENCH_MSM_FULL").is_ok_and(|v| v == "1") {
        full_grid(&mut rng, &mut run);
    }
    let b14 = &b[..1 << 14];
    let small: Vec<u64> = (0..1 << 14).map(|_| rng.gen()).collect();
    let small_fr: Vec<Fr> = small.iter().map(|&x| Fr::from(x)).collect();
    group.bench_function("arkworks-msm_u64/64-bit-2^14", |bn| {
        bn.iter(|| black_box(G1Projective::msm_u64(black_box(b14), black_box(&small))))
    });
    group.bench_function("Auto/64-bit-2^14", |bn| {
        bn.iter(|| {
            black_box(msm_with(black_box(b14), black_box(&small_fr), MsmAlgorithm::Auto).unwrap())
        })
    });
    group.finish();
}

/// Issue 4's grid (`support/grid.rs`); see the module docs.
fn full_grid(
    rng: &mut ChaCha20Rng,
    run: &mut impl FnMut(String, &[G1Affine], &[Fr], &[MsmAlgorithm]),
) {
    let log_max: usize = std::env::var("ZKACCEL_BENCH_MSM_LOG_MAX")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let all = bases(rng, 1 << log_max);
    for log_n in (10..=log_max).step_by(2) {
        let n = 1usize << log_n;
        let b = &all[..n];
        for density in grid::DENSITIES {
            for bits in grid::WIDTHS {
                let s = grid::scalars(n, density, bits, rng);
                let algs = grid::algorithms(n, grid::nonzero(n, density));
                let width = grid::width_label(bits);
                run(format!("grid-2^{log_n}-d{density}-b{width}"), b, &s, &algs);
            }
        }
    }
}

criterion_group!(benches, bench_msm);
criterion_main!(benches);
