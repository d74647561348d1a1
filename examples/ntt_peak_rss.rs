//! Peak memory of one transform: allocates a random vector of 2^N BN254
//! scalars (default 22), transforms it forward, coset forward and inverse,
//! and prints the process's peak RSS (VmHWM) against the vector's size.
//! `cargo run --release --example ntt_peak_rss -- 22`

use ark_bn254::Fr;
use ark_ff::{FftField, UniformRand};
use ark_poly::EvaluationDomain;
use rand::SeedableRng;
use zkaccel_ntt::NttDomain;

fn vm_hwm_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let log: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(22);
    let n = 1usize << log;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut v: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let before = vm_hwm_kib().unwrap_or(0);
    let d = NttDomain::<Fr>::new(n).expect("size within two-adicity");
    d.fft_in_place(&mut v);
    d.get_coset(Fr::GENERATOR).unwrap().fft_in_place(&mut v);
    d.ifft_in_place(&mut v);
    let after = vm_hwm_kib().unwrap_or(0);
    let data = (n * std::mem::size_of::<Fr>()) as f64 / (1 << 20) as f64;
    println!(
        "2^{log}: vector {data:.1} MiB; peak RSS {:.1} MiB before the transforms, {:.1} MiB after (extra {:.1} MiB)",
        before as f64 / 1024.0,
        after as f64 / 1024.0,
        (after - before) as f64 / 1024.0
    );
    std::hint::black_box(&v);
}
