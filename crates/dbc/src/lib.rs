//! Double-base chains for elliptic-curve scalar multiplication.
//!
//! A double-base chain (DBC) writes `n = sum ±2^{a_i} 3^{b_i}` with both exponents
//! non-increasing from the leading term down, so `n * P` costs `a_1` doublings,
//! `b_1` triplings and `l - 1` additions (the paper's Algorithm 1). This crate
//! computes such chains, following Wen, Jiang, Yang, Su, Liu, "An Efficient
//! Implementation of Zero-knowledge Proof Based on Acceleration of Scalar
//! Multiplication" (Chinese Journal of Computers, 2025):
//!
//! | constructor                    | what it computes                                          | source                     |
//! |--------------------------------|-----------------------------------------------------------|----------------------------|
//! | [`Dbc::optimal`]               | the cheapest chain under a [`CostModel`]                  | Yu, Al Musa, Li 2020; Alg. 2 |
//! | [`Dbc::optimal_with_leading`]  | the shortest chain with a given leading term              | same DP, one cell          |
//! | [`Dbc::shortest_with_leading`] | Eom's greedy chain for a given leading term               | Eom et al. 2021            |
//! | [`Dbc::eom`]                   | the cheapest greedy chain over all admissible leading terms | the paper's "Eom-DBC"    |
//! | [`Dbc::suboptimal`]            | δ leading terms in [`MinCost`] order, NAF as the floor    | the paper's Algorithm 3    |
//! | [`Recoding`]                   | binary, NAF, wNAF, costed the same way                    |                            |
//!
//! Inputs are non-negative integers of up to [`MAX_BITS`] bits given as
//! little-endian limbs or arkworks `BigInt<N>` (anything implementing [`Limbs`]);
//! 0 (the empty chain) and 1 are valid. Every function returns a `Result`
//! instead of panicking.
//!
//! **The δ convention.** `delta` counts the admissible leading terms tried, as
//! in the paper's text and Algorithm 3. The paper's authors' program tries
//! `delta + 1` (its loop breaks when the count *exceeds* δ), so their
//! "1-suboptimal" row corresponds to our `suboptimal(n, 2)`; `dbc stats`
//! reports both conventions side by side.
//!
//! ```
//! use zkaccel_dbc::{CostModel, Dbc};
//! let n = [0x1234_5678_9abc_def0u64, 0x0fed_cba9_8765_4321];
//! let best = Dbc::optimal(&n).unwrap();
//! let fast = Dbc::suboptimal(&n, 1).unwrap();
//! assert!(best.represents(&n) && fast.represents(&n) && best.is_valid());
//! assert!(best.cost(&CostModel::default()) <= fast.cost(&CostModel::default()));
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod chain;
// The `dbc` command's implementation (feature `cli`), for the binary and
// the fuzz target.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;
pub mod eom;
mod mincost;
mod optimal;
mod recoding;
pub mod stats;
mod suboptimal;
mod tables;
#[doc(hidden)]
pub mod uint;

pub use chain::{CostModel, Dbc, DbcError, Limbs, Sign, Term, MAX_BITS};
pub use mincost::{MinCost, MinCostEntry};
pub use recoding::{Recoding, RecodingKind};
