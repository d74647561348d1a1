//! Many proofs at once: 16 proofs from 4 threads (on top of rayon's pool)
//! sharing one `PreparedProvingKey`, one plain key and one backend. Every
//! proof must verify and be byte-identical to the proof made sequentially
//! with the same RNG seed (and to stock ark-groth16's).
//!
//! `ZKACCEL_TEST_CONCURRENT_PROOFS` (default 16) and
//! `ZKACCEL_TEST_CONCURRENT_THREADS` (default 4) scale it.

use ark_bn254::{Bn254, Fr};
use ark_groth16::Proof;
use ark_serialize::CanonicalSerialize;
use ark_snark::SNARK;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::sync::Mutex;
use zkaccel_groth16::circuits::MimcChain;
use zkaccel_groth16::{backend, Groth16, PreparedProvingKey};

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).map_or(default, |s| s.parse().expect("a number"))
}

fn bytes(p: &Proof<Bn254>) -> Vec<u8> {
    let mut v = Vec::new();
    p.serialize_compressed(&mut v).unwrap();
    v
}

/// Proof `i`: its own witness (`x0 = i + 1`) and its own prover seed.
fn circuit(i: usize) -> MimcChain<Fr> {
    MimcChain::new(Fr::from(i as u64 + 1), 340)
}

fn seed(i: usize) -> u64 {
    1000 + i as u64
}

#[test]
fn concurrent_proofs_equal_sequential_ones() {
    let proofs = env("ZKACCEL_TEST_CONCURRENT_PROOFS", 16);
    let threads = env("ZKACCEL_TEST_CONCURRENT_THREADS", 4).max(2);
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(circuit(0), &mut rng).unwrap();
    let pvk = Groth16::<Bn254>::process_vk(&vk).unwrap();
    let prepared = PreparedProvingKey::new(pk.clone());

    // Sequential reference: stock ark-groth16 for every proof.
    let sequential: Vec<Vec<u8>> = (0..proofs)
        .map(|i| {
            let mut r = ChaCha20Rng::seed_from_u64(seed(i));
            bytes(&ark_groth16::Groth16::<Bn254>::prove(&pk, circuit(i), &mut r).unwrap())
        })
        .collect();

    // Concurrent: threads take proof indices from a shared counter; even
    // indices use the prepared key, odd ones the plain key.
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<Option<Proof<Bn254>>>> = Mutex::new(vec![None; proofs]);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    if *n == proofs {
                        break;
                    }
                    *n += 1;
                    *n - 1
                };
                let mut r = ChaCha20Rng::seed_from_u64(seed(i));
                let proof = if i % 2 == 0 {
                    Groth16::<Bn254, backend::Auto>::prove_prepared(&prepared, circuit(i), &mut r)
                        .map(|(p, _)| p)
                } else {
                    Groth16::<Bn254, backend::Auto>::prove(&pk, circuit(i), &mut r)
                };
                results.lock().unwrap()[i] = Some(proof.expect("proof"));
            });
        }
    });
    let results = results.into_inner().unwrap();
    for (i, proof) in results.into_iter().enumerate() {
        let proof = proof.expect("every index was proved");
        let public = circuit(i).public_inputs();
        assert!(
            Groth16::<Bn254>::verify_with_processed_vk(&pvk, &public, &proof).unwrap(),
            "proof {i} verifies"
        );
        assert_eq!(
            bytes(&proof),
            sequential[i],
            "proof {i} equals the sequential one"
        );
    }
    // Different witnesses and seeds give different proofs: the comparison
    // above could not pass by accident.
    assert_ne!(sequential[0], sequential[1]);
}
