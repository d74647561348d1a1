//! The runtime: what `CudaContext` and `CudaMsm` do. Every device test body
//! runs on each device there is: the host emulation of the kernels (always;
//! the same pipelines and launches as the GPU, at smaller sizes) and the GPU
//! when the build has the feature `cuda` and the machine a GPU (otherwise
//! the GPU's turn prints SKIPPED with the reason). Every result is compared
//! with arkworks.
#![cfg(feature = "emulation")] // the host build of the kernels is the reference

use ark_bn254::{Fq, Fr, G1Affine, G1Projective};
use ark_ec::AffineRepr;
use ark_ec::{CurveGroup, VariableBaseMSM};
use ark_ff::{PrimeField, UniformRand, Zero};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::sync::Arc;
use zkaccel_cpu::{MsmError, MsmProvider};
use zkaccel_cuda::layout::{fq_limbs, DeviceAffine, DeviceJacobian, DeviceXyzz};
use zkaccel_cuda::{CudaContext, CudaError, CudaMsm, GpuMethod, COMPILED_WITH_CUDA, GPU_MIN_TERMS};

fn rng() -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(11)
}

/// The devices to run `test` on: the emulation, and the GPU if there is
/// one (else a SKIPPED line saying why not).
fn devices(test: &str) -> Vec<Arc<CudaContext>> {
    let mut all = vec![Arc::new(CudaContext::emulated())];
    match CudaContext::new(0) {
        Ok(ctx) => {
            println!("{test}: also on GPU {} ({})", ctx.ordinal(), ctx.name());
            all.push(Arc::new(ctx));
        }
        Err(e) => {
            // Straight to the stderr handle, past the test harness's capture,
            // so a skipped GPU run is visible in every test run's output.
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED {test} on a GPU (ran on the host emulation only): {e}"
            );
        }
    }
    all
}

#[test]
fn context_reports_why_there_is_no_gpu() {
    match CudaContext::new(0) {
        Ok(ctx) => println!("GPU present: {} ({} bytes)", ctx.name(), ctx.total_memory()),
        Err(e) if !COMPILED_WITH_CUDA => assert_eq!(e, CudaError::NotCompiled),
        Err(e) => {
            // Built with CUDA on a machine without a GPU: a clean NoDevice.
            assert_eq!(e, CudaError::NoDevice, "unexpected: {e}");
            assert!(e.to_string().contains("no CUDA device"));
        }
    }
    // A device that cannot exist is an error, never a panic.
    assert!(CudaContext::new(1_000_000).is_err());
}

fn inputs(n: usize) -> (Vec<G1Affine>, Vec<Fr>) {
    let mut r = rng();
    let bases: Vec<G1Projective> = (0..n).map(|_| G1Projective::rand(&mut r)).collect();
    let scalars = (0..n).map(|_| Fr::rand(&mut r)).collect();
    (G1Projective::normalize_batch(&bases), scalars)
}

#[test]
fn cuda_msm_or_cpu_is_correct_everywhere() {
    let msm = CudaMsm::or_cpu(0);
    if msm.uses_gpu() {
        assert!(msm.fallback_reason().is_none());
        assert_eq!(MsmProvider::<ark_bn254::g1::Config>::name(&msm), "cuda");
    } else {
        println!(
            "CudaMsm fell back to the CPU: {}",
            msm.fallback_reason().expect("a reason")
        );
        assert_eq!(
            MsmProvider::<ark_bn254::g1::Config>::name(&msm),
            "cuda (cpu fallback)"
        );
    }
    for n in [0usize, 1, 2, 33, 1000] {
        let (bases, scalars) = inputs(n);
        let expect = G1Projective::msm(&bases, &scalars).unwrap();
        assert_eq!(msm.msm(&bases, &scalars).unwrap(), expect, "{n} terms");
        let ints: Vec<_> = scalars.iter().map(|s| s.into_bigint()).collect();
        assert_eq!(msm.msm_bigint(&bases, &ints).unwrap(), expect, "{n} terms");
    }
    if !msm.uses_gpu() {
        // No GPU: nothing can be made resident, and the error says why.
        let err = msm.upload(&inputs(2).0).unwrap_err();
        assert!(
            matches!(
                err,
                MsmError::Backend {
                    backend: "cuda",
                    ..
                }
            ),
            "{err:?}"
        );
        // The driver's answer stays typed behind the MSM error.
        let cause = std::error::Error::source(&err).expect("a backend error has a source");
        assert!(
            cause.downcast_ref::<zkaccel_cuda::CudaError>().is_some(),
            "{cause:?}"
        );
    }
    let (bases, scalars) = inputs(3);
    assert_eq!(
        msm.msm(&bases, &scalars[..2]),
        Err(MsmError::LengthMismatch {
            bases: 3,
            scalars: 2
        })
    );
}

#[test]
fn gpu_field_and_point_kernels_match_the_cpu() {
    for ctx in devices("gpu_field_and_point_kernels_match_the_cpu") {
        field_and_point_kernels(&ctx);
    }
}

fn field_and_point_kernels(ctx: &CudaContext) {
    let mut r = rng();
    let n = if ctx.is_emulated() { 300 } else { 4096 };
    let a: Vec<Fq> = (0..n).map(|_| Fq::rand(&mut r)).collect();
    let b: Vec<Fq> = (0..n).map(|_| Fq::rand(&mut r)).collect();
    let la: Vec<[u32; 8]> = a.iter().map(fq_limbs).collect();
    let lb: Vec<[u32; 8]> = b.iter().map(fq_limbs).collect();
    let prod = ctx.fq_mul(&la, &lb).unwrap();
    for i in 0..n {
        assert_eq!(prod[i], fq_limbs(&(a[i] * b[i])), "Fq mul {i}");
    }
    let p: Vec<G1Projective> = (0..n).map(|_| G1Projective::rand(&mut r)).collect();
    let mut q: Vec<G1Projective> = (0..n).map(|_| G1Projective::rand(&mut r)).collect();
    q[0] = p[0];
    q[1] = -p[1];
    q[2] = G1Projective::default();
    let dp: Vec<DeviceJacobian> = p.iter().map(DeviceJacobian::from_ark).collect();
    let dq: Vec<DeviceJacobian> = q.iter().map(DeviceJacobian::from_ark).collect();
    let sum = ctx.g1_add(&dp, &dq).unwrap();
    let (d2, d3) = ctx.g1_dbl_tpl(&dp).unwrap();
    let qa = G1Projective::normalize_batch(&q);
    let xyzz: Vec<DeviceXyzz> = p
        .iter()
        .map(|x| {
            zkaccel_cuda::emulation::xyzz_op(
                zkaccel_cuda::emulation::XyzzOp::FromAffine,
                &DeviceXyzz::default(),
                &DeviceXyzz::default(),
                &x.into_affine(),
            )
        })
        .collect();
    let dqa: Vec<DeviceAffine> = qa.iter().map(DeviceAffine::from_ark).collect();
    let madd = ctx.xyzz_add_affine(&xyzz, &dqa).unwrap();
    for i in 0..n {
        assert_eq!(sum[i].to_ark().unwrap(), p[i] + q[i], "add {i}");
        assert_eq!(d2[i].to_ark().unwrap(), p[i] + p[i], "dbl {i}");
        assert_eq!(d3[i].to_ark().unwrap(), p[i] + p[i] + p[i], "tpl {i}");
        let m = zkaccel_cuda::emulation::xyzz_to_jacobian(&madd[i]);
        assert_eq!(m.to_ark().unwrap(), p[i] + q[i], "xyzz madd {i}");
    }
}

#[test]
fn gpu_msm_matches_arkworks() {
    for ctx in devices("gpu_msm_matches_arkworks") {
        // The emulation is slow (32-bit limbs, an emulated carry flag):
        // smaller sizes there, and the per-thread DBC method (a whole
        // scalar multiplication per thread) smaller still.
        let emulated = ctx.is_emulated();
        for method in [GpuMethod::DbcPerThread, GpuMethod::Bucket, GpuMethod::Auto] {
            let max_log = match (emulated, method) {
                (false, _) => 16,
                (true, GpuMethod::DbcPerThread) => 7,
                (true, _) => 11,
            };
            let msm = CudaMsm::with_context(ctx.clone()).with_method(method);
            let cases = zkaccel_testkit::msm::edge_cases(16, &mut rng());
            zkaccel_testkit::msm::assert_matches_arkworks(
                &format!("{method:?}"),
                &cases,
                |b, s| msm.msm(b, s).unwrap(),
            );
            gpu_msm_sizes(msm, max_log);
        }
    }
}

#[test]
fn auto_picks_the_cpu_for_few_or_narrow_terms_and_buckets_for_many_wide_ones() {
    let auto = |nonzero, wide, sampled| GpuMethod::Auto.resolve(nonzero, wide, sampled);
    assert_eq!(auto(1, 1, 1), GpuMethod::Cpu);
    assert_eq!(auto(GPU_MIN_TERMS - 1, 100, 100), GpuMethod::Cpu);
    assert_eq!(auto(GPU_MIN_TERMS, 100, 100), GpuMethod::Bucket);
    assert_eq!(auto(1 << 20, 50, 100), GpuMethod::Bucket);
    assert_eq!(
        auto(1 << 20, 49, 100),
        GpuMethod::Cpu,
        "mostly narrow scalars"
    );
    assert_eq!(GpuMethod::Bucket.resolve(1, 0, 1), GpuMethod::Bucket);
    assert_eq!(
        GpuMethod::DbcPerThread.resolve(1 << 20, 0, 1),
        GpuMethod::DbcPerThread
    );
}

fn gpu_msm_sizes(msm: CudaMsm, max_log: u32) {
    for log in [0u32, 1, 5, 7, 10, 11, 12, 16]
        .into_iter()
        .filter(|&l| l <= max_log)
    {
        let n = 1usize << log;
        for n in [n - (n > 1) as usize, n, n + 1] {
            let (bases, mut scalars) = inputs(n);
            let expect = G1Projective::msm(&bases, &scalars).unwrap();
            assert_eq!(msm.msm(&bases, &scalars).unwrap(), expect, "dense {n}");
            for (i, s) in scalars.iter_mut().enumerate() {
                if i % 7 != 0 {
                    *s = Fr::from(0u64);
                }
            }
            let expect = G1Projective::msm(&bases, &scalars).unwrap();
            assert_eq!(msm.msm(&bases, &scalars).unwrap(), expect, "sparse {n}");
            if log <= 12 {
                // 1-bit and 20-bit scalars (few windows), and all equal
                // (every entry of a window in one bucket).
                let mut r = rng();
                for bits in [1u32, 20] {
                    let small: Vec<Fr> = (0..n)
                        .map(|_| Fr::from(u64::rand(&mut r) >> (64 - bits)))
                        .collect();
                    let expect = G1Projective::msm(&bases, &small).unwrap();
                    assert_eq!(msm.msm(&bases, &small).unwrap(), expect, "{bits}-bit {n}");
                }
                let same = vec![Fr::from(987654321u64); n];
                let expect = G1Projective::msm(&bases, &same).unwrap();
                assert_eq!(msm.msm(&bases, &same).unwrap(), expect, "equal {n}");
            }
        }
    }
}

#[test]
fn resident_bases_match_arkworks() {
    for ctx in devices("resident_bases_match_arkworks") {
        resident_bases(ctx);
    }
}

fn resident_bases(ctx: Arc<CudaContext>) {
    let n = if ctx.is_emulated() { 1500 } else { 5000 };
    let m = CudaMsm::with_context(ctx);
    let (mut bases, mut scalars) = inputs(n);
    // Infinity, a repeated point, P and -P, a zero scalar, r - 1.
    bases[3] = G1Affine::zero();
    bases[10] = bases[11];
    bases[12] = -bases[13];
    scalars[20] = Fr::zero();
    scalars[21] = -Fr::from(1u64);
    let dev = m.upload(&bases).unwrap();
    assert_eq!(dev.len(), n);
    for _ in 0..2 {
        // twice: the resident bases are read, never changed
        let want = G1Projective::msm(&bases, &scalars).unwrap();
        assert_eq!(m.msm_resident(&dev, &scalars).unwrap(), want);
    }
    let want = G1Projective::msm(&bases[..100], &scalars[..100]).unwrap();
    assert_eq!(
        m.msm_resident(&dev, &scalars[..100]).unwrap(),
        want,
        "prefix"
    );
    assert_eq!(m.msm_resident(&dev, &[]).unwrap(), G1Projective::zero());
    assert_eq!(
        m.msm_resident(&dev, &vec![Fr::from(1u64); n + 1]),
        Err(MsmError::LengthMismatch {
            bases: n,
            scalars: n + 1
        })
    );
    // Every edge case on its own resident bases.
    let cases = zkaccel_testkit::msm::edge_cases(16, &mut rng());
    zkaccel_testkit::msm::assert_matches_arkworks("resident", &cases, |b, s| {
        m.msm_resident(&m.upload(b).unwrap(), s).unwrap()
    });
    let empty = m.upload(&[]).unwrap();
    assert!(empty.is_empty());
    assert_eq!(m.msm_resident(&empty, &[]).unwrap(), G1Projective::zero());
}

/// An emulated device of `memory` bytes: what a small or full GPU does.
fn small_device(memory: usize) -> Arc<CudaContext> {
    Arc::new(CudaContext::emulated_with_memory(memory))
}

#[test]
fn small_devices_run_in_chunks_or_say_out_of_memory() {
    use ark_poly::EvaluationDomain;
    use zkaccel_ntt::{Direction, NttDomain, NttProvider};
    // 2 MiB: a 3,000-term bucket MSM (about 4 MB of working memory) runs
    // as several chunks, summed on the host.
    let ctx = small_device(2 << 20);
    let (bases, scalars) = inputs(3000);
    let want = G1Projective::msm(&bases, &scalars).unwrap();
    let bucket = CudaMsm::with_context(ctx.clone()).with_method(GpuMethod::Bucket);
    assert_eq!(
        bucket.msm(&bases, &scalars).unwrap(),
        want,
        "chunked buckets"
    );
    // A batch of NTTs larger than the device: as many vectors at a time as fit.
    let d = NttDomain::<Fr>::new(1 << 12).unwrap();
    let mut r = rng();
    let input: Vec<Vec<Fr>> = (0..20)
        .map(|_| (0..1 << 12).map(|_| Fr::rand(&mut r)).collect())
        .collect();
    let mut batch = input.clone();
    zkaccel_cuda::CudaNtt::with_context(ctx.clone())
        .transform_batch(&d, &mut batch, Direction::Forward)
        .unwrap();
    for (got, x) in batch.iter().zip(&input) {
        assert_eq!(*got, d.as_radix2().fft(x), "chunked NTT batch");
    }
    // Bases that cannot fit: a typed out-of-memory error, never a panic.
    let (big, _) = inputs(40_000);
    let err = bucket.upload(&big).unwrap_err();
    let cause = std::error::Error::source(&err).expect("the device's error");
    assert!(
        matches!(
            cause.downcast_ref::<CudaError>(),
            Some(CudaError::OutOfMemory { requested, .. }) if *requested == 40_000 * 64
        ),
        "{err}"
    );

    // 48 KiB (the chain tables take 32): the per-thread DBC method runs
    // 120 terms as chunks of about 50; the bucket method cannot fit even
    // one term and says so.
    let tiny = small_device(48 << 10);
    let (bases, scalars) = inputs(120);
    let want = G1Projective::msm(&bases, &scalars).unwrap();
    let dbc = CudaMsm::with_context(tiny.clone()).with_method(GpuMethod::DbcPerThread);
    assert_eq!(dbc.msm(&bases, &scalars).unwrap(), want, "chunked DBC");
    let err = CudaMsm::with_context(tiny)
        .with_method(GpuMethod::Bucket)
        .msm(&bases, &scalars)
        .unwrap_err();
    let cause = std::error::Error::source(&err).expect("the device's error");
    assert!(
        matches!(
            cause.downcast_ref::<CudaError>(),
            Some(CudaError::OutOfMemory { .. })
        ),
        "{err}"
    );
}
