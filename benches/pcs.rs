//! ark-poly-commit 0.6, unmodified, over `zkaccel::curves::bn254` and over
//! `ark_bn254`, in one run: Hyrax and multilinear KZG commit and open, on the
//! same key (set up once with arkworks' types, moved to zkaccel's as bytes),
//! polynomial and RNG. Variables: ZKACCEL_BENCH_PCS_VARS (comma-separated,
//! default "12,16"; "12,16,20" for the full set, which takes about half an
//! hour on 2 cores). `cargo bench --bench pcs`; `compare pcs` gives
//! interleaved medians and checks the outputs byte for byte.

use ark_bn254::Fr;
use ark_ec::pairing::Pairing;
use ark_ec::AffineRepr;
use ark_ff::UniformRand;
use ark_poly::{DenseMultilinearExtension, MultilinearExtension};
use ark_poly_commit::hyrax::{HyraxCommitterKey, HyraxPC};
use ark_poly_commit::multilinear_pc::{data_structures::CommitterKey, MultilinearPC};
use ark_poly_commit::{LabeledPolynomial, PolynomialCommitment};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use zkaccel::curves::bn254;

use pcs_support::{convert, sponge};
use zkaccel_testkit::pcs as pcs_support;

type Poly = DenseMultilinearExtension<Fr>;

fn vars() -> Vec<usize> {
    std::env::var("ZKACCEL_BENCH_PCS_VARS")
        .unwrap_or_else(|_| "12,16".into())
        .split(',')
        .filter_map(|v| v.trim().parse().ok())
        .collect()
}

fn hyrax<G: AffineRepr<ScalarField = Fr>>(
    c: &mut Criterion,
    who: &str,
    nv: usize,
    ck: &HyraxCommitterKey<G>,
    poly: &LabeledPolynomial<Fr, Poly>,
    point: &Vec<Fr>,
) {
    let mut group = c.benchmark_group("pcs/bn254/hyrax");
    group.sample_size(10);
    group.bench_function(BenchmarkId::new(format!("commit/{who}"), nv), |b| {
        b.iter(|| {
            let mut r = ChaCha20Rng::seed_from_u64(7);
            black_box(HyraxPC::<G, Poly>::commit(ck, [poly], Some(&mut r)).unwrap())
        })
    });
    let mut r = ChaCha20Rng::seed_from_u64(7);
    let (com, st) = HyraxPC::<G, Poly>::commit(ck, [poly], Some(&mut r)).unwrap();
    group.bench_function(BenchmarkId::new(format!("open/{who}"), nv), |b| {
        b.iter(|| {
            let mut r = ChaCha20Rng::seed_from_u64(8);
            black_box(
                HyraxPC::<G, Poly>::open(ck, [poly], &com, point, &mut sponge(), &st, Some(&mut r))
                    .unwrap(),
            )
        })
    });
    group.finish();
}

fn mlkzg<E: Pairing<ScalarField = Fr>>(
    c: &mut Criterion,
    who: &str,
    ck: &CommitterKey<E>,
    poly: &Poly,
    point: &[Fr],
) {
    let mut group = c.benchmark_group("pcs/bn254/mlkzg");
    group.sample_size(10);
    group.bench_function(BenchmarkId::new(format!("commit/{who}"), ck.nv), |b| {
        b.iter(|| black_box(MultilinearPC::<E>::commit(ck, poly)))
    });
    group.bench_function(BenchmarkId::new(format!("open/{who}"), ck.nv), |b| {
        b.iter(|| black_box(MultilinearPC::<E>::open(ck, poly, point)))
    });
    group.finish();
}

fn bench_pcs(c: &mut Criterion) {
    for nv in vars() {
        let mut rng = ChaCha20Rng::seed_from_u64(nv as u64);
        let poly = Poly::rand(nv, &mut rng);
        let point: Vec<Fr> = (0..nv).map(|_| Fr::rand(&mut rng)).collect();
        if nv % 2 == 0 {
            let pp = HyraxPC::<ark_bn254::G1Affine, Poly>::setup(1, Some(nv), &mut rng).unwrap();
            let ck = HyraxPC::<ark_bn254::G1Affine, Poly>::trim(&pp, 1, 1, None)
                .unwrap()
                .0;
            let ck_z: HyraxCommitterKey<bn254::G1Affine> = convert(&ck).unwrap();
            let labeled = LabeledPolynomial::new("p".into(), poly.clone(), None, None);
            hyrax(c, "ark_bn254", nv, &ck, &labeled, &point);
            hyrax(c, "zkaccel-curves", nv, &ck_z, &labeled, &point);
        }
        let params = MultilinearPC::<ark_bn254::Bn254>::setup(nv, &mut rng);
        let ck = MultilinearPC::<ark_bn254::Bn254>::trim(&params, nv).0;
        let ck_z: CommitterKey<bn254::Bn254> = convert(&ck).unwrap();
        mlkzg(c, "ark_bn254", &ck, &poly, &point);
        mlkzg(c, "zkaccel-curves", &ck_z, &poly, &point);
    }
}

criterion_group!(benches, bench_pcs);
criterion_main!(benches);
