//! The GPU NTT (`kernels/ntt/ntt.cuh`) over BN254 Fr: the launch sequence
//! shared by the runtime and the emulation, and [`CudaNtt`], an
//! [`NttProvider`] with an explicit CPU fallback.

use crate::error::CudaError;
use crate::plan::quotient_job;
pub use crate::plan::{vectors_per_chunk, NttJob, QuotientJob, BLOCK_LOG, MAX_BATCH};
use crate::CudaContext;
use ark_bn254::Fr;
use std::sync::Arc;
use zkaccel_ntt::{BackendCause, CpuNtt, Direction, NttDomain, NttError, NttProvider, QuotientForm};

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
