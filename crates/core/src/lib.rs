//! The traits and errors every zkaccel backend shares, and the one
//! [`Backend`] selector.
//!
//! A prover holds an [`MsmProvider`] and does not care whether the CPU
//! (`zkaccel_cpu::CpuMsm`) or the GPU (`zkaccel_cuda::CudaMsm`) does the
//! work; both answer [`MsmError`]. A backend's own failure travels as a
//! [`BackendCause`]: the backend's typed error, reachable through
//! [`std::error::Error::source`], not flattened into a string.
//!
//! ```
//! use std::error::Error;
//! use zkaccel_core::{BackendCause, MsmError};
//!
//! let io = std::io::Error::other("device lost");
//! let e = MsmError::Backend { backend: "gpu", cause: BackendCause::new(io) };
//! assert_eq!(e.to_string(), "the gpu MSM failed: device lost");
//! let cause = e.source().unwrap();
//! assert!(cause.downcast_ref::<std::io::Error>().is_some());
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod backend;
pub use backend::{backend_from_env, Backend, ParseBackendError, BACKEND_ENV, GPU_MIN_TERMS};

use ark_ec::short_weierstrass::{Affine, Projective, SWCurveConfig};
use ark_ff::PrimeField;
use core::fmt;
use std::error::Error;
use std::sync::Arc;

/// A backend's own error (a GPU driver failure, a device that returned a
/// bad value), kept with its type.
///
/// Cloning shares the error. Two causes compare equal when they are the
/// same error or print the same message, so errors holding one can still
/// be compared in tests.
#[derive(Clone)]
pub struct BackendCause(Arc<dyn Error + Send + Sync + 'static>);

impl BackendCause {
    /// Wraps a backend's error.
    pub fn new<E: Error + Send + Sync + 'static>(e: E) -> Self {
        BackendCause(Arc::new(e))
    }

    /// Wraps a message, where the backend has no error type of its own.
    pub fn msg(message: impl Into<String>) -> Self {
        BackendCause(Arc::from(Box::<dyn Error + Send + Sync>::from(
            message.into(),
        )))
    }

    /// The backend's error, to inspect or downcast
    /// (`cause.get().downcast_ref::<zkaccel_cuda::CudaError>()`).
    pub fn get(&self) -> &(dyn Error + Send + Sync + 'static) {
        &*self.0
    }
}

impl fmt::Debug for BackendCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for BackendCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl PartialEq for BackendCause {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.to_string() == other.0.to_string()
    }
}

impl Eq for BackendCause {}

/// Why an MSM was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MsmError {
    /// `bases` and `scalars` differ in length.
    LengthMismatch {
        /// Number of bases.
        bases: usize,
        /// Number of scalars.
        scalars: usize,
    },
    /// Even in its smallest chunks the MSM needs more working memory than
    /// the budget (`zkaccel_cpu::msm::memory_budget`) allows.
    OutOfMemory {
        /// Number of terms asked for.
        terms: usize,
        /// Working memory of the smallest chunk, in bytes.
        needed: usize,
        /// The budget, in bytes.
        budget: usize,
    },
    /// A provider other than the CPU (the GPU) failed; `cause` is its own
    /// error (also [`Error::source`]).
    Backend {
        /// The provider's name ([`MsmProvider::name`]).
        backend: &'static str,
        /// What went wrong, as the backend reported it.
        cause: BackendCause,
    },
}

impl fmt::Display for MsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MsmError::LengthMismatch { bases, scalars } => {
                write!(
                    f,
                    "{bases} bases but {scalars} scalars: an MSM needs one scalar per base"
                )
            }
            MsmError::OutOfMemory {
                terms,
                needed,
                budget,
            } => write!(
                f,
                "an MSM of {terms} terms needs {needed} bytes of working memory even in its \
                 smallest chunks, over the budget of {budget} bytes \
                 (zkaccel_cpu::msm::set_memory_budget)"
            ),
            MsmError::Backend { backend, cause } => {
                write!(f, "the {backend} MSM failed: {cause}")
            }
        }
    }
}

impl Error for MsmError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            MsmError::Backend { cause, .. } => Some(cause.get()),
            _ => None,
        }
    }
}

/// `Err(LengthMismatch)` unless there are as many scalars as bases (the
/// check every [`MsmProvider`] makes first).
pub fn check_lengths(bases: usize, scalars: usize) -> Result<(), MsmError> {
    if bases == scalars {
        Ok(())
    } else {
        Err(MsmError::LengthMismatch { bases, scalars })
    }
}

/// Where multi-scalar multiplications run: the CPU (`zkaccel_cpu::CpuMsm`)
/// or the GPU (`zkaccel_cuda::CudaMsm`). Provers hold a provider and do not
/// care where the work happens; every provider must return exactly what
/// arkworks' `VariableBaseMSM` returns.
pub trait MsmProvider<P: SWCurveConfig>: Send + Sync {
    /// A short name for logs ("cpu", "cuda").
    fn name(&self) -> &'static str;

    /// `sum k_i P_i` over field scalars.
    fn msm(
        &self,
        bases: &[Affine<P>],
        scalars: &[P::ScalarField],
    ) -> Result<Projective<P>, MsmError>;

    /// `sum k_i P_i` over integer scalars (`VariableBaseMSM::msm_bigint`).
    fn msm_bigint(
        &self,
        bases: &[Affine<P>],
        scalars: &[<P::ScalarField as PrimeField>::BigInt],
    ) -> Result<Projective<P>, MsmError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct DriverFault(u32);

    impl fmt::Display for DriverFault {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "driver fault {}", self.0)
        }
    }

    impl Error for DriverFault {}

    #[test]
    fn backend_errors_keep_their_type() {
        let e = MsmError::Backend {
            backend: "cuda",
            cause: BackendCause::new(DriverFault(700)),
        };
        assert_eq!(e.to_string(), "the cuda MSM failed: driver fault 700");
        let src = e.source().expect("a backend error has a source");
        assert_eq!(src.downcast_ref::<DriverFault>().map(|d| d.0), Some(700));
        // Cloned errors share the cause.
        assert_eq!(e.clone(), e);
    }

    #[test]
    fn causes_compare_by_identity_or_message() {
        let a = BackendCause::new(DriverFault(1));
        let b = BackendCause::msg("driver fault 1");
        let c = BackendCause::msg("driver fault 2");
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(b.get().downcast_ref::<DriverFault>().is_none());
    }

    #[test]
    fn other_errors_have_no_source() {
        assert!(check_lengths(3, 3).is_ok());
        let e = check_lengths(3, 2).unwrap_err();
        assert_eq!(
            e,
            MsmError::LengthMismatch {
                bases: 3,
                scalars: 2
            }
        );
        assert!(e.source().is_none());
        assert!(e.to_string().contains("3 bases but 2 scalars"));
    }
}
