//! zkaccel runs on the caller's rayon pool: an MSM, an NTT and a Groth16
//! proof made inside a one-thread pool stay on that thread. Checked three
//! ways: the pool starts exactly one thread; while it works the process has
//! no threads other than the caller's and that one (no pool of the
//! library's own, Linux only); and afterwards rayon's global pool can still
//! be built, so nothing started it. The results are checked against
//! arkworks run in the same pool.
//!
//! Its own test binary (one test, one process): any other test in the
//! process could start the global pool first. Needs the feature `parallel`
//! (on by default): without it nothing runs on rayon.
#![cfg(feature = "parallel")]

use ark_bn254::{Bn254, Fr, G1Affine, G1Projective};
use ark_ec::{CurveGroup, VariableBaseMSM};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_snark::SNARK;
use ark_std::UniformRand;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use zkaccel_groth16::circuits::MimcChain;
use zkaccel_groth16::{backend, Groth16};
use zkaccel_ntt::NttDomain;

/// The process's threads (Linux: the entries of /proc/self/task).
fn process_threads() -> Option<usize> {
    std::fs::read_dir("/proc/self/task").ok().map(|d| d.count())
}

#[test]
fn msm_ntt_and_proof_stay_on_the_callers_one_thread_pool() {
    let before = process_threads();
    let started = Arc::new(AtomicUsize::new(0));
    let counter = started.clone();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .start_handler(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
        })
        .build()
        .unwrap();

    let during = pool.install(|| {
        assert_eq!(rayon::current_num_threads(), 1);
        let mut rng = ChaCha20Rng::seed_from_u64(7);

        // An MSM large enough for the parallel Pippenger paths.
        let n = 1 << 12;
        let bases: Vec<G1Affine> = (0..n).map(|_| G1Affine::rand(&mut rng)).collect();
        let scalars: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let ours = zkaccel_cpu::msm(&bases, &scalars).unwrap();
        let arkworks = G1Projective::msm(&bases, &scalars).unwrap();
        assert_eq!(ours.into_affine(), arkworks.into_affine(), "MSM differs");

        // An NTT large enough for the parallel four-step path.
        let coeffs: Vec<Fr> = (0..1 << 14).map(|_| Fr::rand(&mut rng)).collect();
        let ours = NttDomain::<Fr>::new(coeffs.len()).unwrap().fft(&coeffs);
        let arkworks = Radix2EvaluationDomain::<Fr>::new(coeffs.len())
            .unwrap()
            .fft(&coeffs);
        assert_eq!(ours, arkworks, "NTT differs");

        // A proof, byte-identical to stock ark-groth16's.
        let circuit = MimcChain::new(Fr::from(3u64), 340);
        let (pk, _vk) =
            ark_groth16::Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng)
                .unwrap();
        let ours = Groth16::<Bn254, backend::Cpu>::prove(
            &pk,
            circuit.clone(),
            &mut ChaCha20Rng::seed_from_u64(5),
        )
        .unwrap();
        let stock =
            ark_groth16::Groth16::<Bn254>::prove(&pk, circuit, &mut ChaCha20Rng::seed_from_u64(5))
                .unwrap();
        // Equal points serialise to equal bytes: the proofs are byte-identical.
        assert_eq!(ours, stock, "proof differs");
        process_threads()
    });

    assert_eq!(
        started.load(Ordering::SeqCst),
        1,
        "the one-thread pool started more than one thread"
    );
    match (before, during) {
        (Some(before), Some(during)) => assert_eq!(
            during,
            before + 1,
            "threads other than the caller's pool ran while zkaccel worked"
        ),
        _ => {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: the process thread count (no /proc/self/task on this system)"
            );
        }
    }
    rayon::ThreadPoolBuilder::new()
        .build_global()
        .expect("rayon's global pool was already started: something ran outside the caller's pool");
}
