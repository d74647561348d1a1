//! Working memory of the MSM: the estimate `working_memory` bounds what the
//! `Auto` MSM really allocates (counted by a global allocator), the chunked
//! path gives the one-shot result, and a budget forces chunks or a clear
//! `OutOfMemory` error instead of an abort.
//!
//! The budget and the allocation counter are process-wide, so every test
//! here takes the same lock (this file is its own test process).

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::{CurveGroup, VariableBaseMSM};
use ark_ff::{UniformRand, Zero};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::sync::Mutex;
use zkaccel_cpu::msm::{chunk_for_budget, set_memory_budget, working_memory, MIN_CHUNK_TERMS};
use zkaccel_cpu::{msm, msm_chunked, MsmError};

use zkaccel_testkit::alloc::peak_during;

#[global_allocator]
static ALLOC: zkaccel_testkit::alloc::Counting = zkaccel_testkit::alloc::Counting;

static LOCK: Mutex<()> = Mutex::new(());

fn input(n: usize, seed: u64) -> (Vec<G1Affine>, Vec<Fr>) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let g = G1Projective::rand(&mut rng);
    // Multiples of one point are cheap to make; the edge cases go in too.
    let mut bases: Vec<G1Projective> = (0..n).map(|i| g * Fr::from(i as u64 + 3)).collect();
    let mut scalars: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    if n > 8 {
        bases[1] = G1Projective::zero();
        bases[2] = -bases[3];
        bases[4] = bases[5];
        scalars[6] = Fr::zero();
        scalars[7] = Fr::from(1u64);
        scalars[8] = -Fr::from(1u64);
    }
    (G1Projective::normalize_batch(&bases), scalars)
}

#[test]
fn estimate_bounds_the_real_allocations() {
    let _g = LOCK.lock().unwrap();
    for log_n in [4u32, 10, 14, 16] {
        let n = 1usize << log_n;
        let (bases, scalars) = input(n, log_n as u64);
        let want = G1Projective::msm(&bases, &scalars).unwrap();
        // Warm up first: rayon's pool is allocated on first use.
        assert_eq!(msm(&bases, &scalars).unwrap(), want, "2^{log_n}");
        let (got, peak) = peak_during(|| msm(&bases, &scalars).unwrap());
        assert_eq!(got, want, "2^{log_n}");
        let estimate = working_memory::<ark_bn254::g1::Config>(n, 254);
        eprintln!("2^{log_n}: allocated at most {peak} bytes, estimate {estimate}");
        assert!(
            peak <= estimate,
            "2^{log_n}: {peak} allocated > {estimate} estimated"
        );
        // Not uselessly loose either (the filter copies are only made when
        // some scalar is 0 or 1, as here).
        if log_n >= 10 {
            assert!(
                peak * 3 >= estimate,
                "2^{log_n}: estimate {estimate} vs {peak}"
            );
        }
    }
}

#[test]
fn chunked_equals_one_shot() {
    let _g = LOCK.lock().unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    for n in [0usize, 1, 2, 33, 1000, 5000] {
        let (bases, scalars) = input(n, n as u64);
        let one_shot = msm(&bases, &scalars).unwrap();
        assert_eq!(one_shot, G1Projective::msm(&bases, &scalars).unwrap());
        for chunk in [
            0usize,
            1,
            7,
            n.saturating_sub(1),
            n,
            n + 1,
            rng.gen_range(1..=n.max(1)),
        ] {
            assert_eq!(
                msm_chunked(&bases, &scalars, chunk).unwrap(),
                one_shot,
                "n {n} chunk {chunk}"
            );
        }
    }
    let (bases, scalars) = input(10, 1);
    assert!(matches!(
        msm_chunked(&bases, &scalars[..9], 4),
        Err(MsmError::LengthMismatch { .. })
    ));
}

#[test]
fn budget_forces_chunks_or_a_clear_error() {
    let _g = LOCK.lock().unwrap();
    type G1 = ark_bn254::g1::Config;
    let n = 1 << 14;
    let (bases, scalars) = input(n, 77);
    let want = G1Projective::msm(&bases, &scalars).unwrap();

    // The planner: everything when it fits, else a fitting chunk, else an error.
    let full = working_memory::<G1>(n, 254);
    assert_eq!(chunk_for_budget::<G1>(n, 254, Some(full)).unwrap(), n);
    let budget = full / 3;
    let chunk = chunk_for_budget::<G1>(n, 254, Some(budget)).unwrap();
    assert!(chunk < n && chunk >= MIN_CHUNK_TERMS, "chunk {chunk}");
    assert!(working_memory::<G1>(chunk, 254) <= budget);
    let tiny = working_memory::<G1>(MIN_CHUNK_TERMS, 254) - 1;
    assert!(matches!(
        chunk_for_budget::<G1>(n, 254, Some(tiny)),
        Err(MsmError::OutOfMemory { .. })
    ));

    // Auto under a budget: chunks, the same result, and less memory.
    set_memory_budget(Some(budget));
    let (got, peak) = peak_during(|| msm(&bases, &scalars).unwrap());
    assert_eq!(got, want);
    assert!(peak <= budget, "peak {peak} over the budget {budget}");
    let ints: Vec<_> = scalars
        .iter()
        .map(|k| ark_ff::PrimeField::into_bigint(*k))
        .collect();
    assert_eq!(
        zkaccel_cpu::msm_bigint_with(&bases, &ints, zkaccel_cpu::MsmAlgorithm::Auto).unwrap(),
        want
    );

    // A budget nothing fits in: an error that says what and how much.
    set_memory_budget(Some(tiny));
    let err = msm(&bases, &scalars).unwrap_err();
    set_memory_budget(None);
    let text = err.to_string();
    assert!(
        matches!(err, MsmError::OutOfMemory { terms, .. } if terms == n),
        "{err:?}"
    );
    assert!(
        text.contains("budget") && text.contains(&n.to_string()),
        "{text}"
    );
    // Small MSMs still run under that budget only if they fit.
    assert_eq!(msm(&bases, &scalars).unwrap(), want);
}
