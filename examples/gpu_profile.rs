//! Times the GPU backend's pieces on one machine, each result checked
//! against arkworks first: the bucket and per-thread DBC MSMs (dense and
//! sparse BN254 G1), Groth16's quotient (alone and fused with the H MSM on
//! resident bases) and the NTT over BN254 Fr, at the sizes given (log2).
//! Set `ZKACCEL_CUDA_PROFILE=1` for per-step timings of each GPU call.
//!
//! `cargo run --release --features cuda --example gpu_profile -- [--msm 10,16,20] [--ntt 12,16,20] [--reps R]`
//!
//! Without a GPU it says so and exits with status 2. The numbers are
//! wall-clock medians of `R` runs (default 5), GPU calls including their
//! transfers; arkworks runs once per size (its time is for scale only: the
//! benchmark `cargo bench --features cuda --bench cuda` is the comparison).

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::VariableBaseMSM;
use ark_ff::{UniformRand, Zero};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::sync::Arc;
use std::time::Instant;
use zkaccel::cpu::MsmProvider;
use zkaccel::cuda::{CudaContext, CudaMsm, CudaNtt, GpuMethod};
use zkaccel::ntt::{Direction, NttDomain, NttProvider, QuotientForm};

fn logs(args: &[String], flag: &str, default: &[u32]) -> Vec<u32> {
    match args.iter().position(|a| a == flag) {
        Some(i) => args
            .get(i + 1)
            .map(|v| v.split(',').filter_map(|x| x.parse().ok()).collect())
            .unwrap_or_default(),
        None => default.to_vec(),
    }
}

fn median_ms(reps: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

use zkaccel_testkit::inputs;

fn bases(n: usize, rng: &mut ChaCha20Rng) -> Vec<G1Affine> {
    inputs::progression(n, rng)
}

fn main() {
    // The library's log lines (backend choice, GPU fallbacks, GPU profiles);
    // RUST_LOG overrides the level.
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let args: Vec<String> = std::env::args().collect();
    let reps = logs(&args, "--reps", &[5])[0].max(1) as usize;
    let ctx = match CudaContext::new(0) {
        Ok(c) => Arc::new(c),
        Err(e) => {
            eprintln!("gpu_profile: no GPU to profile: {e}");
            std::process::exit(2);
        }
    };
    println!(
        "GPU 0: {} ({} MiB), {} CPU threads",
        ctx.name(),
        ctx.total_memory() >> 20,
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    for log in logs(&args, "--msm", &[6, 8, 10, 12, 14, 16, 18, 20]) {
        let n = 1usize << log;
        let b = bases(n, &mut rng);
        let dense: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let sparse: Vec<Fr> = dense
            .iter()
            .enumerate()
            .map(|(i, s)| if i % 64 == 0 { *s } else { Fr::zero() })
            .collect();
        for (kind, k) in [("dense", &dense), ("1/64 non-zero", &sparse)] {
            let s = Instant::now();
            let want = G1Projective::msm(&b, k).unwrap();
            let ark = s.elapsed().as_secs_f64() * 1e3;
            let cpu = median_ms(reps.min(3), || {
                assert_eq!(zkaccel::cpu::msm(&b, k).unwrap(), want);
            });
            let mut line =
                format!("msm 2^{log} {kind}: arkworks {ark:.2} ms, zkaccel-cpu {cpu:.2} ms");
            let m = CudaMsm::with_context(ctx.clone());
            let resident = m.upload(&b).unwrap();
            match m.msm_resident(&resident, k) {
                Ok(got) if got == want => {
                    let t = median_ms(reps, || {
                        let _ = std::hint::black_box(m.msm_resident(&resident, k).unwrap());
                    });
                    line += &format!(", Bucket on resident bases {t:.2} ms ({:.1}x)", ark / t);
                }
                Ok(_) => line += ", resident WRONG RESULT",
                Err(e) => line += &format!(", resident error: {e}"),
            }
            for method in [GpuMethod::Bucket, GpuMethod::DbcPerThread] {
                if method == GpuMethod::DbcPerThread && n > 1 << 16 && kind == "dense" {
                    continue;
                }
                let m = CudaMsm::with_context(ctx.clone()).with_method(method);
                match m.msm(&b, k) {
                    Ok(got) if got == want => {
                        let t = median_ms(reps, || {
                            let _ = std::hint::black_box(m.msm(&b, k).unwrap());
                        });
                        line += &format!(", {method:?} {t:.2} ms ({:.1}x)", ark / t);
                    }
                    Ok(_) => line += &format!(", {method:?} WRONG RESULT"),
                    Err(e) => line += &format!(", {method:?} error: {e}"),
                }
            }
            println!("{line}");
        }
    }
    let ntt = CudaNtt::with_context(ctx.clone());
    for log in logs(&args, "--quotient", &[16, 18, 20]) {
        let n = 1usize << log;
        let abc: [Vec<Fr>; 3] =
            std::array::from_fn(|_| (0..n).map(|_| Fr::rand(&mut rng)).collect());
        let d = NttDomain::<Fr>::new(n).unwrap();
        let c = d.get_coset(ark_ff::FftField::GENERATOR).unwrap();
        let cpu = CudaNtt::cpu(); // the CPU path of the same call
        let s = Instant::now();
        let want = cpu.quotient(&d, &c, abc.clone()).unwrap();
        let cpu_ms = s.elapsed().as_secs_f64() * 1e3;
        let line = match ntt.quotient(&d, &c, abc.clone()) {
            Ok(h) if h == want => {
                // inputs cloned before the clock starts: the call consumes them
                let mut pool: Vec<[Vec<Fr>; 3]> = (0..reps).map(|_| abc.clone()).collect();
                let t = median_ms(reps, || {
                    let abc = pool.pop().unwrap();
                    let _ = std::hint::black_box(ntt.quotient(&d, &c, abc).unwrap());
                });
                format!(
                    "zkaccel-cpu {cpu_ms:.2} ms, cuda {t:.3} ms ({:.1}x)",
                    cpu_ms / t
                )
            }
            Ok(_) => "cuda WRONG RESULT".to_string(),
            Err(e) => format!("cuda error: {e}"),
        };
        println!("quotient (7 NTTs) 2^{log}: {line}");

        // The quotient fused with the H MSM (h kept on the device), on
        // resident bases: Groth16's last device job.
        let hb = bases(n - 1, &mut rng);
        let want_msm = G1Projective::msm(&hb, &want[..n - 1]).unwrap();
        let m = CudaMsm::with_context(ctx.clone());
        let resident = m.upload(&hb).unwrap();
        let line = match resident.quotient_msm(&d, &c, abc.clone()) {
            Ok(p) if p == want_msm => {
                let mut pool: Vec<[Vec<Fr>; 3]> = (0..reps).map(|_| abc.clone()).collect();
                let t = median_ms(reps, || {
                    let abc = pool.pop().unwrap();
                    let _ = std::hint::black_box(resident.quotient_msm(&d, &c, abc).unwrap());
                });
                format!("cuda {t:.3} ms on resident bases")
            }
            Ok(_) => "cuda WRONG RESULT".to_string(),
            Err(e) => format!("cuda error: {e}"),
        };
        println!("quotient and H MSM (h kept on the device) 2^{log}: {line}");

        // circom's form (a b - c on the odd 2n-th roots, six transforms),
        // fused with the MSM on an H query as long as the domain.
        let form = QuotientForm::CosetEvaluations;
        let odd = NttDomain::<Fr>::new(2 * n).unwrap().group_gen();
        let c = d.get_coset(odd).unwrap();
        let want = CudaNtt::cpu()
            .quotient_in(&d, &c, abc.clone(), form)
            .unwrap();
        let hb = bases(n, &mut rng);
        let want_msm = G1Projective::msm(&hb, &want).unwrap();
        let resident = m.upload(&hb).unwrap();
        let line = match resident.quotient_msm_in(&d, &c, abc.clone(), form) {
            Ok(p) if p == want_msm => {
                let mut pool: Vec<[Vec<Fr>; 3]> = (0..reps).map(|_| abc.clone()).collect();
                let t = median_ms(reps, || {
                    let abc = pool.pop().unwrap();
                    let r = resident.quotient_msm_in(&d, &c, abc, form);
                    let _ = std::hint::black_box(r.unwrap());
                });
                format!("cuda {t:.3} ms on resident bases")
            }
            Ok(_) => "cuda WRONG RESULT".to_string(),
            Err(e) => format!("cuda error: {e}"),
        };
        println!("circom quotient (6 NTTs) and H MSM 2^{log}: {line}");
    }
    for log in logs(&args, "--ntt", &[12, 16, 18, 20, 22]) {
        let n = 1usize << log;
        let v: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let ark = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
        let ours = NttDomain::<Fr>::new(n).unwrap();
        let s = Instant::now();
        let want = ark.fft(&v);
        let ark_ms = s.elapsed().as_secs_f64() * 1e3;
        let mut batch = vec![v.clone()];
        let line = match ntt.transform_batch(&ours, &mut batch, Direction::Forward) {
            Ok(()) if batch[0] == want => {
                // in place, over and over: the time of a transform, not of a copy
                let mut b = vec![v.clone()];
                let t = median_ms(reps, || {
                    ntt.transform_batch(&ours, &mut b, Direction::Forward)
                        .unwrap();
                });
                format!(
                    "ark-poly {ark_ms:.2} ms, cuda {t:.3} ms ({:.1}x)",
                    ark_ms / t
                )
            }
            Ok(()) => "cuda WRONG RESULT".to_string(),
            Err(e) => format!("cuda error: {e}"),
        };
        println!("ntt 2^{log}: {line}");
    }
}
