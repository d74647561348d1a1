//! zkaccel runs on the caller's rayon pool: an MSM, an NTT and a Groth16
//! proof made inside a one-thread pool stay on that thread. Checked three
//! ways: the pool starts exactly one thread; while zkaccel works no thread
//! appears besides the caller's and that one (no pool of the library's own,
//! Linux only); and afterwards rayon's global pool can still be built, so
//! nothing started it. The results are checked against arkworks run in the
//! same pool, before zkaccel: arkworks 0.6's MSM builds a short-lived thread
//! pool of its own for every call (`msm_bigint_wnaf`), whose threads may
//! still be exiting a moment later on a loaded machine, so the threads are
//! compared by id against those present once arkworks has finished.
//!
//! The test runs in a child process of its own (`in_own_process!`): any
//! other test in the process could start the global pool first. Needs the
//! feature `parallel` (on by default): without it nothing runs on rayon.

use ark_bn254::{Bn254, Fr, G1Affine, G1Projective};
use ark_ec::{CurveGroup, VariableBaseMSM};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_snark::SNARK;
use ark_std::UniformRand;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::collections::BTreeSet;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use zkaccel_groth16::circuits::MimcChain;
use zkaccel_groth16::{backend, Groth16};
use zkaccel_ntt::NttDomain;

/// The process's threads by id (Linux: the entries of /proc/self/task).
fn process_threads() -> Option<BTreeSet<String>> {
    let dir = std::fs::read_dir("/proc/self/task").ok()?;
    Some(
        dir.flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
    )
}

#[test]
fn msm_ntt_and_proof_stay_on_the_callers_one_thread_pool() {
    in_own_process!(msm_ntt_and_proof_stay_on_the_callers_one_thread_pool);
    let started = Arc::new(AtomicUsize::new(0));
    let counter = started.clone();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .start_handler(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
        })
        .build()
        .unwrap();

    let (idle, during) = pool.install(|| {
        assert_eq!(rayon::current_num_threads(), 1);
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        // An MSM large enough for the parallel Pippenger paths, an NTT
        // large enough for the parallel four-step path, and a proof.
        let n = 1 << 12;
        let bases: Vec<G1Affine> = (0..n).map(|_| G1Affine::rand(&mut rng)).collect();
        let scalars: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let coeffs: Vec<Fr> = (0..1 << 14).map(|_| Fr::rand(&mut rng)).collect();
        let circuit = MimcChain::new(Fr::from(3u64), 340);
        let (pk, _vk) =
            ark_groth16::Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng)
                .unwrap();

        // arkworks first (see the module docs).
        let msm_ark = G1Projective::msm(&bases, &scalars).unwrap();
        let ntt_ark = Radix2EvaluationDomain::<Fr>::new(coeffs.len())
            .unwrap()
            .fft(&coeffs);
        let stock = ark_groth16::Groth16::<Bn254>::prove(
            &pk,
            circuit.clone(),
            &mut ChaCha20Rng::seed_from_u64(5),
        )
        .unwrap();

        let idle = process_threads();
        let msm = zkaccel_cpu::msm(&bases, &scalars).unwrap();
        let ntt = NttDomain::<Fr>::new(coeffs.len()).unwrap().fft(&coeffs);
        let proof =
            Groth16::<Bn254, backend::Cpu>::prove(&pk, circuit, &mut ChaCha20Rng::seed_from_u64(5))
                .unwrap();
        let during = process_threads();

        assert_eq!(msm.into_affine(), msm_ark.into_affine(), "MSM differs");
        assert_eq!(ntt, ntt_ark, "NTT differs");
        // Equal points serialise to equal bytes: the proofs are byte-identical.
        assert_eq!(proof, stock, "proof differs");
        (idle, during)
    });

    assert_eq!(
        started.load(Ordering::SeqCst),
        1,
        "the one-thread pool started more than one thread"
    );
    match (idle, during) {
        (Some(idle), Some(during)) => {
            let new: Vec<_> = during.difference(&idle).collect();
            assert!(
                new.is_empty(),
                "threads {new:?} appeared while zkaccel worked (besides the caller's pool)"
            );
        }
        _ => {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: the process's threads (no /proc/self/task on this system)"
            );
        }
    }
    rayon::ThreadPoolBuilder::new()
        .build_global()
        .expect("rayon's global pool was already started: something ran outside the caller's pool");
}
