//! The process-wide backend: `Cuda` is refused, with the reason, where no GPU
//! can be used (this build or this machine) and leaves the backend as it
//! was; where a GPU is usable, BN254 G1 MSMs through arkworks' trait run on
//! it and equal arkworks' results. `Cpu` always works. One test function:
//! the backend is global to the process.

use ark_ec::{CurveGroup, VariableBaseMSM};
use ark_ff::{PrimeField, UniformRand, Zero};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::io::Write;
use zkaccel_curves::backend::backend;
use zkaccel_curves::{bn254, outer_slice, set_backend, Backend};

fn check(n: usize, seed: u64) {
    let mut r = ChaCha20Rng::seed_from_u64(seed);
    let g: Vec<ark_bn254::G1Projective> = (0..n)
        .map(|_| ark_bn254::G1Projective::rand(&mut r))
        .collect();
    let mut b = ark_bn254::G1Projective::normalize_batch(&g);
    let mut k: Vec<ark_bn254::Fr> = (0..n).map(|_| ark_bn254::Fr::rand(&mut r)).collect();
    if n > 4 {
        k[0] = ark_bn254::Fr::zero();
        k[1] = -ark_bn254::Fr::from(1u64);
        b[2] = ark_bn254::G1Affine::identity();
        b[3] = -b[4];
    }
    let expect = ark_bn254::G1Projective::msm(&b, &k).unwrap();
    assert_eq!(
        bn254::G1Projective::msm(outer_slice(&b), &k).unwrap().0,
        expect
    );
    let ints: Vec<_> = k.iter().map(|s| s.into_bigint()).collect();
    assert_eq!(
        bn254::G1Projective::msm_bigint(outer_slice(&b), &ints).0,
        expect
    );
}

#[test]
fn backend_choice() {
    assert_eq!(backend(), Backend::Auto);
    check(3000, 1);
    match set_backend(Backend::Cuda) {
        Err(why) => {
            assert_eq!(
                backend(),
                Backend::Auto,
                "a refused backend changes nothing"
            );
            assert!(!why.to_string().is_empty());
            // To the stderr handle: cargo shows it even when the test passes.
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: the GPU part of backend_choice (set_backend(Cuda) refused: {why})"
            );
        }
        Ok(()) => {
            assert_eq!(backend(), Backend::Cuda);
            for (n, seed) in [(1usize, 2u64), (5000, 3), (1 << 16, 4)] {
                check(n, seed);
            }
            println!("GPU part ran: BN254 G1 MSMs on the GPU equal arkworks'");
        }
    }
    set_backend(Backend::Cpu).unwrap();
    assert_eq!(backend(), Backend::Cpu);
    check(3000, 5);
}
