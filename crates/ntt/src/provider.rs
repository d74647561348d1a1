//! The [`NttProvider`] trait: where transforms run (the CPU now, CUDA later).

use crate::domain::{Direction, Kernel, NttDomain, NttError};
use crate::field::MontField;

/// The form of Groth16's quotient `h` that a witness map takes from the
/// evaluations of `a`, `b`, `c` on the domain (what an offloaded quotient
/// job, such as the GPU's, must return).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QuotientForm {
    /// libsnark's and ark-groth16's: the coefficients of `h = (a b - c) / Z`
    /// (interpolate each, evaluate on the coset, combine and divide by `Z`,
    /// which is constant on the coset, interpolate from the coset: seven
    /// transforms).
    Coefficients,
    /// circom's, snarkjs' and rapidsnark's: `a b - c` on the coset, not
    /// divided by `Z` (their keys' H points absorb it) and not
    /// interpolated: six transforms.
    CosetEvaluations,
}

/// A backend that runs batches of equal-size transforms.
///
/// Provers hold a `&dyn NttProvider<F>` (or a generic) and do not care where
/// the work happens; every provider must return exactly what
/// [`ark_poly::Radix2EvaluationDomain`] returns.
pub trait NttProvider<F: MontField>: Send + Sync {
    /// A short name for logs ("cpu", "cuda").
    fn name(&self) -> &'static str;

    /// Transforms every vector of `batch` in place over `domain` (natural
    /// order in and out; coset variants on a coset domain). Each vector must
    /// have exactly `domain.size()` elements.
    fn transform_batch(
        &self,
        domain: &NttDomain<F>,
        batch: &mut [Vec<F>],
        direction: Direction,
    ) -> Result<(), NttError>;
}

/// The CPU provider: zkaccel's four-step transform with the chosen kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuNtt {
    /// The arithmetic kernel ([`Kernel::Auto`] by default).
    pub kernel: Kernel,
}

impl Default for CpuNtt {
    fn default() -> Self {
        CpuNtt {
            kernel: Kernel::Auto,
        }
    }
}

impl<F: MontField> NttProvider<F> for CpuNtt {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn transform_batch(
        &self,
        domain: &NttDomain<F>,
        batch: &mut [Vec<F>],
        direction: Direction,
    ) -> Result<(), NttError> {
        domain.transform_batch(batch, direction, self.kernel)
    }
}
