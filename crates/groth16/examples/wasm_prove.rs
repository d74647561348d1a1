//! A Groth16 proof made by zkaccel's prover where browsers and WASI
//! runtimes run it: WebAssembly (`wasm32-wasip1`; `scripts/wasm-check.sh`
//! builds it and runs it under node's WASI). Sets up a MiMC hash chain,
//! proves it with zkaccel (the portable field kernels: no assembly, no
//! threads) and with stock ark-groth16 from the same seed, and exits
//! non-zero unless the two proofs are byte-identical and zkaccel's verifies
//! (and a wrong public input does not).
//!
//! ```text
//! cargo build -p zkaccel-groth16 --example wasm_prove --target wasm32-wasip1
//! node scripts/wasm-run.mjs target/wasm32-wasip1/debug/examples/wasm_prove.wasm [ROUNDS]
//! ```
//!
//! Built for WebAssembly targets only: natively the same check is the
//! facade's `prove` example (`cargo run --release --example prove --
//! --circuit mimc`), and `cargo test` would otherwise spend a minute of an
//! optimised build on a second copy of the prover.

#[cfg(not(target_family = "wasm"))]
fn main() {
    println!(
        "wasm_prove is built for WebAssembly (scripts/wasm-check.sh); natively, run the \
         facade's prove example: cargo run --release --example prove -- --circuit mimc"
    );
}

#[cfg(target_family = "wasm")]
fn main() -> std::process::ExitCode {
    use ark_bn254::{Bn254, Fr};
    use ark_snark::SNARK;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;
    use std::process::ExitCode;
    use zkaccel_groth16::circuits::MimcChain;
    use zkaccel_groth16::{backend, Groth16};

    let rounds = match std::env::args().nth(1).map(|s| s.parse::<usize>()) {
        None => 300,
        Some(Ok(r)) => r,
        Some(Err(e)) => {
            println!("ROUNDS: {e}");
            return ExitCode::from(2);
        }
    };
    let circuit = MimcChain::new(Fr::from(3u64), rounds);
    let public = circuit.public_inputs();
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let (pk, vk) = match Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng) {
        Ok(keys) => keys,
        Err(e) => {
            println!("setup failed: {e}");
            return ExitCode::FAILURE;
        }
    };
    let ours = Groth16::<Bn254, backend::Cpu>::prove(
        &pk,
        circuit.clone(),
        &mut ChaCha20Rng::seed_from_u64(5),
    );
    let stock =
        ark_groth16::Groth16::<Bn254>::prove(&pk, circuit, &mut ChaCha20Rng::seed_from_u64(5));
    let (ours, stock) = match (ours, stock) {
        (Ok(a), Ok(b)) => (a, b),
        (a, b) => {
            println!(
                "proving failed: zkaccel {:?}, ark-groth16 {:?}",
                a.err(),
                b.err()
            );
            return ExitCode::FAILURE;
        }
    };
    // Equal points serialise to equal bytes.
    let identical = ours == stock;
    let verifies = Groth16::<Bn254>::verify(&vk, &public, &ours).unwrap_or(false);
    let mut wrong = public.clone();
    wrong[0] += Fr::from(1u64);
    let rejects_wrong = !Groth16::<Bn254>::verify(&vk, &wrong, &ours).unwrap_or(true);
    println!(
        "target {}: MiMC chain of {rounds} rounds; zkaccel's proof byte-identical to \
         ark-groth16's: {identical}; verifies: {verifies}; a wrong public input rejected: \
         {rejects_wrong}",
        std::env::consts::ARCH
    );
    if identical && verifies && rejects_wrong {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
