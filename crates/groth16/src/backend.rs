//! Where the prover's MSMs and NTTs run.

use std::sync::Once;

/// The backend a prover uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// zkaccel's CPU MSM and NTT.
    Cpu,
    /// The GPU (feature `cuda`): the G1 MSMs and the witness map's NTTs of
    /// BN254 proofs run on it (the G2 MSM stays on the CPU for now). Without a usable GPU,
    /// proving returns [`crate::Groth16Error::BackendUnavailable`] with the
    /// reason.
    Cuda,
    /// The GPU when one is usable, the CPU otherwise; logs which once per
    /// process (the `log` facade, level info; a bad [`BACKEND_ENV`] value at
    /// level warn). The environment variable [`BACKEND_ENV`]
    /// (`ZKACCEL_BACKEND=cpu` or `cuda`) forces the choice, so one machine
    /// can measure both paths.
    Auto,
}

/// The environment variable that forces what [`Backend::Auto`] resolves
/// to: `cpu`, `cuda` (an error without a usable GPU, as [`Backend::Cuda`])
/// or `auto`. Read once per process; explicit `Cpu` and `Cuda` ignore it.
pub const BACKEND_ENV: &str = "ZKACCEL_BACKEND";

/// What `ZKACCEL_BACKEND` asks `Auto` for: `Ok(None)` when unset or
/// `auto`, `Err(message)` for a value that is not understood (ignored).
fn auto_override() -> &'static Result<Option<Backend>, String> {
    static SETTING: std::sync::OnceLock<Result<Option<Backend>, String>> =
        std::sync::OnceLock::new();
    SETTING.get_or_init(|| {
        let Some(v) = std::env::var_os(BACKEND_ENV) else {
            return Ok(None);
        };
        match v.to_string_lossy().trim().to_ascii_lowercase().as_str() {
            "" | "auto" => Ok(None),
            "cpu" => Ok(Some(Backend::Cpu)),
            "cuda" | "gpu" => Ok(Some(Backend::Cuda)),
            other => Err(format!(
                "{BACKEND_ENV}={other:?} is not one of cpu, cuda, auto: ignored"
            )),
        }
    })
}

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

/// The process's GPU, opened once: device 0, or why there is none.
#[cfg(feature = "cuda")]
fn gpu() -> Result<std::sync::Arc<zkaccel_cuda::CudaContext>, String> {
    zkaccel_cuda::shared_context().map_err(|e| e.to_string())
}

#[cfg(not(feature = "cuda"))]
fn gpu() -> Result<std::convert::Infallible, String> {
    Err("this build of zkaccel has no CUDA backend (build with the feature `cuda`)".into())
}

/// Resolves `requested`: `Cuda` is an error naming the reason when no GPU
/// can be used; `Auto` takes the GPU when it can and says which backend it
/// chose, and why, once per process (level info).
pub(crate) fn resolve(requested: Backend) -> Result<Resolved, String> {
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
            match auto_override() {
                Ok(Some(Backend::Cpu)) => {
                    SAID.call_once(|| log::info!("backend auto -> cpu ({BACKEND_ENV}=cpu)"));
                    return Ok(Resolved::Cpu);
                }
                Ok(Some(_)) => return resolve(Backend::Cuda),
                Ok(None) => {}
                Err(e) => {
                    static WARNED: Once = Once::new();
                    WARNED.call_once(|| log::warn!("{e}"));
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
