//! The transform, in place, natural order in and out: which composition of
//! the radix-4 kernels runs for each size ([`run`]), and what a transform
//! allocates, asked of each kernel that may run ([`working_memory`]).
//!
//! | size | composition | file |
//! |---|---|---|
//! | up to `2^LEAF_LOG` | one in-cache radix-4 transform | `radix4.rs` |
//! | up to [`WHOLE_MAX_LOG`] | radix-4 stages over the whole array, then in-cache blocks | `radix4.rs` |
//! | above | the four-step (Bailey) split: column and row transforms in cache | `four_step.rs` |
//!
//! For field elements the domain may run a lane kernel instead: the AVX-512
//! IFMA four-step (`ifma.rs`) or the AVX2 whole-array transform
//! (`avx2.rs`), both built from the same stages (`stages.rs`).

use ark_ff::FftField;

use crate::arith::Arith;
use crate::four_step;
use crate::job::Job;
use crate::radix4::{self, run_leaf, run_whole, LEAF_LOG};

/// Transforms up to this size (and above [`LEAF_LOG`]) run as one radix-4
/// transform of the whole array with the full stage table (`n - 1`
/// twiddles per direction: 32 MiB at 2^20 for BN254, as much as the data):
/// the first stages over the whole array, split between the threads, then
/// in-cache blocks of at most `2^LEAF_LOG`. That saves the four-step
/// split's two multiplications per element (its twiddles `w_n^(j2*k1)` and
/// their power chains), a sixth of the total at 2^20; above this size the
/// four-step keeps the tables at `2 sqrt(n)` elements.
pub(crate) const WHOLE_MAX_LOG: u32 = 20;

/// Runs `job` on `data` (length `2^job.log_n`), natural order in and out.
pub(crate) fn run<F: FftField, A: Arith<F>>(ar: &A, data: &mut [A::E], job: &Job<F>) {
    let n = data.len();
    debug_assert_eq!(n, 1usize << job.log_n);
    if job.log_n <= LEAF_LOG {
        run_leaf::<F, A>(ar, data, job);
    } else if job.log_n <= WHOLE_MAX_LOG {
        run_whole::<F, A>(ar, data, job);
    } else {
        four_step::run::<F, A>(ar, data, job);
    }
}

/// Upper estimate of the heap bytes one transform of `2^log_n` elements of
/// a field of `field` bytes allocates besides its data, asked of each
/// kernel that may run: the scalar kernels' (`radix4` up to
/// [`WHOLE_MAX_LOG`], `four_step` above); with `lanes` (the AVX-512 IFMA
/// four-step may run, from 2^9) the larger of that, the IFMA four-step's
/// and the whole array's (small sizes without the lane path run as one
/// leaf); with `avx2` (the AVX2 lane transform may run for the sizes it
/// takes, four-limb fields) the larger of the above and its needs.
pub(crate) fn working_memory(log_n: u32, field: usize, lanes: bool, avx2: bool) -> usize {
    let whole = radix4::working_memory(log_n, field);
    let scalar = if log_n <= WHOLE_MAX_LOG {
        whole
    } else {
        four_step::working_memory(log_n, field)
    };
    #[cfg(target_arch = "x86_64")]
    {
        let mut bytes = scalar;
        if lanes {
            bytes = bytes
                .max(crate::ifma::working_memory(log_n, field))
                .max(whole);
        }
        if avx2 {
            bytes = bytes.max(crate::avx2::working_memory(log_n, field).unwrap_or(0));
        }
        bytes
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (lanes, avx2);
        scalar
    }
}

#[cfg(test)]
mod tests {
    //! Both compositions at the sizes where `run` picks only one of them
    //! (the four-step runs above 2^WHOLE_MAX_LOG in use, too large to test
    //! every kernel there), against ark-poly, 2^13 to 2^17.
    use super::*;
    use crate::arith::{AdxArith, Generic, Portable};
    use crate::job::PostScale;
    use ark_bn254::Fr;
    use ark_ff::{FftField, UniformRand};
    use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
    use rand::SeedableRng;

    fn jobs(log_n: u32, coset: bool) -> [(Job<Fr>, Radix2EvaluationDomain<Fr>, bool); 2] {
        let mut d = Radix2EvaluationDomain::<Fr>::new(1 << log_n).unwrap();
        if coset {
            d = d.get_coset(Fr::GENERATOR).unwrap();
        }
        let forward = Job {
            log_n,
            inverse: false,
            pre: coset.then_some(d.offset),
            post: None,
        };
        let inverse = Job {
            log_n,
            inverse: true,
            pre: None,
            post: Some(PostScale {
                factor: d.size_inv,
                offset: d.offset_inv,
            }),
        };
        [(forward, d, false), (inverse, d, true)]
    }

    fn check<A: Arith<Fr, E = Fr>>(ar: &A, name: &str) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        // ZKACCEL_TEST_NTT_LOG_MAX (as in tests/ntt.rs) lowers the largest
        // size, for emulators; the smallest four-step size always runs.
        let log_max = std::env::var("ZKACCEL_TEST_NTT_LOG_MAX")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(17u32)
            .clamp(LEAF_LOG + 1, 17);
        for log_n in LEAF_LOG + 1..=log_max {
            let v: Vec<Fr> = (0..1usize << log_n).map(|_| Fr::rand(&mut rng)).collect();
            for coset in [false, true] {
                for (job, d, inverse) in jobs(log_n, coset) {
                    let want = if inverse { d.ifft(&v) } else { d.fft(&v) };
                    let mut four = v.clone();
                    four_step::run::<Fr, A>(ar, &mut four, &job);
                    assert_eq!(
                        four, want,
                        "{name} four-step 2^{log_n} coset={coset} inverse={inverse}"
                    );
                    let mut whole = v.clone();
                    run_whole::<Fr, A>(ar, &mut whole, &job);
                    assert_eq!(
                        whole, want,
                        "{name} whole 2^{log_n} coset={coset} inverse={inverse}"
                    );
                }
            }
        }
    }

    #[test]
    fn four_step_and_whole_array_agree_with_ark_poly() {
        match AdxArith::new() {
            Some(adx) => check(&adx, "adx"),
            None => {
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "SKIPPED: the ADX kernel's four-step and whole-array transforms (no BMI2/ADX, or ZKACCEL_KERNEL=portable)"
                );
            }
        }
        check(&Portable, "portable");
        check(&Generic::<Fr>::new(), "generic");
    }
}
