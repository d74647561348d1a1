//! MSM on BN254 G1: zkaccel's algorithms and arkworks' `VariableBaseMSM::msm`
//! (with its `parallel` feature) on the same inputs, in one run. A compact
//! grid: dense 2^10..2^16, sparse (sqrt(d) and 1/100 nonzero) at 2^16, and
//! 64-bit scalars at 2^14 (arkworks' `msm_u64` is the reference there).
//! `cargo bench --bench msm`; `compare msm` gives interleaved medians.

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::VariableBaseMSM;
use ark_ff::UniformRand;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use zkaccel::cpu::{msm_with, MsmAlgorithm};

#[path = "support/inputs.rs"]
mod inputs;

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

criterion_group!(benches, bench_msm);
criterion_main!(benches);
