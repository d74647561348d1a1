//! [`CudaError`]: every way the GPU backend can fail, with a clear message.

use std::fmt;

/// Why the CUDA backend could not do what was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CudaError {
    /// zkaccel-cuda was built without the feature `cuda`.
    NotCompiled,
    /// The driver reports no usable CUDA device (no GPU, or no kernel driver).
    NoDevice,
    /// The device ordinal does not exist.
    InvalidDevice {
        /// The ordinal asked for.
        ordinal: u32,
        /// How many devices there are.
        count: u32,
    },
    /// The device cannot hold even one chunk of the input.
    OutOfMemory {
        /// Bytes needed.
        requested: usize,
        /// Bytes free on the device.
        free: usize,
    },
    /// The driver rejected the PTX (too old a driver for PTX ISA 8.0, or a
    /// GPU older than compute capability 8.0).
    UnsupportedPtx(String),
    /// Any other driver failure, with the driver's own description.
    Driver(String),
    /// The device returned a value that is not a valid result (a field
    /// element out of range): a kernel bug or a hardware fault.
    BadResult(String),
}

impl fmt::Display for CudaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CudaError::NotCompiled => write!(
                f,
                "zkaccel-cuda was built without the feature `cuda` (rebuild with \
                 `--features cuda` after scripts/setup-cuda.sh)"
            ),
            CudaError::NoDevice => write!(
                f,
                "no CUDA device: the driver found no GPU (or no NVIDIA kernel driver is loaded)"
            ),
            CudaError::InvalidDevice { ordinal, count } => write!(
                f,
                "CUDA device {ordinal} does not exist ({count} device(s) present)"
            ),
            CudaError::OutOfMemory { requested, free } => write!(
                f,
                "the GPU is out of memory: {requested} bytes needed, {free} free"
            ),
            CudaError::UnsupportedPtx(why) => write!(
                f,
                "the driver cannot load zkaccel's PTX (needs a CUDA 12.4+ driver and \
                 compute capability 8.0+): {why}"
            ),
            CudaError::Driver(why) => write!(f, "CUDA driver error: {why}"),
            CudaError::BadResult(why) => write!(f, "the GPU returned an invalid result: {why}"),
        }
    }
}

impl std::error::Error for CudaError {}

#[cfg(feature = "cuda")]
impl From<cust::error::CudaError> for CudaError {
    fn from(e: cust::error::CudaError) -> Self {
        use cust::error::CudaError as E;
        match e {
            E::NoDevice => CudaError::NoDevice,
            E::InvalidPtx | E::NoBinaryForGpu | E::InvalidImage => {
                CudaError::UnsupportedPtx(format!("{e} ({e:?})"))
            }
            E::OutOfMemory => CudaError::Driver(
                "out of device memory (CUDA_ERROR_OUT_OF_MEMORY) outside a sized allocation".into(),
            ),
            other => CudaError::Driver(format!("{other} ({other:?})")),
        }
    }
}
