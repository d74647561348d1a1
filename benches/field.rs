//! zkaccel-ff's field kernels against arkworks' operators, one operation at
//! a time: BN254 Fq (four limbs) and BLS12-381 Fq (six limbs), on 1,024
//! random elements, four independent chains (throughput, as in the MSM).
//! `cargo bench --bench field`; the MSM-level effect, interleaved with
//! arkworks, is `compare msm --curve bls12-381-g1 --field-ops arkworks,portable,adx`.
//!
//! The `adx` cells need BMI2/ADX (under `ZKACCEL_KERNEL=portable`, or on
//! CPUs without them, they are skipped with a line on stderr).
//!
//! In this isolated loop arkworks' own addition and subtraction measure
//! faster than the portable branch-free ones (their branches predict, or
//! compile to selects, here); inside the MSM the portable ones measured
//! faster (docs/msm.md), which is why the MSM uses them.

use criterion::{criterion_group, criterion_main, Criterion};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use std::io::Write;
use zkaccel_ff::{Adx, MontField};

/// `f` applied along four independent chains over `xs`.
fn chains<F: Copy>(xs: &[F], mut f: impl FnMut(&F, &F) -> F) -> [F; 4] {
    let mut acc = [xs[0], xs[1], xs[2], xs[3]];
    for x in xs {
        for a in acc.iter_mut() {
            *a = f(a, x);
        }
    }
    acc
}

fn field<F: MontField>(c: &mut Criterion, name: &str) {
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let xs: Vec<F> = (0..1024).map(|_| F::rand(&mut rng)).collect();
    let mut group = c.benchmark_group(format!("field/{name}"));
    group.bench_function("mul arkworks", |b| {
        b.iter(|| black_box(chains(black_box(&xs), |a, x| *a * x)))
    });
    group.bench_function("mul portable", |b| {
        b.iter(|| black_box(chains(black_box(&xs), |a, x| a.mul_fast(x))))
    });
    group.bench_function("add+sub arkworks", |b| {
        b.iter(|| black_box(chains(black_box(&xs), |a, x| (*a + x) - xs[7])))
    });
    group.bench_function("add+sub portable", |b| {
        b.iter(|| {
            black_box(chains(black_box(&xs), |a, x| {
                a.add_fast(x).sub_fast(&xs[7])
            }))
        })
    });
    match Adx::detect() {
        Some(adx) => {
            group.bench_function("mul adx", |b| {
                b.iter(|| black_box(chains(black_box(&xs), |a, x| adx.mul(a, x))))
            });
            group.bench_function("add+sub adx", |b| {
                b.iter(|| {
                    black_box(chains(black_box(&xs), |a, x| {
                        adx.sub(&adx.add(a, x), &xs[7])
                    }))
                })
            });
        }
        None => {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: the adx cells ({})",
                zkaccel_ff::kernel_summary()
            );
        }
    }
    group.finish();
}

fn bench_field(c: &mut Criterion) {
    field::<ark_bn254::Fq>(c, "bn254-fq");
    field::<ark_bls12_381::Fq>(c, "bls12-381-fq");
}

criterion_group!(benches, bench_field);
criterion_main!(benches);
