//! The runtime: what `CudaContext` and `CudaMsm` do on this machine. Without
//! a GPU (or without the feature `cuda`) the device tests print SKIPPED with
//! the reason; with one, every GPU result is compared with the CPU's.
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

/// The device, or `None` after printing why the test is skipped.
fn device(test: &str) -> Option<Arc<CudaContext>> {
    match CudaContext::new(0) {
        Ok(ctx) => {
            println!("{test}: running on GPU {} ({})", ctx.ordinal(), ctx.name());
            Some(Arc::new(ctx))
        }
        Err(e) => {
            // Straight to the stderr handle, past the test harness's capture,
            // so a skipped GPU test is visible in every test run's output.
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "SKIPPED {test}: needs a GPU: {e}");
            None
        }
    }
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
    let Some(ctx) = device("gpu_field_and_point_kernels_match_the_cpu") else {
        return;
    };
    let mut r = rng();
    let n = 4096;
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
    let Some(ctx) = device("gpu_msm_matches_arkworks") else {
        return;
    };
    for method in [GpuMethod::DbcPerThread, GpuMethod::Bucket, GpuMethod::Auto] {
        gpu_msm_sizes(CudaMsm::with_context(ctx.clone()).with_method(method));
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

fn gpu_msm_sizes(msm: CudaMsm) {
    for log in [0u32, 1, 5, 10, 12, 16] {
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
    let Some(ctx) = device("resident_bases_match_arkworks") else {
        return;
    };
    let m = CudaMsm::with_context(ctx);
    let (mut bases, mut scalars) = inputs(5000);
    // Infinity, a repeated point, P and -P, a zero scalar, r - 1.
    bases[3] = G1Affine::zero();
    bases[10] = bases[11];
    bases[12] = -bases[13];
    scalars[20] = Fr::zero();
    scalars[21] = -Fr::from(1u64);
    let dev = m.upload(&bases).unwrap();
    assert_eq!(dev.len(), 5000);
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
        m.msm_resident(&dev, &vec![Fr::from(1u64); 5001]),
        Err(MsmError::LengthMismatch {
            bases: 5000,
            scalars: 5001
        })
    );
    let empty = m.upload(&[]).unwrap();
    assert!(empty.is_empty());
    assert_eq!(m.msm_resident(&empty, &[]).unwrap(), G1Projective::zero());
}
