//! zkaccel's NTT against ark-poly's `Radix2EvaluationDomain` on random inputs.
//!
//! Sizes 2^0..=2^ZKACCEL_TEST_NTT_LOG_MAX (default 20; CI may raise it to 24).

use ark_bn254::{Fr, G1Projective};
use ark_ff::{FftField, One, UniformRand};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use zkaccel_ntt::field::MontField;
use zkaccel_ntt::{CpuNtt, Direction, Kernel, NttDomain, NttError, NttProvider};

fn log_max() -> u32 {
    std::env::var("ZKACCEL_TEST_NTT_LOG_MAX")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20)
}

fn random_vec<F: UniformRand>(n: usize, seed: u64) -> Vec<F> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| F::rand(&mut rng)).collect()
}

/// Forward, inverse and both coset variants equal ark-poly's, and round trips
/// are exact.
fn check_all_directions<F: MontField>(log_n: u32, seed: u64) {
    let n = 1usize << log_n;
    let v: Vec<F> = random_vec(n, seed);
    let offset = F::GENERATOR * F::from(seed + 3);
    let ark = Radix2EvaluationDomain::<F>::new(n).unwrap();
    let ours = NttDomain::<F>::new(n).unwrap();
    assert_eq!(ours.size(), ark.size());
    let evals = ours.fft(&v);
    assert_eq!(evals, ark.fft(&v), "fft 2^{log_n}");
    assert_eq!(ours.ifft(&evals), v, "ifft(fft) 2^{log_n}");
    assert_eq!(ours.ifft(&v), ark.ifft(&v), "ifft 2^{log_n}");
    let (ark_c, ours_c) = (
        ark.get_coset(offset).unwrap(),
        ours.get_coset(offset).unwrap(),
    );
    let coset_evals = ours_c.fft(&v);
    assert_eq!(coset_evals, ark_c.fft(&v), "coset fft 2^{log_n}");
    assert_eq!(ours_c.ifft(&coset_evals), v, "coset round trip 2^{log_n}");
    assert_eq!(ours_c.ifft(&v), ark_c.ifft(&v), "coset ifft 2^{log_n}");
}

#[test]
fn bn254_every_size_every_direction() {
    for log_n in 0..=log_max() {
        check_all_directions::<Fr>(log_n, log_n as u64);
    }
}

#[test]
fn bls12_381_fr_every_size_up_to_2_16() {
    for log_n in 0..=log_max().min(16) {
        check_all_directions::<ark_bls12_381::Fr>(log_n, 100 + log_n as u64);
    }
}

/// Every kernel gives the same answer; the ADX and IFMA kernels are reported
/// as skipped where the CPU lacks them.
#[test]
fn every_kernel_agrees() {
    let kernels = [
        Kernel::Auto,
        Kernel::Lean,
        Kernel::Ifma,
        Kernel::Avx2,
        Kernel::Adx,
        Kernel::Portable,
        Kernel::Generic,
    ];
    for log_n in [0u32, 1, 2, 3, 5, 12, 13, 14, 15, 17] {
        let n = 1usize << log_n;
        let v: Vec<Fr> = random_vec(n, 7 + log_n as u64);
        let ark = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
        let ours = NttDomain::<Fr>::new(n).unwrap();
        for coset in [false, true] {
            let (a, o) = if coset {
                (
                    ark.get_coset(Fr::GENERATOR).unwrap(),
                    ours.get_coset(Fr::GENERATOR).unwrap(),
                )
            } else {
                (ark, ours)
            };
            for kernel in kernels {
                for dir in [Direction::Forward, Direction::Inverse] {
                    let mut x = v.clone();
                    match o.transform(&mut x, dir, kernel) {
                        Err(NttError::KernelUnavailable(Kernel::Adx))
                            if zkaccel_ntt::field::Adx::detect().is_none() =>
                        {
                            skip("the ADX kernel (this CPU lacks BMI2/ADX, or ZKACCEL_KERNEL=portable)");
                            continue;
                        }
                        Err(NttError::KernelUnavailable(Kernel::Avx2)) if !avx2_supported() => {
                            skip("the AVX2 kernel (this CPU lacks AVX2, BMI2 or ADX, or ZKACCEL_KERNEL caps it)");
                            continue;
                        }
                        Err(NttError::KernelUnavailable(Kernel::Ifma)) if !ifma_supported() => {
                            skip("the IFMA kernel (this CPU lacks AVX-512 IFMA, or ZKACCEL_KERNEL caps it)");
                            continue;
                        }
                        r => r.unwrap(),
                    }
                    let want = match dir {
                        Direction::Forward => a.fft(&v),
                        Direction::Inverse => a.ifft(&v),
                    };
                    assert_eq!(x, want, "{kernel:?} {dir:?} coset={coset} 2^{log_n}");
                }
            }
        }
    }
}

/// The AVX2 lane transform at every size it takes (2^14..2^18), both
/// directions, plain and coset, for both four-limb fields it fits.
#[test]
fn avx2_lanes_every_size_against_ark_poly() {
    if !avx2_supported() {
        skip(
            "the AVX2 lane transform (this CPU lacks AVX2, BMI2 or ADX, or ZKACCEL_KERNEL caps it)",
        );
        return;
    }
    fn run<F: MontField>(log_n: u32, seed: u64) {
        let n = 1usize << log_n;
        let v: Vec<F> = random_vec(n, seed);
        let ark = Radix2EvaluationDomain::<F>::new(n).unwrap();
        let ours = NttDomain::<F>::new(n).unwrap();
        let offset = F::GENERATOR * F::from(seed);
        for coset in [false, true] {
            let (a, o) = if coset {
                (
                    ark.get_coset(offset).unwrap(),
                    ours.get_coset(offset).unwrap(),
                )
            } else {
                (ark, ours)
            };
            for dir in [Direction::Forward, Direction::Inverse] {
                let mut x = v.clone();
                o.transform(&mut x, dir, Kernel::Avx2).unwrap();
                let want = match dir {
                    Direction::Forward => a.fft(&v),
                    Direction::Inverse => a.ifft(&v),
                };
                assert_eq!(x, want, "AVX2 {dir:?} coset={coset} 2^{log_n}");
            }
        }
    }
    for log_n in 14..=log_max().min(18) {
        run::<Fr>(log_n, 60 + log_n as u64);
    }
    for log_n in 14..=log_max().min(16) {
        run::<ark_bls12_381::Fr>(log_n, 80 + log_n as u64);
    }
}

/// The Groth16 witness-map sequence as batches: 3 inverse, 3 coset forward,
/// 1 coset inverse, against the same 7 ark-poly calls.
#[test]
fn batched_groth16_sequence() {
    let log_n = log_max().min(14);
    let n = 1usize << log_n;
    let ark = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
    let ours = NttDomain::<Fr>::new(n).unwrap();
    let (ark_c, ours_c) = (
        ark.get_coset(Fr::GENERATOR).unwrap(),
        ours.get_coset(Fr::GENERATOR).unwrap(),
    );
    let inputs: Vec<Vec<Fr>> = (0..3).map(|i| random_vec(n, 40 + i)).collect();
    let mut batch = inputs.clone();
    let cpu = CpuNtt::default();
    cpu.transform_batch(&ours, &mut batch, Direction::Inverse)
        .unwrap();
    cpu.transform_batch(&ours_c, &mut batch, Direction::Forward)
        .unwrap();
    let mut h = vec![batch[0]
        .iter()
        .zip(&batch[1])
        .zip(&batch[2])
        .map(|((a, b), c)| *a * b - c)
        .collect::<Vec<_>>()];
    cpu.transform_batch(&ours_c, &mut h, Direction::Inverse)
        .unwrap();

    let want: Vec<Vec<Fr>> = inputs.iter().map(|v| ark_c.fft(&ark.ifft(v))).collect();
    assert_eq!(batch, want);
    let want_h: Vec<Fr> = want[0]
        .iter()
        .zip(&want[1])
        .zip(&want[2])
        .map(|((a, b), c)| *a * b - c)
        .collect();
    assert_eq!(h[0], ark_c.ifft(&want_h));
}

#[test]
fn batch_length_mismatch_is_an_error() {
    let d = NttDomain::<Fr>::new(8).unwrap();
    let mut batch = vec![vec![Fr::one(); 8], vec![Fr::one(); 7]];
    let before = batch.clone();
    assert_eq!(
        d.transform_batch(&mut batch, Direction::Forward, Kernel::Auto),
        Err(NttError::LengthMismatch {
            expected: 8,
            got: 7
        })
    );
    assert_eq!(
        batch, before,
        "nothing is transformed when the batch is rejected"
    );
    let msg = NttError::LengthMismatch {
        expected: 8,
        got: 7,
    }
    .to_string();
    assert!(msg.contains('7') && msg.contains('8'), "{msg}");
}

#[test]
fn adx_kernel_refused_for_six_limb_fields() {
    // BLS12-381's base field has 6 limbs: the 4-limb assembly cannot run it.
    // (Its two-adicity is 1: domains of size 1 and 2 only.)
    type Fq = ark_bls12_381::Fq;
    let d = NttDomain::<Fq>::new(2).unwrap();
    let mut v = vec![Fq::one(); 2];
    assert_eq!(
        d.transform(&mut v, Direction::Forward, Kernel::Adx),
        Err(NttError::KernelUnavailable(Kernel::Adx))
    );
    assert_eq!(
        d.transform(&mut v, Direction::Forward, Kernel::Ifma),
        Err(NttError::KernelUnavailable(Kernel::Ifma))
    );
    assert_eq!(
        d.transform(&mut v, Direction::Forward, Kernel::Avx2),
        Err(NttError::KernelUnavailable(Kernel::Avx2))
    );
    // ...while Auto runs the portable path and agrees with ark-poly.
    let v: Vec<Fq> = random_vec(2, 5);
    assert_eq!(
        d.fft(&v),
        Radix2EvaluationDomain::<Fq>::new(2).unwrap().fft(&v)
    );
    assert!(NttDomain::<Fq>::new(4).is_none());
}

/// arkworks' padding rules: shorter inputs are zero-padded, longer ones
/// truncated, non-power-of-two sizes round up; too large sizes are `None`.
#[test]
fn padding_and_size_rules_match_arkworks() {
    for num_coeffs in [0usize, 1, 2, 3, 5, 100, 1000, 4097, 5000] {
        let ark = Radix2EvaluationDomain::<Fr>::new(num_coeffs).unwrap();
        let ours = NttDomain::<Fr>::new(num_coeffs).unwrap();
        assert_eq!(ours.size(), ark.size());
        assert_eq!(ours.group_gen(), ark.group_gen());
        for len in [
            0usize,
            1,
            num_coeffs / 3,
            num_coeffs,
            ark.size(),
            ark.size() + 3,
        ] {
            let v: Vec<Fr> = random_vec(len, len as u64);
            assert_eq!(
                ours.fft(&v),
                ark.fft(&v),
                "fft len {len} size {}",
                ark.size()
            );
            assert_eq!(
                ours.ifft(&v),
                ark.ifft(&v),
                "ifft len {len} size {}",
                ark.size()
            );
        }
    }
    let two_adicity = <Fr as FftField>::TWO_ADICITY;
    assert!(NttDomain::<Fr>::new(1usize << two_adicity).is_some());
    assert!(NttDomain::<Fr>::new((1usize << two_adicity) + 1).is_none());
    assert_eq!(
        NttDomain::<Fr>::compute_size_of_domain(1usize << (two_adicity + 1)),
        None
    );
}

/// Regression (found by the `ntt` fuzz target): ark-poly 0.6's
/// `Radix2EvaluationDomain::new` overflows in `next_power_of_two` above 2^63
/// and panics in debug builds; `NttDomain` answers `None` for every size.
#[test]
fn sizes_near_usize_max_are_refused_not_panics() {
    for size in [usize::MAX, usize::MAX - 1, (1usize << 63) + 1] {
        assert!(NttDomain::<Fr>::new(size).is_none(), "{size}");
        assert!(
            NttDomain::<Fr>::compute_size_of_domain(size).is_none(),
            "{size}"
        );
    }
    assert!(NttDomain::<Fr>::new(1usize << 63).is_none());
}

/// Non-field coefficients (group elements) take the generic path. Each
/// butterfly is a scalar multiplication, so the largest size is 2^4 below
/// the field sizes' cap (2^13 by default; 2^10 under qemu, CI's aarch64
/// stage, where 2^13 took 40 s).
#[test]
fn group_element_coefficients() {
    for log_n in [0u32, 3, log_max().saturating_sub(4).clamp(3, 13)] {
        let n = 1usize << log_n;
        let v: Vec<G1Projective> = random_vec(n, 9);
        let ark = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
        let ours = NttDomain::<Fr>::new(n).unwrap();
        assert_eq!(ours.fft(&v), ark.fft(&v));
        assert_eq!(ours.ifft(&v), ark.ifft(&v));
    }
}

/// `transform_lean` gives `fft_in_place`'s and `ifft_in_place`'s results
/// (arkworks' own, padding and truncation included) for the fast fields,
/// another field and group elements.
#[test]
fn transform_lean_equals_arkworks() {
    fn check<
        F: FftField,
        T: ark_poly::domain::DomainCoeff<F> + UniformRand + PartialEq + core::fmt::Debug,
    >(
        n: usize,
        len: usize,
        seed: u64,
    ) {
        let v: Vec<T> = random_vec(len, seed);
        let ark = Radix2EvaluationDomain::<F>::new(n).unwrap();
        let ours = NttDomain::<F>::new(n).unwrap();
        for (a, o) in [
            (ark, ours),
            (
                ark.get_coset(F::GENERATOR).unwrap(),
                ours.get_coset(F::GENERATOR).unwrap(),
            ),
        ] {
            let mut x = v.clone();
            o.transform_lean(&mut x, Direction::Forward);
            let mut y = v.clone();
            a.fft_in_place(&mut y);
            assert_eq!(x, y, "forward, n = {n}, {len} values");
            let mut x = v.clone();
            o.transform_lean(&mut x, Direction::Inverse);
            let mut y = v.clone();
            a.ifft_in_place(&mut y);
            assert_eq!(x, y, "inverse, n = {n}, {len} values");
        }
    }
    for (log_n, len) in [
        (0u32, 1usize),
        (1, 0),
        (3, 5),
        (14, 1 << 14),
        (15, (1 << 15) - 3),
        (16, 1 << 16),
    ] {
        let n = 1usize << log_n;
        check::<Fr, Fr>(n, len, 40 + log_n as u64);
        check::<ark_bls12_381::Fr, ark_bls12_381::Fr>(n.min(1 << 12), len.min(1 << 12), 50);
    }
    check::<ark_bls12_377::Fr, ark_bls12_377::Fr>(1 << 10, 1000, 60);
    check::<Fr, G1Projective>(1 << 5, 1 << 5, 70);
}

/// Domain parameters, elements, vanishing and Lagrange polynomials are
/// arkworks' own.
#[test]
fn domain_parameters_and_polynomials() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let ark = Radix2EvaluationDomain::<Fr>::new(64)
        .unwrap()
        .get_coset(Fr::from(7u64))
        .unwrap();
    let ours = NttDomain::<Fr>::new(64)
        .unwrap()
        .get_coset(Fr::from(7u64))
        .unwrap();
    assert_eq!(
        ours.elements().collect::<Vec<_>>(),
        ark.elements().collect::<Vec<_>>()
    );
    let tau = Fr::rand(&mut rng);
    assert_eq!(
        ours.evaluate_all_lagrange_coefficients(tau),
        ark.evaluate_all_lagrange_coefficients(tau)
    );
    assert_eq!(
        ours.evaluate_vanishing_polynomial(tau),
        ark.evaluate_vanishing_polynomial(tau)
    );
    assert_eq!(ours.coset_offset_pow_size(), ark.coset_offset_pow_size());
    let mut bytes = Vec::new();
    ark_serialize::CanonicalSerialize::serialize_compressed(&ours, &mut bytes).unwrap();
    let back: NttDomain<Fr> =
        ark_serialize::CanonicalDeserialize::deserialize_compressed(&bytes[..]).unwrap();
    assert_eq!(back, ours);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn random_sizes_cosets_and_directions(log_n in 0u32..=14, seed in any::<u64>(), k in 1u64..1000) {
        let n = 1usize << log_n;
        let v: Vec<Fr> = random_vec(n, seed);
        let offset = Fr::from(k);
        let ark = Radix2EvaluationDomain::<Fr>::new(n).unwrap().get_coset(offset).unwrap();
        let ours = NttDomain::<Fr>::new(n).unwrap().get_coset(offset).unwrap();
        prop_assert_eq!(ours.fft(&v), ark.fft(&v));
        prop_assert_eq!(ours.ifft(&v), ark.ifft(&v));
    }
}

/// Says on stderr, where cargo shows it even for a passing test, that a
/// kernel was not tested.
fn skip(what: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED: {what}");
}

fn ifma_supported() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        zkaccel_ntt::field::ifma::Ifma::detect().is_some()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

fn avx2_supported() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        zkaccel_ntt::field::avx2::Avx2::detect().is_some()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
