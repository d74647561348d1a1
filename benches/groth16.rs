//! Groth16 proving on BN254: stock ark-groth16, ark-groth16 with zkaccel's
//! `NttReduction` (over `ark_bn254` and over `zkaccel::curves::bn254`, where
//! every MSM of the unmodified prover runs on zkaccel), and zkaccel's
//! prover, on the same key and RNG seed, in one run. Circuits: SHA-256 of a 2-block message (about 83k constraints,
//! domain 2^17) and a MiMC-style hash chain filling 2^ZKACCEL_BENCH_G16_LOG
//! (default 16). `cargo bench --bench groth16`; the `prove` example gives
//! interleaved medians, the time split and the proof comparison.

use ark_bn254::{Bn254, Fr};
use ark_relations::gr1cs::ConstraintSynthesizer;
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use ark_snark::SNARK;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use zkaccel::groth16::circuits::{MimcChain, Sha256Circuit};
use zkaccel::groth16::{backend, Groth16, NttReduction};

fn bench_circuit<C>(c: &mut Criterion, label: &str, circuit: C)
where
    C: ConstraintSynthesizer<Fr> + Clone,
{
    let (pk, _) = ark_groth16::Groth16::<Bn254>::circuit_specific_setup(
        circuit.clone(),
        &mut ChaCha20Rng::seed_from_u64(0),
    )
    .unwrap();
    let mut group = c.benchmark_group("groth16/bn254");
    group.sample_size(10);
    group.bench_function(BenchmarkId::new("ark-groth16", label), |b| {
        b.iter(|| {
            let mut rng = ChaCha20Rng::seed_from_u64(1);
            black_box(ark_groth16::Groth16::<Bn254>::prove(&pk, circuit.clone(), &mut rng).unwrap())
        })
    });
    group.bench_function(BenchmarkId::new("ark-groth16+NttReduction", label), |b| {
        b.iter(|| {
            let mut rng = ChaCha20Rng::seed_from_u64(1);
            black_box(
                ark_groth16::Groth16::<Bn254, NttReduction>::prove(&pk, circuit.clone(), &mut rng)
                    .unwrap(),
            )
        })
    });
    // Stock ark-groth16 over zkaccel's curve types: the same key, moved as
    // bytes (the encodings are identical).
    let mut bytes = Vec::new();
    pk.serialize_uncompressed(&mut bytes).unwrap();
    let pk_z =
        ark_groth16::ProvingKey::<zkaccel::curves::bn254::Bn254>::deserialize_uncompressed_unchecked(
            &bytes[..],
        )
        .unwrap();
    group.bench_function(
        BenchmarkId::new("ark-groth16+NttReduction over zkaccel-curves", label),
        |b| {
            b.iter(|| {
                let mut rng = ChaCha20Rng::seed_from_u64(1);
                black_box(
                    ark_groth16::Groth16::<zkaccel::curves::bn254::Bn254, NttReduction>::prove(
                        &pk_z,
                        circuit.clone(),
                        &mut rng,
                    )
                    .unwrap(),
                )
            })
        },
    );
    group.bench_function(BenchmarkId::new("zkaccel", label), |b| {
        b.iter(|| {
            let mut rng = ChaCha20Rng::seed_from_u64(1);
            black_box(
                Groth16::<Bn254, backend::Cpu>::prove(&pk, circuit.clone(), &mut rng).unwrap(),
            )
        })
    });
    group.finish();
}

fn bench_groth16(c: &mut Criterion) {
    bench_circuit(c, "sha256-2-blocks", Sha256Circuit::<Fr>::new(2, 1));
    let log: u32 = std::env::var("ZKACCEL_BENCH_G16_LOG")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16);
    bench_circuit(
        c,
        &format!("mimc-chain-2^{log}"),
        MimcChain::with_constraints(Fr::from(7u64), (1usize << log) - 2),
    );
}

criterion_group!(benches, bench_groth16);
criterion_main!(benches);
