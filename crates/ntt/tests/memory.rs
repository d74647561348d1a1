//! The NTT's working memory: `NttDomain::working_memory` bounds what a
//! transform really allocates (counted by a global allocator), including
//! the twiddle tables it builds on first use. One test, so nothing else in
//! this process allocates meanwhile.

use ark_bn254::Fr;
use ark_ff::{FftField, UniformRand};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use rand::SeedableRng;
use std::io::Write;
use zkaccel_ntt::{Direction, Kernel, NttDomain, NttError};

use zkaccel_testkit::alloc::peak_during;

#[global_allocator]
static ALLOC: zkaccel_testkit::alloc::Counting = zkaccel_testkit::alloc::Counting;

#[test]
fn estimate_bounds_the_real_allocations() {
    let log_max: u32 = std::env::var("ZKACCEL_TEST_NTT_LOG_MAX").map_or(20, |s| s.parse().unwrap());
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(5);
    // Warm rayon's pool up (allocated on first use).
    let d = NttDomain::<Fr>::new(1 << 14).unwrap();
    let mut v: Vec<Fr> = (0..1 << 14).map(|_| Fr::rand(&mut rng)).collect();
    d.transform(&mut v, Direction::Forward, Kernel::Auto)
        .unwrap();
    let mut skipped_avx2 = false;
    // Not 2^14: the warm-up above built its tables, so nothing would be
    // allocated on the scalar paths.
    for log_n in [1u32, 8, 12, 13, 15, 16, 18, 19, 20]
        .into_iter()
        .filter(|&l| l <= log_max)
    {
        let n = 1usize << log_n;
        let data: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let want = Radix2EvaluationDomain::<Fr>::new(n)
            .unwrap()
            .get_coset(Fr::GENERATOR)
            .unwrap()
            .ifft(&data);
        let d = NttDomain::<Fr>::new(n)
            .unwrap()
            .get_coset(Fr::GENERATOR)
            .unwrap();
        let estimate = d.working_memory();
        // `Kernel::Lean` first, on tables not yet built: within its own
        // bound, which leaves out the AVX2 lane copy (72 bytes per element)
        // and lane table. Under ZKACCEL_KERNEL=avx2 (the CI runs this test
        // so too) that is what a CPU with AVX2 and no IFMA runs.
        let lean = d.working_memory_lean();
        assert!(
            lean <= estimate,
            "2^{log_n}: lean bound {lean} > {estimate}"
        );
        for direction in [Direction::Forward, Direction::Inverse] {
            let mut v = data.clone();
            let ((), peak) = peak_during(|| d.transform(&mut v, direction, Kernel::Lean).unwrap());
            eprintln!(
                "2^{log_n} {direction:?} (Lean): allocated at most {peak} bytes, bound {lean}"
            );
            assert!(
                peak <= lean,
                "2^{log_n} {direction:?} (Lean): {peak} > {lean}"
            );
            // Allocations are counted at all (the allocator is installed):
            // a first transform allocates at least its twiddles or scratch.
            assert!(peak > 0, "2^{log_n} {direction:?}: nothing counted");
            if direction == Direction::Inverse {
                assert_eq!(v, want, "2^{log_n}: the Lean transform itself is right");
            }
        }
        // Forward then coset inverse (the scalar tables Lean built are
        // reused; the lane paths' are built here).
        for direction in [Direction::Forward, Direction::Inverse] {
            let mut v = data.clone();
            let ((), peak) = peak_during(|| d.transform(&mut v, direction, Kernel::Auto).unwrap());
            eprintln!(
                "2^{log_n} {direction:?}: allocated at most {peak} bytes, estimate {estimate}"
            );
            assert!(
                peak <= estimate,
                "2^{log_n} {direction:?}: {peak} > {estimate}"
            );
            if direction == Direction::Inverse {
                assert_eq!(v, want, "2^{log_n}: the transform itself is right");
            }
        }
        // The AVX2 lane transform, which `Auto` takes on CPUs with AVX2 but
        // without IFMA, asked for by name (the estimate counts it wherever
        // it can run).
        for direction in [Direction::Forward, Direction::Inverse] {
            let mut v = data.clone();
            let (r, peak) = peak_during(|| d.transform(&mut v, direction, Kernel::Avx2));
            match r {
                Err(NttError::KernelUnavailable(_)) => {
                    skipped_avx2 = true;
                    break;
                }
                r => r.unwrap(),
            }
            assert!(
                peak <= estimate,
                "2^{log_n} {direction:?} (AVX2): {peak} > {estimate}"
            );
            if direction == Direction::Inverse {
                assert_eq!(v, want, "2^{log_n}: the AVX2 transform itself is right");
            }
        }
    }
    if skipped_avx2 {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: the AVX2 transform's allocations (this CPU lacks AVX2, BMI2 or ADX, or ZKACCEL_KERNEL caps it)"
        );
    }
}
