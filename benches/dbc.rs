//! Time to compute one chain (or recoding) per method, 128..512-bit inputs.
//!
//! Each iteration takes the next of 64 fixed random inputs (seeded), so the
//! figure is an average over inputs, as in the paper's Table 5. Run with
//! `cargo bench --bench dbc`; `dbc stats` prints the same averages with costs.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use zkaccel::dbc::{stats::random_scalar, Dbc, Recoding};

fn bench_chains(c: &mut Criterion) {
    let mut group = c.benchmark_group("dbc");
    for bits in [128u32, 256, 384, 512] {
        let mut rng = ChaCha20Rng::seed_from_u64(bits as u64);
        let inputs: Vec<Vec<u64>> = (0..64).map(|_| random_scalar(&mut rng, bits)).collect();
        let mut run = |name: &str, f: &dyn Fn(&[u64]) -> usize| {
            group.bench_with_input(BenchmarkId::new(name, bits), &inputs, |b, inputs| {
                let mut i = 0;
                b.iter(|| {
                    i = (i + 1) % inputs.len();
                    black_box(f(black_box(&inputs[i])))
                })
            });
        };
        run("optimal", &|n| Dbc::optimal(n).unwrap().hamming_weight());
        run("eom", &|n| Dbc::eom(n).unwrap().hamming_weight());
        for delta in [1, 2, 3] {
            run(&format!("suboptimal-{delta}"), &|n| {
                Dbc::suboptimal(n, delta).unwrap().hamming_weight()
            });
        }
        run("naf", &|n| Recoding::naf(n).unwrap().hamming_weight());
        run("wnaf-4", &|n| {
            Recoding::wnaf(n, 4).unwrap().hamming_weight()
        });
    }
    group.finish();
}

criterion_group!(benches, bench_chains);
criterion_main!(benches);
