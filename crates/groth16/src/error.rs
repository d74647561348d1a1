//! [`Groth16Error`]: why a proof was not made or not checked.

use ark_relations::gr1cs::SynthesisError;
use core::fmt;

/// Errors of zkaccel's Groth16 prover and verifier. Every input problem is
/// reported here instead of producing a proof that fails later.
#[derive(Debug)]
#[non_exhaustive]
pub enum Groth16Error {
    /// Constraint synthesis failed, or the witness does not satisfy the
    /// circuit ([`SynthesisError::Unsatisfiable`]).
    Synthesis(SynthesisError),
    /// The proving key was made for a different circuit.
    KeyMismatch {
        /// Which part of the key disagrees with the circuit.
        what: &'static str,
        /// The length the circuit needs.
        expected: usize,
        /// The length the key has.
        got: usize,
    },
    /// The verifier was given the wrong number of public inputs.
    PublicInputCount {
        /// What the verifying key expects.
        expected: usize,
        /// What was given.
        got: usize,
    },
    /// The requested backend is not available in this build or on this
    /// machine: which, and why (the driver's error where there is one,
    /// typed, as the source).
    BackendUnavailable {
        /// The backend asked for.
        backend: crate::Backend,
        /// Why it cannot be used.
        cause: zkaccel_core::BackendCause,
    },
    /// A multi-scalar multiplication failed: the backend running it (the
    /// GPU) reported an error, kept typed as the source, or it rejected its
    /// inputs (a bug: the lengths are checked before).
    Msm(zkaccel_cpu::MsmError),
    /// The witness map's transforms failed on the backend running them (the
    /// GPU); the backend's error is the source.
    Ntt(zkaccel_ntt::NttError),
    /// A proof's shares of sums ([`crate::ProofSums`]) do not make one
    /// proof: a sum missing, or given twice.
    Sums {
        /// Which sum (`h`, `l`, `a`, `b1`, `b2`).
        what: &'static str,
        /// What is wrong with it.
        problem: &'static str,
    },
}

impl fmt::Display for Groth16Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Groth16Error::Synthesis(e) => write!(f, "constraint synthesis: {e}"),
            Groth16Error::KeyMismatch {
                what,
                expected,
                got,
            } => write!(
                f,
                "proving key does not match the circuit: {what} has {got} elements, the circuit needs {expected}"
            ),
            Groth16Error::PublicInputCount { expected, got } => write!(
                f,
                "wrong number of public inputs: the verifying key expects {expected}, got {got}"
            ),
            Groth16Error::BackendUnavailable { backend, cause } => {
                write!(f, "backend {backend} unavailable: {cause}")
            }
            Groth16Error::Msm(e) => write!(f, "multi-scalar multiplication: {e}"),
            Groth16Error::Ntt(e) => write!(f, "witness map: {e}"),
            Groth16Error::Sums { what, problem } => {
                write!(f, "the proof's shares: the sum {what} is {problem}")
            }
        }
    }
}

impl std::error::Error for Groth16Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Groth16Error::Synthesis(e) => Some(e),
            Groth16Error::Msm(e) => Some(e),
            Groth16Error::Ntt(e) => Some(e),
            Groth16Error::BackendUnavailable { cause, .. } => Some(cause.get()),
            Groth16Error::KeyMismatch { .. }
            | Groth16Error::PublicInputCount { .. }
            | Groth16Error::Sums { .. } => None,
        }
    }
}

impl From<SynthesisError> for Groth16Error {
    fn from(e: SynthesisError) -> Self {
        Groth16Error::Synthesis(e)
    }
}

impl From<zkaccel_cpu::MsmError> for Groth16Error {
    fn from(e: zkaccel_cpu::MsmError) -> Self {
        Groth16Error::Msm(e)
    }
}
