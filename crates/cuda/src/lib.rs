//! zkaccel's CUDA backend: kernels written in CUDA C++ under `kernels/` (at
//! the workspace root), driven from Rust through `cust`.
//!
//! # What is here
//! - The bucket method (Pippenger) as a sequence of simple kernels
//!   (`kernels/msm/bucket_msm.cuh`, host steps in [`bucket`]), for dense
//!   inputs; host-emulated and tested. [`CudaMsm`] picks it or the
//!   per-thread DBC method by the number of non-zero terms ([`GpuMethod`]).
//! - The paper's GPU MSM (one thread per term computes its scalar's
//!   δ-suboptimal double-base chain and the scalar multiplication, then
//!   `ceil(log2 m)` rounds of pairwise additions), as [`CudaMsm`], an
//!   [`MsmProvider`](zkaccel_cpu::MsmProvider) for BN254 G1.
//! - The NTT over BN254 Fr (`kernels/ntt/ntt.cuh`: twiddles computed on the
//!   device, bit reversal, the first 8 stages per block in shared memory,
//!   later stages one launch each, coset and 1/n scaling) as [`CudaNtt`], an
//!   [`NttProvider`](zkaccel_ntt::NttProvider).
//! - [`emulation`]: the same kernels compiled for the host by g++, run by the
//!   tests against arkworks and zkaccel-dbc on every build, GPU or not.
//! - [`CudaContext`]: the device, its module and stream (feature `cuda`;
//!   without it, `CudaContext::new` answers [`CudaError::NotCompiled`]).
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
//! | `kernels/util/` | host/device portability, the PTX carry-chain primitives |
//! | `kernels/ff/` | Montgomery field arithmetic on 32-bit limbs, BN254 Fq and Fr |
//! | `kernels/ec/` | Jacobian (dbl, tpl, madd, add) and XYZZ formulas, BN254 G1 |
//! | `kernels/dbc/` | integers and the per-thread δ-suboptimal chain |
//! | `kernels/msm/` | the per-thread DBC MSM and the tree reduction |
//! | `kernels/zkaccel.cu` | the `__global__` entry points |

#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod bucket;
pub mod emulation;
mod error;
pub mod layout;
mod msm;
pub mod ntt;
pub mod plan;
pub mod tables;

#[cfg(feature = "cuda")]
mod runtime;
#[cfg(not(feature = "cuda"))]
mod stub;

pub use error::CudaError;
pub use msm::{CudaMsm, DeviceBases, GpuMethod, DEFAULT_DELTA, GPU_MIN_TERMS, SPARSE_FACTOR};
pub use ntt::CudaNtt;
#[cfg(feature = "cuda")]
pub use runtime::{CudaContext, PTX};
#[cfg(not(feature = "cuda"))]
pub use stub::CudaContext;

/// Whether this build can drive a GPU (the feature `cuda`).
pub const COMPILED_WITH_CUDA: bool = cfg!(feature = "cuda");
