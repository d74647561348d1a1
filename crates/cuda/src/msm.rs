//! [`CudaMsm`]: the MSM provider of the GPU backend (BN254 G1), running the
//! paper's per-thread DBC method, with an explicit CPU fallback.

use crate::error::CudaError;
use crate::layout::{fr_limbs, scalar_limbs, DeviceAffine};
use crate::CudaContext;
use ark_bn254::{g1::Config as G1Config, Fr, G1Affine, G1Projective};
use ark_ec::AffineRepr;
use ark_ff::{BigInt, BigInteger, Zero};
use std::sync::Arc;
use zkaccel_cpu::msm::check_lengths;
use zkaccel_cpu::{CpuMsm, MsmError, MsmProvider};

/// The delta of the per-thread chain search (the paper's GPU setting).
pub const DEFAULT_DELTA: u32 = 1;

/// Up to this many non-zero terms, [`GpuMethod::Auto`] runs the per-thread
/// DBC method; above, the bucket method. Provisional: set from the two
/// methods' operation counts, to be calibrated on a GPU (none has run these
/// kernels yet).
pub const DBC_MAX_TERMS: usize = 4096;

/// Which GPU algorithm [`CudaMsm`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GpuMethod {
    /// Per-thread DBC for at most [`DBC_MAX_TERMS`] non-zero terms, the
    /// bucket method above.
    #[default]
    Auto,
    /// The bucket method (`kernels/msm/bucket_msm.cuh`).
    Bucket,
    /// The paper's per-thread DBC method (`kernels/msm/dbc_msm.cuh`).
    DbcPerThread,
}

impl GpuMethod {
    /// The method `Auto` resolves to for `nonzero` non-zero terms.
    pub fn resolve(self, nonzero: usize) -> GpuMethod {
        match self {
            GpuMethod::Auto if nonzero <= DBC_MAX_TERMS => GpuMethod::DbcPerThread,
            GpuMethod::Auto => GpuMethod::Bucket,
            m => m,
        }
    }
}

/// The GPU MSM provider for BN254 G1.
///
/// [`CudaMsm::new`] needs a usable GPU. [`CudaMsm::or_cpu`] takes one if
/// there is one and otherwise runs zkaccel's CPU MSM, saying so once on
/// standard error with the reason (so a run never silently loses its GPU).
#[derive(Debug, Clone)]
pub struct CudaMsm {
    gpu: Option<Arc<CudaContext>>,
    fallback_reason: Option<CudaError>,
    delta: u32,
    method: GpuMethod,
    cpu: CpuMsm,
}

impl CudaMsm {
    /// The provider on device `ordinal`; an error if it cannot be used.
    pub fn new(ordinal: u32) -> Result<CudaMsm, CudaError> {
        Ok(CudaMsm::with_context(Arc::new(CudaContext::new(ordinal)?)))
    }

    /// The provider on an open device.
    pub fn with_context(ctx: Arc<CudaContext>) -> CudaMsm {
        CudaMsm {
            gpu: Some(ctx),
            fallback_reason: None,
            delta: DEFAULT_DELTA,
            method: GpuMethod::Auto,
            cpu: CpuMsm::default(),
        }
    }

    /// The GPU on device `ordinal` if usable, else the CPU, with one log
    /// line on standard error naming the reason.
    pub fn or_cpu(ordinal: u32) -> CudaMsm {
        match CudaMsm::new(ordinal) {
            Ok(m) => m,
            Err(e) => {
                eprintln!(
                    "zkaccel: the CUDA MSM is unavailable ({e}); falling back to the CPU MSM"
                );
                CudaMsm {
                    gpu: None,
                    fallback_reason: Some(e),
                    delta: DEFAULT_DELTA,
                    method: GpuMethod::Auto,
                    cpu: CpuMsm::default(),
                }
            }
        }
    }

    /// The same provider with another chain-search delta (0 = NAF only).
    pub fn with_delta(mut self, delta: u32) -> CudaMsm {
        self.delta = delta;
        self
    }

    /// The same provider with another GPU algorithm.
    pub fn with_method(mut self, method: GpuMethod) -> CudaMsm {
        self.method = method;
        self
    }

    /// Whether MSMs run on the GPU.
    pub fn uses_gpu(&self) -> bool {
        self.gpu.is_some()
    }

    /// Why the CPU runs them, for a provider made by [`CudaMsm::or_cpu`].
    pub fn fallback_reason(&self) -> Option<&CudaError> {
        self.fallback_reason.as_ref()
    }

    /// Runs the non-zero terms on the GPU with the chosen method.
    fn run<S>(
        &self,
        ctx: &CudaContext,
        bases: &[G1Affine],
        scalars: &[S],
        is_zero: impl Fn(&S) -> bool,
        limbs: impl Fn(&S) -> [u32; 8],
        montgomery: bool,
    ) -> Result<G1Projective, MsmError> {
        let backend = |e: CudaError| MsmError::Backend {
            backend: "cuda",
            message: e.to_string(),
        };
        // Zero terms (scalar or base) never reach the device.
        let (mut b, mut k) = (Vec::new(), Vec::new());
        for (p, s) in bases.iter().zip(scalars) {
            if !is_zero(s) && !p.is_zero() {
                b.push(DeviceAffine::from_ark(p));
                k.push(limbs(s));
            }
        }
        if b.is_empty() {
            return Ok(G1Projective::zero());
        }
        if self.method.resolve(b.len()) == GpuMethod::Bucket {
            return ctx.bucket_msm(&b, &k, montgomery).map_err(backend);
        }
        let partial = ctx
            .dbc_msm(&b, &k, montgomery, self.delta)
            .map_err(backend)?;
        let mut sum = G1Projective::zero();
        for p in partial {
            sum += p.to_ark().ok_or_else(|| {
                backend(CudaError::BadResult(
                    "a coordinate of the MSM result is not below the field modulus".into(),
                ))
            })?;
        }
        Ok(sum)
    }
}

impl MsmProvider<G1Config> for CudaMsm {
    fn name(&self) -> &'static str {
        if self.gpu.is_some() {
            "cuda"
        } else {
            "cuda (cpu fallback)"
        }
    }

    fn msm(&self, bases: &[G1Affine], scalars: &[Fr]) -> Result<G1Projective, MsmError> {
        check_lengths(bases.len(), scalars.len())?;
        match &self.gpu {
            Some(ctx) => self.run(ctx, bases, scalars, |s| s.is_zero(), fr_limbs, true),
            None => MsmProvider::<G1Config>::msm(&self.cpu, bases, scalars),
        }
    }

    fn msm_bigint(
        &self,
        bases: &[G1Affine],
        scalars: &[BigInt<4>],
    ) -> Result<G1Projective, MsmError> {
        check_lengths(bases.len(), scalars.len())?;
        match &self.gpu {
            Some(ctx) => self.run(ctx, bases, scalars, |s| s.is_zero(), scalar_limbs, false),
            None => MsmProvider::<G1Config>::msm_bigint(&self.cpu, bases, scalars),
        }
    }
}
