//! A 2^20-constraint proof inside a stated memory budget: a MiMC hash chain
//! filling a domain of 2^20 is set up, then proved by zkaccel's CPU prover
//! with each MSM capped at 256 MiB of working memory (so they run in
//! chunks); the proof must verify and the process's peak resident memory
//! while proving (the 384 MiB proving key included) must stay under
//! 1.5 GiB. Measured on the 2-core development machine: 1.1 GiB (RSS 580
//! MiB before proving), about 90 s in all.
//!
//! `ZKACCEL_TEST_RSS_LOG_N` (default 20) sets the size. Linux only: where
//! `/proc/self/status` is missing the test says it was skipped. The test
//! runs in a child process of its own (`in_own_process!`), so the peak is
//! this proof's alone.

use ark_bn254::{Bn254, Fr};
use ark_snark::SNARK;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::io::Write;
use zkaccel_cpu::memory::{peak_rss, reset_peak_rss, rss};
use zkaccel_cpu::msm::set_memory_budget;
use zkaccel_groth16::circuits::MimcChain;
use zkaccel_groth16::{backend, Groth16};

const BUDGET_MIB: usize = 1536;
const MSM_BUDGET_MIB: usize = 256;

#[test]
fn proof_of_2_20_constraints_within_the_memory_budget() {
    in_own_process!(proof_of_2_20_constraints_within_the_memory_budget);
    let log_n: u32 = std::env::var("ZKACCEL_TEST_RSS_LOG_N").map_or(20, |s| s.parse().unwrap());
    if peak_rss().is_none() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: no /proc/self/status, peak RSS is measured on Linux only"
        );
        return;
    }
    let mib = |b: usize| b >> 20;
    set_memory_budget(Some(MSM_BUDGET_MIB << 20));
    // Room for the two public inputs: the chain fills the domain.
    let circuit = MimcChain::with_constraints(Fr::from(7u64), (1usize << log_n) - 2);
    let public = circuit.public_inputs();
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng).unwrap();
    let before = rss().unwrap();
    // Without clear_refs the peak counts from the start, setup included: an
    // upper bound of the proof's peak, so the check stays valid.
    let reset = reset_peak_rss();
    let proof = Groth16::<Bn254, backend::Cpu>::prove(&pk, circuit, &mut rng).unwrap();
    let peak = peak_rss().unwrap();
    set_memory_budget(None);
    assert!(Groth16::<Bn254>::verify(&vk, &public, &proof).unwrap());
    eprintln!(
        "2^{log_n} constraints: RSS {} MiB before proving, peak {} MiB while proving{} \
         (budget {BUDGET_MIB} MiB, MSMs capped at {MSM_BUDGET_MIB} MiB)",
        mib(before),
        mib(peak),
        if reset {
            ""
        } else {
            " (since start: clear_refs refused)"
        }
    );
    assert!(
        peak <= BUDGET_MIB << 20,
        "peak RSS {} MiB over the budget of {BUDGET_MIB} MiB",
        mib(peak)
    );
}
