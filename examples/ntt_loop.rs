//! Repeated BN254 Fr transforms of 2^k random values with one kernel, for
//! profiling (`perf record`) without a peer's work in the samples:
//! `ntt_loop {auto|ifma|avx2|adx|portable|generic} k [iterations]`; the
//! first transform (which builds the size's tables) is timed apart.
use ark_ff::UniformRand;
use ark_poly::EvaluationDomain;
use rand::SeedableRng;
use zkaccel::ntt::{Direction, Kernel, NttDomain};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kernel = match args.get(1).map(String::as_str) {
        Some("ifma") => Kernel::Ifma,
        Some("avx2") => Kernel::Avx2,
        Some("adx") => Kernel::Adx,
        Some("portable") => Kernel::Portable,
        Some("generic") => Kernel::Generic,
        _ => Kernel::Auto,
    };
    let k: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(20);
    let iterations: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(20);
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
    let domain =
        NttDomain::<ark_bn254::Fr>::new(1 << k).expect("a power of two within the two-adicity");
    let mut data: Vec<ark_bn254::Fr> = (0..1usize << k)
        .map(|_| ark_bn254::Fr::rand(&mut rng))
        .collect();
    let mut run = || {
        domain
            .transform(&mut data, Direction::Forward, kernel)
            .expect("the kernel runs on this CPU")
    };
    // The first transform builds the size's tables (cached for the
    // process): what a one-shot command pays once per size and direction.
    let start = std::time::Instant::now();
    run();
    let first = start.elapsed().as_secs_f64() * 1e3;
    let start = std::time::Instant::now();
    for _ in 0..iterations {
        run();
    }
    let per = start.elapsed().as_secs_f64() * 1e3 / iterations as f64;
    println!(
        "{kernel:?} 2^{k}: {per:.2} ms per transform ({iterations} iterations), the first {first:.2} ms, data[1] = {}",
        data[1]
    );
}
