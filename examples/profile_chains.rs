//! Computes chains of many random 256-bit inputs in a loop, for profilers:
//! `perf record target/release/examples/profile_chains {optimal|eom|sub}`.
use rand::SeedableRng;
use zkaccel_dbc::{stats::random_scalar, Dbc};
fn main() {
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
    let method = std::env::args().nth(1).unwrap_or_else(|| "optimal".into());
    let mut total = 0usize;
    for _ in 0..20000 {
        let n = random_scalar(&mut rng, 256);
        let c = match method.as_str() {
            "eom" => Dbc::eom(&n).unwrap(),
            "sub" => Dbc::suboptimal(&n, 1).unwrap(),
            _ => Dbc::optimal(&n).unwrap(),
        };
        total += c.hamming_weight();
    }
    println!("{total}");
}
