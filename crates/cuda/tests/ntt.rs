//! The GPU NTT, every kernel emulated on the host, against ark-poly's
//! `Radix2EvaluationDomain`: every size 2^0..2^16, forward and inverse, on
//! the subgroup and on a coset; and `CudaNtt` as an `NttProvider`.

use ark_bn254::Fr;
use ark_ff::{FftField, UniformRand};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use zkaccel_cuda::emulation;
use zkaccel_cuda::ntt::NttJob;
use zkaccel_cuda::CudaNtt;
use zkaccel_ntt::{Direction, NttDomain, NttProvider};

fn log_max() -> u32 {
    std::env::var("ZKACCEL_TEST_CUDA_NTT_LOG_MAX")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(16)
}

fn check(domain: &Radix2EvaluationDomain<Fr>, v: &[Fr], what: &str) {
    let mut fwd = v.to_vec();
    emulation::ntt(&mut fwd, &NttJob::new(domain, Direction::Forward));
    assert_eq!(fwd, domain.fft(v), "forward, {what}");
    let mut inv = v.to_vec();
    emulation::ntt(&mut inv, &NttJob::new(domain, Direction::Inverse));
    assert_eq!(inv, domain.ifft(v), "inverse, {what}");
}

#[test]
fn every_size_forward_inverse_and_coset() {
    let mut r = ChaCha20Rng::seed_from_u64(1);
    for log in 0..=log_max() {
        let n = 1usize << log;
        let v: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut r)).collect();
        let d = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
        check(&d, &v, &format!("2^{log}"));
        let c = d.get_coset(Fr::GENERATOR).unwrap();
        check(&c, &v, &format!("coset 2^{log}"));
    }
}

#[test]
fn special_inputs() {
    let d = Radix2EvaluationDomain::<Fr>::new(1 << 10).unwrap();
    check(&d, &vec![Fr::from(0u64); 1 << 10], "zeros");
    let mut delta = vec![Fr::from(0u64); 1 << 10];
    delta[1] = Fr::from(1u64);
    check(&d, &delta, "x (the roots of unity)");
    check(&d, &vec![-Fr::from(1u64); 1 << 10], "all p - 1");
}

#[test]
fn provider_falls_back_or_matches() {
    let p = CudaNtt::or_cpu(0);
    if !p.uses_gpu() {
        println!("CudaNtt on the CPU: {}", p.fallback_reason().unwrap());
    }
    let mut r = ChaCha20Rng::seed_from_u64(2);
    let d = NttDomain::<Fr>::new(1 << 12).unwrap();
    let coset = d.get_coset(Fr::GENERATOR).unwrap();
    let v: Vec<Fr> = (0..1 << 12).map(|_| Fr::rand(&mut r)).collect();
    for (dom, name) in [(&d, "subgroup"), (&coset, "coset")] {
        let mut batch = vec![v.clone(), v.iter().map(|x| *x + *x).collect()];
        p.transform_batch(dom, &mut batch, Direction::Forward)
            .unwrap();
        assert_eq!(batch[0], dom.as_radix2().fft(&v), "{name}");
        p.transform_batch(dom, &mut batch, Direction::Inverse)
            .unwrap();
        assert_eq!(batch[0], v, "{name} round trip");
    }
    let mut bad = vec![vec![Fr::from(1u64); 3]];
    assert!(p.transform_batch(&d, &mut bad, Direction::Forward).is_err());
}
