//! The GPU NTT (`kernels/ntt/ntt.cuh`) over BN254 Fr: the launch sequence
//! shared by the runtime and the emulation, and [`CudaNtt`], an
//! [`NttProvider`] with an explicit CPU fallback.

use crate::error::CudaError;
use crate::CudaContext;
use ark_bn254::Fr;
use ark_ff::One;
use ark_poly::Radix2EvaluationDomain;
use std::sync::Arc;
use zkaccel_ntt::{CpuNtt, Direction, NttDomain, NttError, NttProvider};

/// Stages done in shared memory by `zk_ntt_block_stages` (`ZK_NTT_BLOCK_LOG`).
pub const BLOCK_LOG: u32 = 8;

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

    /// Stages run in shared memory (the rest run one launch each).
    pub fn block_stages(&self) -> u32 {
        self.log_n.min(BLOCK_LOG)
    }
}

/// The GPU NTT provider for BN254 Fr.
///
/// [`CudaNtt::or_cpu`] takes the GPU when there is one and otherwise runs
/// zkaccel's CPU NTT, saying so once on standard error.
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
                eprintln!(
                    "zkaccel: the CUDA NTT is unavailable ({e}); falling back to the CPU NTT"
                );
                CudaNtt {
                    gpu: None,
                    fallback_reason: Some(e),
                }
            }
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
        for v in batch.iter_mut() {
            ctx.ntt(v, &job).map_err(|e| NttError::Backend {
                backend: "cuda",
                message: e.to_string(),
            })?;
        }
        Ok(())
    }
}
