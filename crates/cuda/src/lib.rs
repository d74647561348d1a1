//! zkaccel's CUDA backend: kernels written in CUDA C++ under the workspace's
//! top-level `kernels/` (packaged with this crate through its `kernels`
//! link), driven from Rust through `cust`.
//!
//! # What is here
//! - [`CudaMsm`], an [`MsmProvider`](zkaccel_core::MsmProvider) for BN254 G1:
//!   the bucket method (Pippenger) as a sequence of simple kernels
//!   (`kernels/msm/bucket_msm.cuh`; prefix sum and segments on the device,
//!   geometry and host references in `bucket`), with bases
//!   optionally kept on the device ([`DeviceBases`]); its [`GpuMethod::Auto`]
//!   runs the CPU for few terms or narrow scalars, as measured on an H100.
//! - The paper's GPU MSM (one thread per term computes its scalar's
//!   δ-suboptimal double-base chain and the scalar multiplication, then
//!   `ceil(log2 m)` rounds of pairwise additions), on request
//!   ([`GpuMethod::DbcPerThread`]): slower than the bucket method at every
//!   size measured.
//! - The NTT over BN254 Fr (`kernels/ntt/ntt.cuh`: twiddles cached on the
//!   device, bit reversal, a shared-memory pass over contiguous blocks, then
//!   strided shared-memory passes of up to 8 stages, coset and 1/n scaling,
//!   batches in one launch per pass)
//!   as [`CudaNtt`], an [`NttProvider`](zkaccel_ntt::NttProvider), and
//!   Groth16's quotient as one device job ([`CudaNtt::quotient`]).
//! - [`CudaContext`]: a device ready to run the pipelines: a GPU
//!   ([`CudaContext::new`], feature `cuda`; without it the answer is
//!   [`CudaError::NotCompiled`]) or, with the feature `emulation` (on by
//!   default in this crate, off in the crates that depend on it), the same
//!   kernels compiled for the host by g++ (`CudaContext::emulated`), which
//!   runs the GPU's launch sequences for the tests, GPU or not. Each
//!   pipeline is written once over one device interface. With
//!   `ZKACCEL_CUDA_PROFILE` set a context logs each pipeline's per-step
//!   times (the `log` facade, level info, target `zkaccel_cuda::profile`).
//!
//! # Building with CUDA
//! `scripts/setup-cuda.sh` installs nvcc, CUDA 12.4's ptxas and the driver
//! library from package registries; then `source .cuda/env.sh` and build with
//! `--features cuda`. The PTX targets compute_80 (Ampere and later) and
//! declares PTX ISA 8.0, loadable by drivers of CUDA 12.4 and later.
//!
//! # Kernel layout
//! | folder | what |
//! |---|---|
//! | `kernels/util/` | host/device portability, the PTX carry-chain primitives, atomics, block helpers, the prefix sum |
//! | `kernels/ff/` | Montgomery field arithmetic on 32-bit limbs, BN254 Fq and Fr |
//! | `kernels/ec/` | Jacobian (dbl, tpl, madd, add) and XYZZ formulas, BN254 G1 |
//! | `kernels/dbc/` | integers and the per-thread δ-suboptimal chain |
//! | `kernels/msm/` | the bucket method, the per-thread DBC MSM and the tree reduction |
//! | `kernels/ntt/` | the NTT passes, coset scaling, Groth16's quotient |
//! | `kernels/zkaccel.cu` | the `__global__` entry points |

#![warn(missing_docs)]
// Without `cuda` or `emulation` there is no device to run the pipelines on:
// CudaContext::new answers NotCompiled, and the machinery stays unused.
#![cfg_attr(
    not(any(feature = "cuda", feature = "emulation")),
    allow(dead_code, unused_imports)
)]
#![deny(unsafe_op_in_unsafe_fn)]

mod context;
mod device;
/// The kernels run on the host, for this crate's tests (a test hook:
/// hidden from the documentation).
#[cfg(feature = "emulation")]
#[doc(hidden)]
pub mod emulation;
mod error;
mod kernels;
mod msm;
mod pipeline;

/// Modules public with the feature `emulation` (this crate's tests check
/// their host-side geometry, layouts and job descriptions against host
/// references) and crate-private otherwise: a user of the GPU backend sees
/// only the checked types re-exported below.
macro_rules! public_for_tests {
    ($($(#[$doc:meta])* $m:ident;)*) => {$(
        $(#[$doc])*
        #[cfg(feature = "emulation")]
        #[doc(hidden)]
        pub mod $m;
        // Without the tests, their host references here go unused.
        #[cfg(not(feature = "emulation"))]
        #[allow(dead_code)]
        mod $m;
    )*};
}

public_for_tests! {
    bucket;
    layout;
    ntt;
    plan;
    tables;
}

pub use context::CudaContext;
#[cfg(feature = "emulation")]
#[doc(hidden)]
pub use context::EMULATED_MEMORY;
#[cfg(feature = "cuda")]
pub use device::cust::PTX;
pub use error::CudaError;
pub use msm::{
    CudaMsm, DeviceBases, GpuMethod, DEFAULT_DELTA, GPU_MIN_TERMS, SPARSE_FACTOR, WIDTH_SAMPLE,
};
pub use ntt::CudaNtt;

/// Whether this build can drive a GPU (the feature `cuda`).
pub const COMPILED_WITH_CUDA: bool = cfg!(feature = "cuda");

/// The process's GPU (device 0) with zkaccel's kernels loaded, opened on
/// the first call and shared by every later caller (zkaccel-groth16's
/// backends, zkaccel-curves' types), or why there is none (a build without
/// the feature `cuda` says so).
pub fn shared_context() -> Result<std::sync::Arc<CudaContext>, CudaError> {
    use std::sync::{Arc, OnceLock};
    static GPU: OnceLock<Result<Arc<CudaContext>, CudaError>> = OnceLock::new();
    GPU.get_or_init(|| CudaContext::new(0).map(Arc::new))
        .clone()
}
