//! Point formulas and scalar multiplication on the CPU.
//!
//! * [`formulas`]: Jacobian doubling, tripling, mixed and full addition for
//!   `a = 0`, `a = -3` and any `a`, each with its cost, all runnable with an
//!   operation counter ([`Counting`]).
//! * [`mul`]: `k * P` by a [`ScalarMulMethod`]: the paper's double-base-chain
//!   method (Algorithm 1 over a δ-suboptimal chain whose search uses the cost
//!   of the formulas actually run), NAF, width-`w` NAF, GLV with interleaved
//!   wNAF, or `Auto`.
//!
//! ```
//! use ark_bn254::{Fr, G1Projective};
//! use ark_ec::PrimeGroup;
//! use ark_ff::{BigInteger, PrimeField};
//! use zkaccel_cpu::{mul, ScalarMulMethod};
//! let p = G1Projective::generator();
//! let k = Fr::from(123456789u64);
//! let fast = mul(&p, &k.into_bigint(), ScalarMulMethod::Auto).unwrap();
//! assert_eq!(fast, p * k);
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// Public: the MSM's algorithms and tuning, and the point formulas (with
// their costs); everything else a user calls is re-exported below.
pub mod formulas;
pub mod msm;

// Test and benchmark hooks (the newtype casts, the process's memory).
#[doc(hidden)]
pub mod accel;
#[doc(hidden)]
pub mod memory;

mod curve_mul;
mod field_ops;
mod glv;
mod parallel;
mod prepared;
mod scalar_mul;
mod xyzz;

pub use accel::Accel;
pub use curve_mul::{
    mul, mul_scalar, mul_scalar_with, mul_with, wnaf_window, CurveMul, MulError, ScalarMulMethod,
};
pub use field_ops::{
    batch_inverse, AdxFp2Ops, AdxOps, Counting, DetectOps, FieldOps, Plain, PortableFp2Ops,
    PortableOps,
};
pub use formulas::FormulaSet;
pub use msm::{
    msm, msm_bases, msm_bigint_with, msm_chunked, msm_with, BackendCause, BaseSlice, Bases, CpuMsm,
    MontBytes, MsmAlgorithm, MsmError, MsmProvider, PackedBases, SharedScalars,
};
pub use prepared::PreparedBases;
pub use xyzz::Xyzz;
pub use zkaccel_dbc::{DbcError, Limbs};
