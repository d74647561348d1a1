//! Range-proof verification: zkaccel's `RangeVerifier::verify_batch`
//! against the C library's `secp256k1_bulletproof_rangeproof_verify_multi`
//! (single-threaded), the same proofs (made by the C prover), interleaved,
//! medians.
//!
//! ```text
//! bp-bench [--rounds R] [--shapes MxB,...]    M values a proof, B proofs a batch
//! ```
//!
//! Both verifiers must accept every batch, and refuse it with one proof
//! changed, before anything is timed. zkaccel's thread count is rayon's
//! (`RAYON_NUM_THREADS`).
//!
//! Two more zkaccel columns, for what the interleaving does to threads:
//! zkaccel's rounds back to back (its worker threads stay awake), and each
//! round after 30 ms asleep (what a round after the C verifier's sees: on a
//! virtual machine an idle virtual CPU can take milliseconds to run again).

// The oracle tests' wrapper of the C library (this binary uses part of it).
#[allow(dead_code)]
#[path = "../../tests/oracle/c_lib.rs"]
mod c_lib;

use c_lib::C;
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::time::{Duration, Instant};
use zkaccel_bulletproofs::{Blinding, Commitment, Generators, ProofInput, RangeVerifier};
use zkaccel_testkit::timing::{interleaved, median};

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds: usize = arg(&args, "--rounds").map_or(11, |r| r.parse().expect("--rounds N"));
    let shapes = arg(&args, "--shapes").unwrap_or_else(|| "1x1,2x1,8x1,1x16,1x64,1x256".into());
    println!(
        "zkaccel threads: {}; C verifier: one thread",
        rayon::current_num_threads()
    );
    if rayon::current_num_threads() > 1 {
        println!(
            "idle worker's wake-up (a second task's start in a join from outside the pool, \
             medians of 15, µs): back to back {:.0}; after 25 ms of one busy thread {:.0}",
            wake_latency(false),
            wake_latency(true)
        );
    }
    println!();
    println!("| values a proof | proofs | terms | C verify_multi, ms | zkaccel, ms | zkaccel per proof, µs | speed-up | zkaccel back to back, ms | zkaccel after 30 ms idle, ms |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for shape in shapes.split(',') {
        let (m, batch) = shape.split_once('x').expect("shapes look like 2x1");
        let (m, batch): (usize, usize) = (m.parse().unwrap(), batch.parse().unwrap());
        run(m, batch, rounds);
    }
}

/// How long the pool's second worker takes to start the other half of a
/// `rayon::join` called from outside the pool, as `verify_batch` is, while
/// the first half runs 10 ms: right after another join (`busy_before`
/// false), or after 25 ms in which one thread alone was busy, as the C
/// verifier's turn leaves the machine. Where a sleeping worker's CPU takes
/// milliseconds to run again (a virtual CPU halted by the guest), the
/// interleaved two-thread figures lose that much.
fn wake_latency(busy_before: bool) -> f64 {
    let spin = |d: Duration| {
        let t = Instant::now();
        while t.elapsed() < d {
            std::hint::spin_loop();
        }
    };
    median(
        (0..15)
            .map(|_| {
                if busy_before {
                    spin(Duration::from_millis(25));
                } else {
                    rayon::join(|| (), || ());
                }
                let t = Instant::now();
                let ((), started) = rayon::join(|| spin(Duration::from_millis(10)), || t.elapsed());
                started.as_secs_f64() * 1e6
            })
            .collect(),
    )
}

fn run(m: usize, batch: usize, rounds: usize) {
    // Grin's 256 generators where they suffice, as Grin verifies.
    let count = (2 * 64 * m).max(256);
    let c = C::new(count);
    let ours = RangeVerifier::new(Generators::new(count).expect("generators"));
    let mut rng = ChaCha20Rng::seed_from_u64((m * 1000 + batch) as u64);
    let mut proofs = Vec::new();
    let mut commits = Vec::new();
    for _ in 0..batch {
        let values: Vec<u64> = (0..m).map(|_| rng.gen()).collect();
        let blinds: Vec<[u8; 32]> = (0..m)
            .map(|_| loop {
                let mut b = [0u8; 32];
                rng.fill_bytes(&mut b);
                if Blinding::from_be_bytes(&b).is_ok() {
                    break b;
                }
            })
            .collect();
        let mut nonce = [0u8; 32];
        rng.fill_bytes(&mut nonce);
        proofs.push(c.prove(&values, &blinds, 64, &nonce, None));
        commits.push(
            values
                .iter()
                .zip(&blinds)
                .map(|(v, b)| Commitment::commit(*v, &Blinding::from_be_bytes(b).unwrap()).unwrap())
                .collect::<Vec<_>>(),
        );
    }
    let extras = vec![None; batch];
    let check = |proofs: &[Vec<u8>]| -> (bool, bool) {
        let ins: Vec<ProofInput<'_>> = proofs
            .iter()
            .zip(&commits)
            .map(|(p, c)| ProofInput {
                proof: p,
                commitments: c,
                extra: None,
            })
            .collect();
        (
            c.verify_multi(proofs, &commits, 64, &extras),
            ours.verify_batch(&ins, 64).is_ok(),
        )
    };
    assert_eq!(check(&proofs), (true, true), "a valid batch was refused");
    let mut spoiled = proofs.clone();
    let last = spoiled[batch - 1].len() - 1;
    spoiled[batch - 1][last] ^= 1;
    assert_eq!(
        check(&spoiled),
        (false, false),
        "a spoiled batch was accepted"
    );

    let ins: Vec<ProofInput<'_>> = proofs
        .iter()
        .zip(&commits)
        .map(|(p, c)| ProofInput {
            proof: p,
            commitments: c,
            extra: None,
        })
        .collect();
    let (c_ms, z_ms) = interleaved(
        rounds,
        || assert!(c.verify_multi(&proofs, &commits, 64, &extras)),
        || assert!(ours.verify_batch(&ins, 64).is_ok()),
    );
    let alone = |idle: Duration| {
        median(
            (0..rounds)
                .map(|_| {
                    std::thread::sleep(idle);
                    let t = Instant::now();
                    assert!(ours.verify_batch(&ins, 64).is_ok());
                    t.elapsed().as_secs_f64() * 1e3
                })
                .collect(),
        )
    };
    let (back_to_back, after_idle) = (alone(Duration::ZERO), alone(Duration::from_millis(30)));
    let lg = (64 * m).trailing_zeros() as usize - 1;
    let terms = 2 * 64 * m + 2 + batch * (4 + m + 2 * lg);
    println!(
        "| {m} | {batch} | {terms} | {c_ms:.3} | {z_ms:.3} | {:.1} | {:.2}x | {back_to_back:.3} | {after_idle:.3} |",
        z_ms * 1e3 / batch as f64,
        c_ms / z_ms
    );
}
