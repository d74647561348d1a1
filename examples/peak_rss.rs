//! Peak memory of one zkaccel Groth16 proof of a 2^N-constraint circuit
//! (MiMC hash chain filling a domain of 2^N, default N = 20), against a
//! stated budget.
//!
//! ```text
//! cargo run --release --example peak_rss -- [--log-n 20] [--budget-mib M] [--msm-budget-mib B]
//! ```
//! Sets up (ark-groth16's setup on zkaccel's NTT), then resets the kernel's
//! peak-RSS counter (`/proc/self/clear_refs`), proves, verifies, and prints
//! the peak resident memory of the proof (key and process included) and of
//! the whole run. With `--budget-mib` it exits with status 1 when the
//! proof's peak is over the budget. `--msm-budget-mib` caps each MSM's
//! working memory (zkaccel_cpu::msm::set_memory_budget), so the MSMs run in
//! chunks: the same proof in less memory. Linux only (reads /proc).

use ark_bn254::{Bn254, Fr};
use ark_serialize::CanonicalSerialize;
use ark_snark::SNARK;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::process::ExitCode;
use std::time::Instant;
use zkaccel::cpu::memory::{peak_rss, reset_peak_rss, rss};
use zkaccel::cpu::msm::set_memory_budget;
use zkaccel::groth16::circuits::MimcChain;
use zkaccel::groth16::{backend, Groth16};

use zkaccel_testkit::flags;

const USAGE: &str =
    "usage: peak_rss [--log-n N] [--budget-mib M] [--msm-budget-mib B] (Linux: reads /proc/self/status)";

fn mib(bytes: Option<usize>) -> f64 {
    bytes.map_or(f64::NAN, |b| b as f64 / (1 << 20) as f64)
}

fn run() -> Result<bool, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let f = flags::Flags::parse(&args, &["--log-n", "--budget-mib", "--msm-budget-mib"], &[])
        .map_err(|e| format!("{e}; {USAGE}"))?;
    let log_n: u32 = f.num("--log-n", 20)?;
    if !(2..=26).contains(&log_n) {
        return Err(format!("--log-n {log_n} is outside 2..=26"));
    }
    let budget: f64 = f.num("--budget-mib", 0.0)?;
    let msm_budget: usize = f.num("--msm-budget-mib", 0)?;
    if msm_budget > 0 {
        set_memory_budget(Some(msm_budget << 20));
    }
    peak_rss().ok_or("no /proc/self/status: peak RSS is measured on Linux only")?;

    // Room for the two public inputs: the chain fills a domain of 2^log_n.
    let circuit = MimcChain::with_constraints(Fr::from(7u64), (1usize << log_n) - 2);
    let public = circuit.public_inputs();
    let t = Instant::now();
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng)
        .map_err(|e| e.to_string())?;
    let key_mib = pk.uncompressed_size() as f64 / (1 << 20) as f64;
    eprintln!(
        "setup of 2^{log_n}: {:.1} s; proving key {key_mib:.0} MiB",
        t.elapsed().as_secs_f64()
    );
    let before = mib(rss());
    let whole_run = mib(peak_rss());
    let reset = reset_peak_rss();
    let t = Instant::now();
    let proof =
        Groth16::<Bn254, backend::Cpu>::prove(&pk, circuit, &mut rng).map_err(|e| e.to_string())?;
    let prove_s = t.elapsed().as_secs_f64();
    let peak = mib(peak_rss());
    let ok = Groth16::<Bn254>::verify(&vk, &public, &proof).map_err(|e| e.to_string())?;
    if !ok {
        return Err("the proof does not verify".into());
    }
    let msm = if msm_budget > 0 {
        format!("MSM budget {msm_budget} MiB")
    } else {
        "default MSM budget".into()
    };
    println!(
        "2^{log_n} constraints, {msm}: proof in {prove_s:.1} s, verifies; RSS {before:.0} MiB before \
         proving (key {key_mib:.0} MiB), peak {peak:.0} MiB while proving{}; peak of the whole run \
         before proving {whole_run:.0} MiB",
        if reset { "" } else { " (clear_refs unavailable: peak since start)" }
    );
    if budget > 0.0 {
        if peak > budget {
            println!("OVER the budget of {budget:.0} MiB");
            return Ok(false);
        }
        println!("within the budget of {budget:.0} MiB");
    }
    Ok(true)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("peak_rss: {e}");
            ExitCode::from(2)
        }
    }
}
