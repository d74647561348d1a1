//! The GPU backend against arkworks on the same inputs (BN254): `CudaMsm`
//! (its `Auto`: bucket method for dense inputs) against arkworks' `msm`, and
//! `CudaNtt` against ark-poly, at 2^16 and 2^ZKACCEL_BENCH_CUDA_LOG_MAX
//! (default 20), and a batch of 64 transforms of 2^12 (one batched launch
//! per pass, against ark-poly and against the same GPU transforms issued
//! one vector at a time), and Groth16's quotient with the H MSM, `h` kept
//! on the device against `h` downloaded and uploaded again. Results are
//! checked equal before timing. Needs the feature
//! `cuda` and a GPU: `cargo bench --features cuda --bench cuda`; elsewhere it
//! prints SKIPPED with the reason and measures nothing.

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::VariableBaseMSM;
use ark_ff::{FftField, UniformRand};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use std::sync::Arc;
use zkaccel::cpu::MsmProvider;
use zkaccel::cuda::{CudaContext, CudaMsm, CudaNtt};
use zkaccel::ntt::{Direction, NttDomain, NttProvider};

use zkaccel_testkit::inputs;

fn log_max() -> u32 {
    std::env::var("ZKACCEL_BENCH_CUDA_LOG_MAX")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20)
}

/// Another vector of the same length, derived from `v` (`x * (k + x)`).
fn derived_vector(v: &[Fr], k: u64) -> Vec<Fr> {
    v.iter().map(|x| *x * (Fr::from(k) + x)).collect()
}

fn bench_cuda(c: &mut Criterion) {
    let ctx = match CudaContext::new(0) {
        Ok(ctx) => Arc::new(ctx),
        Err(e) => {
            eprintln!("SKIPPED bench cuda: needs a GPU: {e}");
            return;
        }
    };
    eprintln!("bench cuda on GPU 0: {}", ctx.name());
    let (msm, ntt) = (
        CudaMsm::with_context(ctx.clone()),
        CudaNtt::with_context(ctx),
    );
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let mut group = c.benchmark_group("cuda/bn254");
    group.sample_size(10);
    let mut logs = vec![16u32];
    if log_max() > 16 {
        logs.push(log_max());
    }
    for log_n in logs {
        let n = 1usize << log_n;
        let bases: Vec<G1Affine> = inputs::progression(n, &mut rng);
        let scalars: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let want = G1Projective::msm(&bases, &scalars).unwrap();
        assert_eq!(msm.msm(&bases, &scalars).unwrap(), want, "GPU MSM differs");
        let label = format!("msm-2^{log_n}");
        group.bench_function(BenchmarkId::new("arkworks", &label), |b| {
            b.iter(|| black_box(G1Projective::msm(&bases, &scalars).ok()))
        });
        group.bench_function(BenchmarkId::new("zkaccel-cuda", &label), |b| {
            b.iter(|| black_box(msm.msm(&bases, &scalars).ok()))
        });

        let ark = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
        let ours = NttDomain::<Fr>::new(n).unwrap();
        let mut batch = vec![scalars.clone()];
        ntt.transform_batch(&ours, &mut batch, Direction::Forward)
            .unwrap();
        assert_eq!(batch[0], ark.fft(&scalars), "GPU NTT differs");
        let label = format!("fft-2^{log_n}");
        group.bench_function(BenchmarkId::new("ark-poly", &label), |b| {
            b.iter(|| black_box(ark.fft(&scalars)))
        });
        group.bench_function(BenchmarkId::new("zkaccel-cuda", &label), |b| {
            b.iter(|| {
                let mut v = vec![scalars.clone()];
                black_box(ntt.transform_batch(&ours, &mut v, Direction::Forward).ok())
            })
        });

        // Groth16's quotient and H MSM: h kept on the device, against the
        // quotient job and then the MSM (h down and up again).
        let coset = ours.get_coset(Fr::GENERATOR).unwrap();
        let abc = [
            scalars.clone(),
            derived_vector(&scalars, 1),
            derived_vector(&scalars, 2),
        ];
        let h_bases = &bases[..n - 1];
        let fused = msm
            .quotient_msm(&ours, &coset, abc.clone(), h_bases)
            .unwrap();
        let h = ntt.quotient(&ours, &coset, abc.clone()).unwrap();
        assert_eq!(
            fused,
            G1Projective::msm(h_bases, &h[..n - 1]).unwrap(),
            "fused job differs"
        );
        let label = format!("quotient-and-h-msm-2^{log_n}");
        group.bench_function(BenchmarkId::new("zkaccel-cuda-fused", &label), |b| {
            b.iter(|| black_box(msm.quotient_msm(&ours, &coset, abc.clone(), h_bases).ok()))
        });
        group.bench_function(BenchmarkId::new("zkaccel-cuda-apart", &label), |b| {
            b.iter(|| {
                let h = ntt.quotient(&ours, &coset, abc.clone()).unwrap();
                black_box(msm.msm(h_bases, &h[..n - 1]).ok())
            })
        });
    }

    // A batch of small transforms: one upload and one launch per pass for
    // all of them, against one call per vector.
    let (log_n, vectors) = (12u32, 64usize);
    let n = 1usize << log_n;
    let ark = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
    let ours = NttDomain::<Fr>::new(n).unwrap();
    let batch: Vec<Vec<Fr>> = (0..vectors)
        .map(|_| (0..n).map(|_| Fr::rand(&mut rng)).collect())
        .collect();
    let mut got = batch.clone();
    ntt.transform_batch(&ours, &mut got, Direction::Forward)
        .unwrap();
    for (g, v) in got.iter().zip(&batch) {
        assert_eq!(*g, ark.fft(v), "GPU batched NTT differs");
    }
    let label = format!("fft-batch-{vectors}x2^{log_n}");
    group.bench_function(BenchmarkId::new("ark-poly", &label), |b| {
        b.iter(|| black_box(batch.iter().map(|v| ark.fft(v)).collect::<Vec<_>>()))
    });
    group.bench_function(BenchmarkId::new("zkaccel-cuda", &label), |b| {
        b.iter(|| {
            let mut v = batch.clone();
            black_box(ntt.transform_batch(&ours, &mut v, Direction::Forward).ok())
        })
    });
    group.bench_function(BenchmarkId::new("zkaccel-cuda-one-by-one", &label), |b| {
        b.iter(|| {
            let mut v = batch.clone();
            for x in v.iter_mut() {
                let one = std::slice::from_mut(x);
                black_box(ntt.transform_batch(&ours, one, Direction::Forward).ok());
            }
            v
        })
    });
    group.finish();
}

criterion_group!(benches, bench_cuda);
criterion_main!(benches);
