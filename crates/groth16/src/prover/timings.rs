//! [`ProofTimings`]: the wall-clock time of each prover phase.

use crate::clock::Stopwatch;
use std::time::Duration;

/// Wall-clock time of each prover phase (for reports; not used by the
/// prover itself). All zero on `wasm32-unknown-unknown`, which has no clock
/// ([`crate::clock::Stopwatch`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct ProofTimings {
    /// Circuit synthesis and matrix construction.
    pub synthesis: Duration,
    /// R1CS-to-QAP witness map (the seven NTTs and the constraint sums;
    /// where the GPU runs the quotient fused with the H MSM, the constraint
    /// sums only, the NTTs counting in `msm_h`).
    pub witness_map: Duration,
    /// MSM of the A query (G1).
    pub msm_a: Duration,
    /// MSM of the B query in G1.
    pub msm_b_g1: Duration,
    /// MSM of the B query in G2.
    pub msm_b_g2: Duration,
    /// MSM of the L query (G1; on the CPU's own bases, with the recoding
    /// of the scalars that L, A and B1 share, `zkaccel_cpu::SharedScalars`).
    pub msm_l: Duration,
    /// MSM of the H query (G1; with the GPU's fused quotient, the quotient's
    /// transforms too).
    pub msm_h: Duration,
    /// The whole proof.
    pub total: Duration,
    /// Whether the quotient's transforms ran fused with the H MSM on the GPU
    /// (then counted in `msm_h`, not in `witness_map`).
    pub quotient_in_msm_h: bool,
    /// Whether the G1 MSMs ran on the GPU beside the CPU's work (A, B1 and L
    /// during the witness map, H during the G2 MSM): the phases then
    /// overlap and add up to more than `total`.
    pub overlapped: bool,
}

/// Runs `f`, adding its wall-clock time to `slot`.
pub(super) fn timed<T>(slot: &mut Duration, f: impl FnOnce() -> T) -> T {
    let t = Stopwatch::start();
    let r = f();
    *slot += t.elapsed();
    r
}
