//! NTT on BN254 Fr: zkaccel's `NttDomain` against ark-poly's
//! `Radix2EvaluationDomain` (with its `parallel` feature) on the same vectors,
//! in one run: forward transforms 2^10..2^ZKACCEL_BENCH_NTT_LOG_MAX (default
//! 22; at 2^16 also the AVX2, ADX and portable kernels forced), coset
//! forward and inverse at 2^16, and the Groth16 witness-map
//! sequence (3 ifft, 3 coset fft, 1 coset ifft) at 2^16 and 2^20.
//! `cargo bench --bench ntt`; `compare ntt` gives interleaved medians.

use ark_bn254::Fr;
use ark_ff::{FftField, UniformRand};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use zkaccel::ntt::{Direction, Kernel, NttDomain};

fn log_max() -> u32 {
    std::env::var("ZKACCEL_BENCH_NTT_LOG_MAX")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(22)
}

fn random(rng: &mut ChaCha20Rng, n: usize) -> Vec<Fr> {
    (0..n).map(|_| Fr::rand(rng)).collect()
}

fn bench_ntt(c: &mut Criterion) {
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let mut group = c.benchmark_group("ntt/bn254-fr");
    group.sample_size(10);
    for log_n in (10..=log_max()).step_by(2) {
        let n = 1usize << log_n;
        let (ark, ours) = (
            Radix2EvaluationDomain::<Fr>::new(n).unwrap(),
            NttDomain::<Fr>::new(n).unwrap(),
        );
        let mut v = random(&mut rng, n);
        let label = format!("fft-2^{log_n}");
        group.bench_function(BenchmarkId::new("ark-poly", &label), |b| {
            b.iter(|| ark.fft_in_place(black_box(&mut v)))
        });
        group.bench_function(BenchmarkId::new("zkaccel", &label), |b| {
            b.iter(|| ours.fft_in_place(black_box(&mut v)))
        });
        if log_n == 16 {
            // The kernels a CPU without IFMA runs (where this one has them).
            for (name, kernel) in [("zkaccel-avx2", Kernel::Avx2), ("zkaccel-adx", Kernel::Adx)] {
                if ours.transform(&mut v, Direction::Forward, kernel).is_err() {
                    eprintln!("{name}: skipped (this CPU lacks it, or ZKACCEL_KERNEL caps it)");
                    continue;
                }
                group.bench_function(BenchmarkId::new(name, &label), |b| {
                    b.iter(|| {
                        ours.transform(black_box(&mut v), Direction::Forward, kernel)
                            .unwrap()
                    })
                });
            }
            group.bench_function(BenchmarkId::new("zkaccel-portable", &label), |b| {
                b.iter(|| {
                    ours.transform(black_box(&mut v), Direction::Forward, Kernel::Portable)
                        .unwrap()
                })
            });
            let (ark_c, ours_c) = (
                ark.get_coset(Fr::GENERATOR).unwrap(),
                ours.get_coset(Fr::GENERATOR).unwrap(),
            );
            for (name, inverse) in [("coset-fft", false), ("coset-ifft", true)] {
                let label = format!("{name}-2^{log_n}");
                group.bench_function(BenchmarkId::new("ark-poly", &label), |b| {
                    b.iter(|| {
                        if inverse {
                            ark_c.ifft_in_place(black_box(&mut v))
                        } else {
                            ark_c.fft_in_place(black_box(&mut v))
                        }
                    })
                });
                group.bench_function(BenchmarkId::new("zkaccel", &label), |b| {
                    b.iter(|| {
                        if inverse {
                            ours_c.ifft_in_place(black_box(&mut v))
                        } else {
                            ours_c.fft_in_place(black_box(&mut v))
                        }
                    })
                });
            }
        }
    }
    for log_n in [16u32, 20].into_iter().filter(|l| *l <= log_max()) {
        let n = 1usize << log_n;
        let (ark, ours) = (
            Radix2EvaluationDomain::<Fr>::new(n).unwrap(),
            NttDomain::<Fr>::new(n).unwrap(),
        );
        let (ark_c, ours_c) = (
            ark.get_coset(Fr::GENERATOR).unwrap(),
            ours.get_coset(Fr::GENERATOR).unwrap(),
        );
        let mut abc: Vec<Vec<Fr>> = (0..3).map(|_| random(&mut rng, n)).collect();
        let label = format!("groth16-sequence-2^{log_n}");
        group.bench_function(BenchmarkId::new("ark-poly", &label), |b| {
            b.iter(|| {
                abc.iter_mut().for_each(|x| ark.ifft_in_place(x));
                abc.iter_mut().for_each(|x| ark_c.fft_in_place(x));
                ark_c.ifft_in_place(&mut abc[0]);
            })
        });
        group.bench_function(BenchmarkId::new("zkaccel", &label), |b| {
            b.iter(|| {
                ours.transform_batch(&mut abc, Direction::Inverse, Kernel::Auto)
                    .unwrap();
                ours_c
                    .transform_batch(&mut abc, Direction::Forward, Kernel::Auto)
                    .unwrap();
                ours_c
                    .transform(&mut abc[0], Direction::Inverse, Kernel::Auto)
                    .unwrap();
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_ntt);
criterion_main!(benches);
