//! zkaccel's own test and benchmark kit, shared by the workspace's tests,
//! benches and examples (never published):
//!
//! | module | what |
//! |---|---|
//! | [`inputs`] | cheap distinct bases (`progression`), random bases and scalars |
//! | [`msm`] | the MSM edge cases every backend must get right, and the check that a backend equals arkworks on each |
//! | [`timing`] | interleaved medians, so load on a noisy machine falls on every contender alike |
//! | [`flags`] | `--flag value` parsing for the examples |
//! | [`alloc`] | a counting global allocator: peak heap bytes of a closure |
//! | [`process`] | child processes (a tool under test, the test binary again), through an emulator when the tests run under one |
//! | [`grid`] | the BN254 G1 MSM grid (densities, widths, contending algorithms) |
//! | [`pcs`] | helpers for running ark-poly-commit over both curve types |

#![warn(missing_docs)]

pub mod alloc;
pub mod flags;
pub mod grid;
pub mod inputs;
pub mod msm;
pub mod pcs;
pub mod process;
pub mod timing;
