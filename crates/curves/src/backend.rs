//! Where the curve types' multi-scalar multiplications run, chosen once per
//! process with [`set_backend`].

use std::sync::atomic::{AtomicU8, Ordering};

use std::sync::OnceLock;
use zkaccel_cuda::CudaMsm;

/// Where MSMs of zkaccel's curve types run (zkaccel-core's one selector):
/// `Cpu` for every curve; `Cuda`, the GPU for BN254 G1 (the curve
/// zkaccel-cuda has kernels for) and the CPU for the others, refused by
/// [`set_backend`] when no GPU can be used; `Auto` (the default), the GPU for
/// BN254 G1 when one is usable, unless `ZKACCEL_BACKEND` says otherwise, the
/// choice logged once (level info).
pub use zkaccel_core::Backend;

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

/// The backend [`backend`] chose, with `Auto` forced by `ZKACCEL_BACKEND`
/// where that is set (a value not understood is logged once and ignored).
fn effective() -> Backend {
    match backend() {
        Backend::Auto => match zkaccel_core::backend_from_env() {
            Ok(Some(b)) => *b,
            Ok(None) => Backend::Auto,
            Err(e) => {
                static WARNED: std::sync::Once = std::sync::Once::new();
                WARNED.call_once(|| log::warn!("{}={e}: ignored", zkaccel_core::BACKEND_ENV));
                Backend::Auto
            }
        },
        b => b,
    }
}

/// The GPU's BN254 G1 MSM when the backend asks for it and a GPU is
/// usable; `None` keeps the CPU.
pub(crate) fn gpu_g1() -> Option<&'static CudaMsm> {
    if effective() == Backend::Cpu {
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
