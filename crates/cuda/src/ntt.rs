//! The GPU NTT (`kernels/ntt/ntt.cuh`) over BN254 Fr: the launch sequence
//! shared by the runtime and the emulation, and [`CudaNtt`], an
//! [`NttProvider`] with an explicit CPU fallback.

use crate::error::CudaError;
use crate::CudaContext;
use ark_bn254::Fr;
use ark_ff::One;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use std::sync::Arc;
use zkaccel_ntt::{BackendCause, CpuNtt, Direction, NttDomain, NttError, NttProvider, QuotientForm};

/// Stages done in shared memory by `zk_ntt_block_stages` (`ZK_NTT_BLOCK_LOG`).
pub const BLOCK_LOG: u32 = 8;

/// Vectors of one batched launch at most: the kernels' `gridDim.y` limit.
pub const MAX_BATCH: usize = 65_535;

/// How many vectors of `2^log_n` values one batched launch takes when
/// `free_bytes` of device memory are free: those that fit in 80% of it, at
/// least one (a vector that does not fit fails its allocation with
/// [`CudaError::OutOfMemory`]), at most [`MAX_BATCH`].
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

/// The driver's failure as an [`NttError`], the error kept typed.
fn backend_error(e: CudaError) -> NttError {
    NttError::Backend {
        backend: "cuda",
        cause: BackendCause::new(e),
    }
}

/// The GPU NTT provider for BN254 Fr.
///
/// [`CudaNtt::or_cpu`] takes the GPU when there is one and otherwise runs
/// zkaccel's CPU NTT, logging the reason at level warn.
#[derive(Debug, Clone)]
pub struct CudaNtt {
    gpu: Option<Arc<CudaContext>>,
    fallback_reason: Option<CudaError>,
}

impl CudaNtt {
    /// The provider on an open device.
    pub fn with_context(ctx: Arc<CudaContext>) -> CudaNtt {
        CudaNtt {
            gpu: Some(ctx),
            fallback_reason: None,
        }
    }

    /// The GPU on device `ordinal` if usable, else the CPU, with one log line.
    pub fn or_cpu(ordinal: u32) -> CudaNtt {
        match CudaContext::new(ordinal) {
            Ok(ctx) => CudaNtt::with_context(Arc::new(ctx)),
            Err(e) => {
                log::warn!("the CUDA NTT is unavailable ({e}); falling back to the CPU NTT");
                CudaNtt::on_cpu(Some(e))
            }
        }
    }

    /// The provider's CPU path alone (what a fallback runs): zkaccel's CPU
    /// NTT behind the same calls, for comparisons.
    pub fn cpu() -> CudaNtt {
        CudaNtt::on_cpu(None)
    }

    /// The CPU fallback, with the reason the GPU is not used.
    pub(crate) fn on_cpu(fallback_reason: Option<CudaError>) -> CudaNtt {
        CudaNtt {
            gpu: None,
            fallback_reason,
        }
    }

    /// Whether transforms run on the GPU.
    pub fn uses_gpu(&self) -> bool {
        self.gpu.is_some()
    }

    /// Why the CPU runs them, for a provider made by [`CudaNtt::or_cpu`].
    pub fn fallback_reason(&self) -> Option<&CudaError> {
        self.fallback_reason.as_ref()
    }
}

impl CudaNtt {
    /// Groth16's quotient `h` (coefficients) from the evaluations `abc` of
    /// `a`, `b`, `c` on `domain`, with `coset` the domain's coset of the
    /// same size: on the GPU as one quotient job, or on the CPU after a
    /// fallback, with the same result.
    pub fn quotient(
        &self,
        domain: &NttDomain<Fr>,
        coset: &NttDomain<Fr>,
        abc: [Vec<Fr>; 3],
    ) -> Result<Vec<Fr>, NttError> {
        self.quotient_in(domain, coset, abc, QuotientForm::Coefficients)
    }

    /// Groth16's quotient in `form` ([`QuotientForm::CosetEvaluations`]:
    /// circom's `a b - c` on the coset, six transforms), as
    /// [`CudaNtt::quotient`].
    pub fn quotient_in(
        &self,
        domain: &NttDomain<Fr>,
        coset: &NttDomain<Fr>,
        abc: [Vec<Fr>; 3],
        form: QuotientForm,
    ) -> Result<Vec<Fr>, NttError> {
        let job = quotient_job(domain, coset, &abc, form)?;
        match &self.gpu {
            Some(ctx) => ctx.quotient(abc, &job).map_err(backend_error),
            None => cpu_quotient(domain, coset, abc, &job),
        }
    }
}

/// What the GPU's quotient job computes, on zkaccel's CPU NTT (the
/// fallback, and the reference the tests hold the device to).
pub(crate) fn cpu_quotient(
    domain: &NttDomain<Fr>,
    coset: &NttDomain<Fr>,
    abc: [Vec<Fr>; 3],
    job: &QuotientJob,
) -> Result<Vec<Fr>, NttError> {
    let n = domain.as_radix2().size as usize;
    let cpu = CpuNtt::default();
    let mut abc = abc.to_vec();
    cpu.transform_batch(domain, &mut abc, Direction::Inverse)?;
    cpu.transform_batch(coset, &mut abc, Direction::Forward)?;
    let mut h: Vec<Fr> = (0..n)
        .map(|i| (abc[0][i] * abc[1][i] - abc[2][i]) * job.z_inv)
        .collect();
    if job.from_coset.is_some() {
        cpu.transform_batch(coset, std::slice::from_mut(&mut h), Direction::Inverse)?;
    }
    Ok(h)
}

impl NttProvider<Fr> for CudaNtt {
    fn name(&self) -> &'static str {
        if self.gpu.is_some() {
            "cuda"
        } else {
            "cuda (cpu fallback)"
        }
    }

    fn transform_batch(
        &self,
        domain: &NttDomain<Fr>,
        batch: &mut [Vec<Fr>],
        direction: Direction,
    ) -> Result<(), NttError> {
        let Some(ctx) = &self.gpu else {
            return CpuNtt::default().transform_batch(domain, batch, direction);
        };
        let expected = domain.as_radix2().size as usize;
        if let Some(v) = batch.iter().find(|v| v.len() != expected) {
            return Err(NttError::LengthMismatch {
                expected,
                got: v.len(),
            });
        }
        let job = NttJob::new(domain.as_radix2(), direction);
        let mut vectors: Vec<&mut [Fr]> = batch.iter_mut().map(|v| &mut v[..]).collect();
        ctx.ntt_batch(&mut vectors, &job).map_err(backend_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
