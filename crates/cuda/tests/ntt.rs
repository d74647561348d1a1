//! The GPU NTT, every kernel emulated on the host, against ark-poly's
//! `Radix2EvaluationDomain`: every size 2^0..2^16, forward and inverse, on
//! the subgroup and on a coset, in batches; Groth16's quotient job, alone
//! and with the MSM of `h` kept on the device; `CudaNtt` as an
//! `NttProvider`.
#![cfg(feature = "emulation")] // the host build of the kernels is the reference

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::{AffineRepr, VariableBaseMSM};
use ark_ff::{FftField, Field, UniformRand};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use zkaccel_cpu::MsmProvider;
use zkaccel_cuda::emulation;
use zkaccel_cuda::ntt::{NttJob, QuotientJob};
use zkaccel_cuda::{CudaMsm, CudaNtt};
use zkaccel_ntt::{Direction, NttDomain, NttProvider, QuotientForm};

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

/// Batches of different vectors, each transformed by one launch per pass
/// (the vector is `blockIdx.y`), against ark-poly vector by vector.
#[test]
fn emulated_batches_equal_ark_poly() {
    let mut r = ChaCha20Rng::seed_from_u64(3);
    for log in [0u32, 1, 3, 8, 9, 12] {
        let n = 1usize << log;
        let d = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
        let c = d.get_coset(Fr::GENERATOR).unwrap();
        for vectors in [1usize, 2, 3, 5] {
            let batch: Vec<Vec<Fr>> = (0..vectors)
                .map(|_| (0..n).map(|_| Fr::rand(&mut r)).collect())
                .collect();
            for (dom, name) in [(&d, "subgroup"), (&c, "coset")] {
                for (dir, want) in [
                    (
                        Direction::Forward,
                        batch.iter().map(|v| dom.fft(v)).collect::<Vec<_>>(),
                    ),
                    (
                        Direction::Inverse,
                        batch.iter().map(|v| dom.ifft(v)).collect(),
                    ),
                ] {
                    let mut got = batch.clone();
                    emulation::ntt_batch(&mut got, &NttJob::new(dom, dir));
                    assert_eq!(got, want, "2^{log} x {vectors}, {name}, {dir:?}");
                }
            }
        }
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
        let input: Vec<Vec<Fr>> = vec![
            v.clone(),
            v.iter().map(|x| *x + *x).collect(),
            v.iter().rev().copied().collect(),
        ];
        let mut batch = input.clone();
        p.transform_batch(dom, &mut batch, Direction::Forward)
            .unwrap();
        for (got, x) in batch.iter().zip(&input) {
            assert_eq!(*got, dom.as_radix2().fft(x), "{name}");
        }
        p.transform_batch(dom, &mut batch, Direction::Inverse)
            .unwrap();
        assert_eq!(batch, input, "{name} round trip");
    }
    let mut bad = vec![vec![Fr::from(1u64); 3]];
    assert!(p.transform_batch(&d, &mut bad, Direction::Forward).is_err());
}

/// Both forms of the quotient.
const FORMS: [QuotientForm; 2] = [QuotientForm::Coefficients, QuotientForm::CosetEvaluations];

/// The coset each form's reduction uses: by the field's generator
/// (libsnark) or by the primitive `2n`-th root of unity, the odd `2n`-th
/// roots (circom).
fn coset_offset(log: u32, form: QuotientForm) -> Fr {
    match form {
        QuotientForm::Coefficients => Fr::GENERATOR,
        QuotientForm::CosetEvaluations => {
            Radix2EvaluationDomain::<Fr>::new(2 << log)
                .unwrap()
                .group_gen
        }
    }
}

/// The domain of `2^log` points and the coset of `form`.
fn domains(log: u32, form: QuotientForm) -> (NttDomain<Fr>, NttDomain<Fr>) {
    let d = NttDomain::<Fr>::new(1 << log).unwrap();
    let c = d.get_coset(coset_offset(log, form)).unwrap();
    (d, c)
}

/// Groth16's quotient by ark-poly: interpolate a, b, c, evaluate them on the
/// coset; then (a b - c) / Z(g) interpolated from the coset (libsnark), or
/// a b - c on the coset as it is (circom, on the odd 2n-th roots).
fn quotient_reference_in(abc: &[Vec<Fr>; 3], log: u32, form: QuotientForm) -> Vec<Fr> {
    let d = Radix2EvaluationDomain::<Fr>::new(1 << log).unwrap();
    let g = coset_offset(log, form);
    let c = d.get_coset(g).unwrap();
    let on_coset: Vec<Vec<Fr>> = abc.iter().map(|v| c.fft(&d.ifft(v))).collect();
    let ab_c = (0..1 << log).map(|i| on_coset[0][i] * on_coset[1][i] - on_coset[2][i]);
    match form {
        QuotientForm::CosetEvaluations => ab_c.collect(),
        QuotientForm::Coefficients => {
            let z_inv = d.evaluate_vanishing_polynomial(g).inverse().unwrap();
            c.ifft(&ab_c.map(|x| x * z_inv).collect::<Vec<_>>())
        }
    }
}

/// The libsnark quotient's coefficients.
fn quotient_reference(abc: &[Vec<Fr>; 3], log: u32) -> Vec<Fr> {
    quotient_reference_in(abc, log, QuotientForm::Coefficients)
}

fn random_abc(log: u32, seed: u64) -> [Vec<Fr>; 3] {
    let mut r = ChaCha20Rng::seed_from_u64(seed);
    let mut v = || {
        (0..1usize << log)
            .map(|_| Fr::rand(&mut r))
            .collect::<Vec<_>>()
    };
    [v(), v(), v()]
}

#[test]
fn emulated_quotient_equals_ark_poly() {
    for form in FORMS {
        for log in [0u32, 1, 5, 8, 9, 12] {
            let abc = random_abc(log, 10 + log as u64);
            let (d, c) = domains(log, form);
            let job = QuotientJob::with_form(&d, &c, form).unwrap();
            assert_eq!(job.form(), form);
            assert_eq!(
                emulation::quotient(abc.clone(), &job),
                quotient_reference_in(&abc, log, form),
                "2^{log}, {form:?}"
            );
        }
    }
}

/// One device across many domains: its cache of powers tables fills up and
/// is emptied, and a quotient whose twiddles were cached before the
/// eviction still finds every table it needs (an H200 run found them
/// evicted: a panic).
#[test]
fn powers_tables_are_evicted_and_remade() {
    let ctx = std::sync::Arc::new(zkaccel_cuda::CudaContext::emulated());
    let p = CudaNtt::with_context(ctx);
    let mut r = ChaCha20Rng::seed_from_u64(77);
    for log in 1..=11u32 {
        let d = NttDomain::<Fr>::new(1 << log).unwrap();
        let v: Vec<Fr> = (0..1usize << log).map(|_| Fr::rand(&mut r)).collect();
        let mut b = vec![v.clone()];
        p.transform_batch(&d, &mut b, Direction::Forward).unwrap();
        assert_eq!(b[0], d.as_radix2().fft(&v), "2^{log}");
    }
    for form in FORMS {
        for log in [3u32, 5] {
            let abc = random_abc(log, 200 + log as u64);
            let (d, c) = domains(log, form);
            assert_eq!(
                p.quotient_in(&d, &c, abc.clone(), form).unwrap(),
                quotient_reference_in(&abc, log, form),
                "2^{log}, {form:?}"
            );
        }
    }
}

/// The forms differ (a test that mixed them up would pass otherwise).
#[test]
fn the_two_forms_differ() {
    let abc = random_abc(4, 99);
    assert_ne!(
        quotient_reference_in(&abc, 4, QuotientForm::Coefficients),
        quotient_reference_in(&abc, 4, QuotientForm::CosetEvaluations)
    );
}

#[test]
fn provider_quotient_falls_back_or_matches() {
    let p = CudaNtt::or_cpu(0);
    for form in FORMS {
        for log in [0u32, 3, 10, 14] {
            let abc = random_abc(log, 30 + log as u64);
            let (d, c) = domains(log, form);
            let want = quotient_reference_in(&abc, log, form);
            assert_eq!(
                p.quotient_in(&d, &c, abc, form).unwrap(),
                want,
                "2^{log}, {form:?} on {}",
                p.name()
            );
        }
        // The domain itself is no coset, in either form.
        let d = NttDomain::<Fr>::new(8).unwrap();
        assert!(p.quotient_in(&d, &d, random_abc(3, 1), form).is_err());
    }
    let d = NttDomain::<Fr>::new(8).unwrap();
    let c = d.get_coset(Fr::GENERATOR).unwrap();
    let short = [
        vec![Fr::from(1u64); 8],
        vec![Fr::from(1u64); 7],
        vec![Fr::from(1u64); 8],
    ];
    assert!(
        p.quotient(&d, &c, short).is_err(),
        "a short vector is an error"
    );
    // The domain itself is no coset: Z vanishes on it.
    assert!(p.quotient(&d, &d, random_abc(3, 1)).is_err());
    let big = NttDomain::<Fr>::new(16)
        .unwrap()
        .get_coset(Fr::GENERATOR)
        .unwrap();
    assert!(
        p.quotient(&d, &big, random_abc(3, 2)).is_err(),
        "sizes differ"
    );
}

/// `len` random bases with one point at infinity, a repeat, and P with -P
/// where there is room.
fn h_bases(len: usize, seed: u64) -> Vec<G1Affine> {
    let mut r = ChaCha20Rng::seed_from_u64(seed);
    let mut b: Vec<G1Affine> = (0..len).map(|_| G1Affine::rand(&mut r)).collect();
    if len >= 4 {
        b[1] = G1Affine::zero();
        b[2] = b[0];
        b[3] = -b[0];
    }
    b
}

/// Groth16's quotient with `h` kept on the device for its MSM, emulated,
/// against ark-poly's quotient and arkworks' MSM: the H query's length
/// (one base fewer than the domain), the full domain, and no base at all.
#[test]
fn emulated_quotient_msm_equals_arkworks() {
    for form in FORMS {
        for log in [0u32, 1, 5, 9, 12] {
            let n = 1usize << log;
            let abc = random_abc(log, 50 + log as u64);
            let h = quotient_reference_in(&abc, log, form);
            let (d, c) = domains(log, form);
            let job = QuotientJob::with_form(&d, &c, form).unwrap();
            for len in [n - 1, n, 0] {
                let bases = h_bases(len, 60 + len as u64);
                let want = G1Projective::msm(&bases, &h[..len]).unwrap();
                assert_eq!(
                    emulation::quotient_msm(abc.clone(), &job, &bases),
                    want,
                    "2^{log}, {len} bases, {form:?}"
                );
            }
        }
    }
}

#[test]
fn provider_quotient_msm_falls_back_or_matches() {
    let m = CudaMsm::or_cpu(0);
    // circom's form, with the H query as long as the domain (snarkjs keys).
    for log in [3u32, 12] {
        let n = 1usize << log;
        let abc = random_abc(log, 90 + log as u64);
        let form = QuotientForm::CosetEvaluations;
        let (d, c) = domains(log, form);
        let bases = h_bases(n, 91 + log as u64);
        let want = G1Projective::msm(&bases, &quotient_reference_in(&abc, log, form)).unwrap();
        assert_eq!(
            m.quotient_msm_in(&d, &c, abc.clone(), &bases, form)
                .unwrap(),
            want,
            "2^{log}, {form:?} on {}",
            m.name()
        );
        if m.uses_gpu() {
            let resident = m.upload(&bases).unwrap();
            assert_eq!(
                resident.quotient_msm_in(&d, &c, abc, form).unwrap(),
                want,
                "2^{log}, {form:?}, resident bases"
            );
        }
    }
    for log in [3u32, 11] {
        let n = 1usize << log;
        let abc = random_abc(log, 70 + log as u64);
        let d = NttDomain::<Fr>::new(n).unwrap();
        let c = d.get_coset(Fr::GENERATOR).unwrap();
        let bases = h_bases(n - 1, 80 + log as u64);
        let want = G1Projective::msm(&bases, &quotient_reference(&abc, log)[..n - 1]).unwrap();
        assert_eq!(
            m.quotient_msm(&d, &c, abc.clone(), &bases).unwrap(),
            want,
            "2^{log} on {}",
            m.name()
        );
        let too_many = h_bases(n + 1, 1);
        assert!(
            m.quotient_msm(&d, &c, abc.clone(), &too_many).is_err(),
            "more bases than coefficients"
        );
        assert!(
            m.quotient_msm(&d, &d, abc, &bases).is_err(),
            "the domain is no coset"
        );
    }
}
