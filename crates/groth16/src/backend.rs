//! Where the prover's MSMs and NTTs run.

use std::sync::Once;

/// The backend a prover uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// zkaccel's CPU MSM and NTT.
    Cpu,
    /// The CUDA backend (not part of this build yet: proving with it returns
    /// [`crate::Groth16Error::BackendUnavailable`]).
    Cuda,
    /// The GPU when one is usable, the CPU otherwise; says which once per
    /// process on stderr.
    Auto,
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

/// The backend that will actually run, or why none can.
pub fn resolve(requested: Backend) -> Result<Backend, &'static str> {
    const NO_CUDA: &str =
        "this build of zkaccel has no CUDA backend (the CPU backend is available)";
    match requested {
        Backend::Cpu => Ok(Backend::Cpu),
        Backend::Cuda => Err(NO_CUDA),
        Backend::Auto => {
            static SAID: Once = Once::new();
            SAID.call_once(|| {
                eprintln!("zkaccel-groth16: backend auto -> cpu (no CUDA backend in this build)")
            });
            Ok(Backend::Cpu)
        }
    }
}
