//! Where the prover's MSMs and NTTs run.

use std::sync::Once;

use zkaccel_core::BackendCause;
pub use zkaccel_core::{Backend, BACKEND_ENV};

/// Type-level choice of [`Backend`] for [`crate::Groth16`].
pub trait BackendChoice: Send + Sync + 'static {
    /// The backend this marker selects.
    const BACKEND: Backend;
}

/// Marker: [`Backend::Cpu`].
pub struct Cpu;
/// Marker: [`Backend::Cuda`].
pub struct Cuda;
/// Marker: [`Backend::Auto`] (the default).
pub struct Auto;

impl BackendChoice for Cpu {
    const BACKEND: Backend = Backend::Cpu;
}
impl BackendChoice for Cuda {
    const BACKEND: Backend = Backend::Cuda;
}
impl BackendChoice for Auto {
    const BACKEND: Backend = Backend::Auto;
}

/// What a requested backend resolved to for one proof.
#[derive(Clone, Debug)]
pub(crate) enum Resolved {
    /// zkaccel's CPU MSM and NTT.
    Cpu,
    /// A GPU, open and with zkaccel's kernels loaded.
    #[cfg(feature = "cuda")]
    Cuda(std::sync::Arc<zkaccel_cuda::CudaContext>),
}

/// The process's GPU, opened once: device 0, or why there is none (the
/// driver's error, typed).
#[cfg(feature = "cuda")]
fn gpu() -> Result<std::sync::Arc<zkaccel_cuda::CudaContext>, BackendCause> {
    zkaccel_cuda::shared_context().map_err(BackendCause::new)
}

/// Without the feature `cuda` there is no GPU backend to open.
#[cfg(not(feature = "cuda"))]
fn gpu() -> Result<std::convert::Infallible, BackendCause> {
    Err(BackendCause::msg(
        "this build of zkaccel has no CUDA backend (build with the feature `cuda`)",
    ))
}

/// Resolves `requested`: `Cuda` is an error carrying the reason when no
/// GPU can be used; `Auto` takes the GPU when it can and says which backend
/// it chose, and why, once per process (level info).
pub(crate) fn resolve(requested: Backend) -> Result<Resolved, BackendCause> {
    match requested {
        Backend::Cpu => Ok(Resolved::Cpu),
        Backend::Cuda => match gpu() {
            #[cfg(feature = "cuda")]
            Ok(ctx) => Ok(Resolved::Cuda(ctx)),
            #[cfg(not(feature = "cuda"))]
            Ok(never) => match never {},
            Err(why) => Err(why),
        },
        Backend::Auto => {
            static SAID: Once = Once::new();
            match zkaccel_core::backend_from_env() {
                Ok(Some(Backend::Cpu)) => {
                    SAID.call_once(|| log::info!("backend auto -> cpu ({BACKEND_ENV}=cpu)"));
                    return Ok(Resolved::Cpu);
                }
                Ok(Some(_)) => return resolve(Backend::Cuda),
                Ok(None) => {}
                Err(e) => {
                    static WARNED: Once = Once::new();
                    WARNED.call_once(|| log::warn!("{BACKEND_ENV}={e}: ignored"));
                }
            }
            match gpu() {
                #[cfg(feature = "cuda")]
                Ok(ctx) => {
                    SAID.call_once(|| {
                        log::info!(
                            "backend auto -> cuda (GPU {}: {}; G1 MSMs and NTTs of BN254 proofs on the GPU)",
                            ctx.ordinal(),
                            ctx.name()
                        )
                    });
                    Ok(Resolved::Cuda(ctx))
                }
                #[cfg(not(feature = "cuda"))]
                Ok(never) => match never {},
                Err(why) => {
                    SAID.call_once(|| log::info!("backend auto -> cpu ({why})"));
                    Ok(Resolved::Cpu)
                }
            }
        }
    }
}
