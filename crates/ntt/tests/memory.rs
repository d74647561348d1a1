//! The NTT's working memory: `NttDomain::working_memory` bounds what a
//! transform really allocates (counted by a global allocator), including
//! the twiddle tables it builds on first use. One test, so nothing else in
//! this process allocates meanwhile.

use ark_bn254::Fr;
use ark_ff::{FftField, UniformRand};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use rand::SeedableRng;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use zkaccel_ntt::{Direction, Kernel, NttDomain};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), SeqCst) + layout.size();
            PEAK.fetch_max(now, SeqCst);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), SeqCst);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

#[test]
fn estimate_bounds_the_real_allocations() {
    let log_max: u32 = std::env::var("ZKACCEL_TEST_NTT_LOG_MAX").map_or(20, |s| s.parse().unwrap());
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(5);
    // Warm rayon's pool up (allocated on first use).
    let d = NttDomain::<Fr>::new(1 << 14).unwrap();
    let mut v: Vec<Fr> = (0..1 << 14).map(|_| Fr::rand(&mut rng)).collect();
    d.transform(&mut v, Direction::Forward, Kernel::Auto)
        .unwrap();
    for log_n in [1u32, 8, 12, 13, 16, 19, 20]
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
        // Forward then coset inverse, each on first use of its tables.
        for direction in [Direction::Forward, Direction::Inverse] {
            let mut v = data.clone();
            let before = LIVE.load(SeqCst);
            PEAK.store(before, SeqCst);
            d.transform(&mut v, direction, Kernel::Auto).unwrap();
            let peak = PEAK.load(SeqCst) - before;
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
    }
}
