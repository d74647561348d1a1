//! Launch geometry and job descriptions shared by the GPU runtime and the
//! host emulation, so both run the kernels in the same sequence with the
//! same grids: threads per block, chunk sizes, reduction rounds, and the
//! NTT's and Groth16 quotient's jobs ([`NttJob`], [`QuotientJob`]).

use ark_bn254::Fr;
use ark_ff::One;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use zkaccel_ntt::{BackendCause, Direction, NttDomain, NttError, QuotientForm};

/// Threads per block of every kernel.
pub const BLOCK: u32 = 128;

/// Device bytes per MSM term: base (64), scalar (32), product (96), and the
/// first reduction round's output (48).
pub const BYTES_PER_TERM: usize = 64 + 32 + 96 + 48;

/// How many MSM terms one chunk may hold when `free` bytes of device memory
/// are free: 80% of them (the rest for the driver and the tables), at most
/// `u32::MAX / 2` (the kernels index with 32 bits). Zero means not even one.
pub fn terms_per_chunk(free: usize) -> usize {
    (free / 10 * 8 / BYTES_PER_TERM).min(u32::MAX as usize / 2)
}

/// A one-dimensional launch: `grid` blocks of `block` threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchPlan {
    /// Blocks.
    pub grid: u32,
    /// Threads per block.
    pub block: u32,
}

impl LaunchPlan {
    /// Enough blocks of [`BLOCK`] threads for `n` threads (at least one block).
    pub fn for_threads(n: u32) -> LaunchPlan {
        LaunchPlan {
            grid: n.div_ceil(BLOCK).max(1),
            block: BLOCK,
        }
    }

    /// Whether the grid has at least `n` threads.
    pub fn covers(&self, n: u32) -> bool {
        self.grid as u64 * self.block as u64 >= n as u64
    }
}

/// One round of the pairwise reduction: `inputs` points in, `outputs =
/// ceil(inputs / 2)` out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Round {
    /// Points in.
    pub inputs: u32,
    /// Points out.
    pub outputs: u32,
}

/// The rounds that sum `n` points down to one: `ceil(log2 n)` of them.
#[derive(Clone, Debug)]
pub struct ReductionRounds {
    n: u32,
}

impl ReductionRounds {
    /// The rounds for `n` points.
    pub fn new(n: u32) -> Self {
        ReductionRounds { n }
    }
}

impl Iterator for ReductionRounds {
    type Item = Round;
    fn next(&mut self) -> Option<Round> {
        if self.n <= 1 {
            return None;
        }
        let r = Round {
            inputs: self.n,
            outputs: self.n.div_ceil(2),
        };
        self.n = r.outputs;
        Some(r)
    }
}

/// Stages done in shared memory by `zk_ntt_block_stages` (`ZK_NTT_BLOCK_LOG`).
pub const BLOCK_LOG: u32 = 8;

/// Vectors of one batched launch at most: the kernels' `gridDim.y` limit.
pub const MAX_BATCH: usize = 65_535;

/// How many vectors of `2^log_n` values one batched launch takes when
/// `free_bytes` of device memory are free: those that fit in 80% of it, at
/// least one (a vector that does not fit fails its allocation with
/// [`crate::CudaError::OutOfMemory`]), at most [`MAX_BATCH`].
pub fn vectors_per_chunk(log_n: u32, free_bytes: usize) -> usize {
    let vector = 32usize.checked_shl(log_n).unwrap_or(usize::MAX);
    (free_bytes / 10 * 8 / vector).clamp(1, MAX_BATCH)
}

/// One transform's parameters, as the kernels take them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NttJob {
    /// log2 of the size.
    pub log_n: u32,
    /// The root of unity whose powers are the twiddles (the inverse root for
    /// an inverse transform).
    pub root: Fr,
    /// Powers of this multiply the input first (forward transform on a coset).
    pub pre: Option<Fr>,
    /// After the stages: multiply by powers of `post_powers` (if any) and by
    /// `post_factor` (inverse transforms: the coset's inverse and 1/n).
    pub post_powers: Option<Fr>,
    /// See `post_powers`.
    pub post_factor: Option<Fr>,
}

impl NttJob {
    /// The job ark-poly's `fft` (forward) or `ifft` (inverse) does on `domain`.
    pub fn new(domain: &Radix2EvaluationDomain<Fr>, direction: Direction) -> NttJob {
        let coset = !domain.offset.is_one();
        match direction {
            Direction::Forward => NttJob {
                log_n: domain.log_size_of_group,
                root: domain.group_gen,
                pre: coset.then_some(domain.offset),
                post_powers: None,
                post_factor: None,
            },
            Direction::Inverse => NttJob {
                log_n: domain.log_size_of_group,
                root: domain.group_gen_inv,
                pre: None,
                post_powers: coset.then_some(domain.offset_inv),
                post_factor: Some(domain.size_inv),
            },
        }
    }

    /// Stages run in shared memory on contiguous blocks (the first pass).
    pub fn block_stages(&self) -> u32 {
        self.log_n.min(BLOCK_LOG)
    }

    /// The later passes `(s0, k)`: stages `s0 + 1 ..= s0 + k` on strided
    /// groups of `2^k` elements (`zk_ntt_group_stages`), at most
    /// [`BLOCK_LOG`] stages each, covering every stage after the first pass.
    pub fn group_passes(&self) -> Vec<(u32, u32)> {
        let mut passes = Vec::new();
        let mut s0 = self.block_stages();
        while s0 < self.log_n {
            let k = (self.log_n - s0).min(BLOCK_LOG);
            passes.push((s0, k));
            s0 += k;
        }
        passes
    }
}

/// Groth16's quotient from the evaluations of `a`, `b`, `c` on the domain,
/// as one device job: interpolate each, evaluate it on the coset, combine
/// (`(a b - c) * z_inv`), and, for [`QuotientForm::Coefficients`],
/// interpolate from the coset. Seven (or six) transforms with three
/// uploads and one download, where separate calls move fourteen vectors
/// across the bus.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuotientJob {
    /// The inverse transform on the domain.
    pub interpolate: NttJob,
    /// The forward transform on the coset.
    pub to_coset: NttJob,
    /// The inverse transform on the coset ([`QuotientForm::Coefficients`]);
    /// `None` leaves `h` as evaluations on the coset.
    pub from_coset: Option<NttJob>,
    /// The factor of the combination: `1 / Z(g)`, the inverse of the
    /// domain's vanishing polynomial at the coset's offset (constant on the
    /// coset), for [`QuotientForm::Coefficients`]; one for
    /// [`QuotientForm::CosetEvaluations`].
    pub z_inv: Fr,
}

impl QuotientJob {
    /// The job for `domain` and its coset `coset` (same size) computing the
    /// coefficients of `h` ([`QuotientForm::Coefficients`]); `None` when
    /// they differ in size or `Z` vanishes at the coset's offset (the coset
    /// is the domain itself).
    pub fn new(domain: &NttDomain<Fr>, coset: &NttDomain<Fr>) -> Option<QuotientJob> {
        QuotientJob::with_form(domain, coset, QuotientForm::Coefficients)
    }

    /// The job computing `h` in `form`; `None` as for [`QuotientJob::new`]
    /// (for both forms: a coset that is the domain itself gives no
    /// quotient).
    pub fn with_form(
        domain: &NttDomain<Fr>,
        coset: &NttDomain<Fr>,
        form: QuotientForm,
    ) -> Option<QuotientJob> {
        let (d, c) = (domain.as_radix2(), coset.as_radix2());
        if d.size != c.size {
            return None;
        }
        let z_inv = ark_ff::Field::inverse(&d.evaluate_vanishing_polynomial(c.offset))?;
        let coefficients = form == QuotientForm::Coefficients;
        Some(QuotientJob {
            interpolate: NttJob::new(d, Direction::Inverse),
            to_coset: NttJob::new(c, Direction::Forward),
            from_coset: coefficients.then(|| NttJob::new(c, Direction::Inverse)),
            z_inv: if coefficients { z_inv } else { Fr::one() },
        })
    }

    /// The form of `h` this job computes.
    pub fn form(&self) -> QuotientForm {
        match self.from_coset {
            Some(_) => QuotientForm::Coefficients,
            None => QuotientForm::CosetEvaluations,
        }
    }
}

/// The quotient's job for `domain` and `coset` in `form`, after checking
/// that every vector of `abc` has one value per point of the domain and
/// that the coset is a coset of the same size off the domain.
pub(crate) fn quotient_job(
    domain: &NttDomain<Fr>,
    coset: &NttDomain<Fr>,
    abc: &[Vec<Fr>; 3],
    form: QuotientForm,
) -> Result<QuotientJob, NttError> {
    let n = domain.as_radix2().size as usize;
    if let Some(v) = abc.iter().find(|v| v.len() != n) {
        return Err(NttError::LengthMismatch {
            expected: n,
            got: v.len(),
        });
    }
    QuotientJob::with_form(domain, coset, form).ok_or_else(|| NttError::Backend {
        backend: "cuda",
        cause: BackendCause::msg("the coset must have the domain's size and lie off the domain"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_halve_down_to_one() {
        assert_eq!(ReductionRounds::new(0).count(), 0);
        assert_eq!(ReductionRounds::new(1).count(), 0);
        for n in 2..2000u32 {
            let rounds: Vec<Round> = ReductionRounds::new(n).collect();
            assert_eq!(
                rounds.len() as u32,
                32 - (n - 1).leading_zeros(),
                "ceil(log2 {n})"
            );
            assert_eq!(rounds[0].inputs, n);
            assert_eq!(rounds.last().unwrap().outputs, 1);
            for w in rounds.windows(2) {
                assert_eq!(w[0].outputs, w[1].inputs);
            }
        }
    }

    #[test]
    fn plans_cover_every_thread() {
        for n in [0u32, 1, 127, 128, 129, 1 << 20, u32::MAX] {
            let p = LaunchPlan::for_threads(n);
            assert!(p.covers(n) && p.grid >= 1);
            assert!(p.grid as u64 * p.block as u64 - n as u64 <= BLOCK as u64);
        }
    }

    #[test]
    fn chunks_fit_in_free_memory() {
        assert_eq!(terms_per_chunk(0), 0);
        assert_eq!(terms_per_chunk(BYTES_PER_TERM), 0);
        let free = 80usize << 30; // an 80 GiB device
        let n = terms_per_chunk(free);
        assert!(n * BYTES_PER_TERM <= free / 10 * 8 && n > (1 << 28));
        assert_eq!(terms_per_chunk(usize::MAX), u32::MAX as usize / 2);
    }


    #[test]
    fn passes_cover_every_stage_once() {
        for log_n in 0..=28u32 {
            let job = NttJob {
                log_n,
                root: Fr::one(),
                pre: None,
                post_powers: None,
                post_factor: None,
            };
            let mut next = job.block_stages();
            for (s0, k) in job.group_passes() {
                assert_eq!(s0, next, "2^{log_n}: passes are consecutive");
                assert!((1..=BLOCK_LOG).contains(&k));
                next = s0 + k;
            }
            assert_eq!(next, log_n, "2^{log_n}: every stage done");
        }
        let big = NttJob {
            log_n: 20,
            root: Fr::one(),
            pre: None,
            post_powers: None,
            post_factor: None,
        };
        assert_eq!(big.group_passes(), vec![(8, 8), (16, 4)]);
    }

    #[test]
    fn batches_fit_in_free_memory() {
        // 2^20 values are 32 MiB: 80% of 1 GiB holds 25 of them.
        assert_eq!(vectors_per_chunk(20, 1 << 30), 25);
        assert_eq!(vectors_per_chunk(20, 0), 1, "at least one vector");
        assert_eq!(vectors_per_chunk(0, usize::MAX), MAX_BATCH);
        assert_eq!(vectors_per_chunk(70, 1 << 40), 1, "no overflow");
        for log_n in 0..30 {
            for free in [1usize << 20, 3 << 30, 80 << 30] {
                let v = vectors_per_chunk(log_n, free);
                assert!((1..=MAX_BATCH).contains(&v));
                assert!(v == 1 || v * (32 << log_n) <= free / 10 * 8);
            }
        }
    }
}
