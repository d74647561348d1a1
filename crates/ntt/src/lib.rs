//! Number-theoretic transforms on the CPU: the software version of the
//! pipelined FPGA NTT of Zhao, Chai et al. ("Hardware Acceleration of Number
//! Theoretic Transform in zk-SNARK").
//!
//! [`NttDomain`] implements arkworks' [`ark_poly::EvaluationDomain`], so any
//! code generic over `EvaluationDomain` (ark-groth16's `R1CSToQAP`, ark-poly's
//! polynomials, ...) can use it; its results are equal to ark-poly's
//! [`ark_poly::Radix2EvaluationDomain`] for every size, direction and coset.
//!
//! # How the FPGA ideas map to a CPU
//!
//! | FPGA design | here |
//! |---|---|
//! | Montgomery modular multipliers, one butterfly per cycle without stalls | Montgomery multiplication on arkworks' own limbs: a BMI2/ADX kernel with two carry chains (the `zkaccel-ff` crate, re-exported as [`field`]), branch-free modular add/sub (no mispredicted reductions) |
//! | 2-D split of a large transform into small independent sub-transforms that fit BRAM | four-step (Bailey) split `n = n1 * n2` with sub-transforms of at most 2^12 elements, sized for L2 (module `four_step`; up to 2^20 the whole-array radix-4 transform of module `radix4` instead) |
//! | many butterfly units fed in lockstep | on CPUs with AVX-512 IFMA, both passes of the four-step split take eight sub-transforms at a time, one per vector lane, with eight radix-2^52 Montgomery multipliers per instruction (module `ifma`, [`Kernel::Ifma`]); on CPUs with AVX2 and no IFMA, four quarters of the whole-array transform per vector, four radix-2^29 multipliers per `vpmuludq` sequence, from 2^14 to 2^18 (module `avx2`, [`Kernel::Avx2`]) |
//! | sub-transforms pipelined in parallel | rayon over independent rows (each row is one task) |
//! | data reordering between butterfly rounds so memory is read contiguously | blocked gather passes (transposes) between the two rounds of rows; the bit reversal of each row's output is folded into the next gather, so there is no separate bit-reversal pass |
//! | twiddle ROMs | stage-ordered twiddle tables for the row sizes, built once per (field, size) and shared (the private `twiddles` module); the inter-round twiddles are generated per row |
//! | coset handling in the first stage | coset powers applied inside the first gather; inverse scaling `1/n * offset^-i` inside the last gather |
//!
//! Memory: the input plus one scratch buffer of the same size (reused across a
//! batch), plus twiddle tables of about `2 * sqrt(n)` elements.

#![warn(missing_docs)]

mod arith;
#[cfg(target_arch = "x86_64")]
mod avx2;
mod domain;
mod four_step;
#[cfg(target_arch = "x86_64")]
mod ifma;
mod job;
/// The limb arithmetic the kernels use (re-exported from [`zkaccel_ff`]).
pub use zkaccel_ff as field;
mod provider;
mod radix4;
mod stages;
mod transform;
pub(crate) mod twiddles;

pub use domain::{Direction, Kernel, NttDomain, NttError, FAST_FIELDS};
pub use provider::{CpuNtt, NttProvider, QuotientForm};
pub use zkaccel_core::BackendCause;
