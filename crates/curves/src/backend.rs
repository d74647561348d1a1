//! Where the curve types' multi-scalar multiplications run, chosen once per
//! process with [`set_backend`].

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;
use zkaccel_cuda::CudaMsm;

/// Where MSMs of zkaccel's curve types run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// zkaccel's CPU MSM (`zkaccel_cpu`'s `Auto`) for every curve.
    Cpu,
    /// The GPU (feature `cuda`) for BN254 G1, the curve zkaccel-cuda has
    /// kernels for; the CPU for the others. [`set_backend`] refuses it when
    /// no GPU can be used.
    Cuda,
    /// The GPU for BN254 G1 when one is usable, the CPU otherwise (the
    /// default). A build with the feature `cuda` logs which, once
    /// (the `log` facade, level info).
    Auto,
}

static BACKEND: AtomicU8 = AtomicU8::new(Backend::Auto as u8);

/// Chooses where MSMs run from now on, for the whole process. `Cuda` is an
/// error, naming the reason, when no GPU can be used (a build without the
/// feature `cuda`, no device, no driver); the backend is then unchanged.
pub fn set_backend(backend: Backend) -> Result<(), zkaccel_cuda::CudaError> {
    if backend == Backend::Cuda {
        zkaccel_cuda::shared_context()?;
    }
    BACKEND.store(backend as u8, Ordering::Relaxed);
    Ok(())
}

/// The backend [`set_backend`] chose ([`Backend::Auto`] until then).
pub fn backend() -> Backend {
    match BACKEND.load(Ordering::Relaxed) {
        x if x == Backend::Cpu as u8 => Backend::Cpu,
        x if x == Backend::Cuda as u8 => Backend::Cuda,
        _ => Backend::Auto,
    }
}

/// The GPU's BN254 G1 MSM when the backend asks for it and a GPU is
/// usable; `None` keeps the CPU.
pub(crate) fn gpu_g1() -> Option<&'static CudaMsm> {
    if backend() == Backend::Cpu {
        return None;
    }
    static GPU: OnceLock<Option<CudaMsm>> = OnceLock::new();
    GPU.get_or_init(|| match zkaccel_cuda::shared_context() {
        Ok(ctx) => {
            log::info!(
                "MSMs of BN254 G1 on the GPU ({}: {})",
                ctx.ordinal(),
                ctx.name()
            );
            Some(CudaMsm::with_context(ctx))
        }
        Err(why) => {
            if zkaccel_cuda::COMPILED_WITH_CUDA {
                log::info!("backend auto -> cpu ({why})");
            }
            None
        }
    })
    .as_ref()
}
