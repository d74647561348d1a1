//! Circom proving on BN254 from snarkjs files: key loading and proving,
//! apart. Circuits: the committed Poseidon Merkle-proof fixture (snarkjs'
//! own key) and an arkworks SHA-256 circuit of
//! `ZKACCEL_BENCH_CIRCOM_SHA_BLOCKS` blocks (default 1, about 28k
//! constraints) exported as a zkey and wtns (a test key from a fixed seed).
//!
//! - `circom/load`: zkaccel's `read_zkey` from the bytes in memory, without
//!   and with the on-curve and subgroup checks, and `map_zkey` of the same
//!   bytes in a mapped file (points used in place); beside it arkworks'
//!   `ProvingKey::deserialize_uncompressed_unchecked` of the same key in
//!   arkworks' own encoding (what an arkworks user who caches a key pays).
//! - `circom/prove`: ark-groth16 with zkaccel's `CircomReduction` (the
//!   drop-in: arkworks' MSMs) and `CircomProver` (zkaccel's MSMs), same key,
//!   matrices, witness and `r, s`.
//!
//! ark-circom 0.6 cannot be a dependency here (its wasmer witness runtime is
//! not optional): `scripts/ark-circom-peer.sh` times it against zkaccel on
//! the same files, interleaved, and checks the proofs are byte-identical.
//! `cargo bench --bench circom`.

use ark_bn254::{Bn254, Fr};
use ark_ff::UniformRand;
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use std::time::Duration;
use zkaccel::circom::{
    export_circuit, map_zkey, read_wtns, read_zkey, CircomProver, CircomReduction, ZkeyMap,
    ZkeyOptions,
};
use zkaccel::groth16::circuits::Sha256Circuit;
use zkaccel::groth16::Backend;

struct Case {
    label: String,
    zkey: Vec<u8>,
    witness: Vec<Fr>,
}

fn cases() -> Vec<Case> {
    let fixture = |name: &str| {
        let dir = format!(
            "{}/crates/circom/tests/fixtures/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        let read = |f: &str| std::fs::read(format!("{dir}/{f}")).expect("the committed fixture");
        Case {
            label: format!("{name} (snarkjs key)"),
            zkey: read("circuit.zkey"),
            witness: read_wtns(&read("witness.wtns")).expect("the fixture's witness"),
        }
    };
    let blocks: usize = std::env::var("ZKACCEL_BENCH_CIRCOM_SHA_BLOCKS").map_or(1, |s| {
        s.parse()
            .expect("ZKACCEL_BENCH_CIRCOM_SHA_BLOCKS: a number")
    });
    let files = export_circuit::<Bn254, _, _>(
        Sha256Circuit::<Fr>::new(blocks, 1),
        &mut ChaCha20Rng::seed_from_u64(blocks as u64),
    )
    .expect("the SHA-256 circuit exports");
    vec![
        fixture("merkle"),
        Case {
            label: format!("sha256-{blocks} (exported)"),
            witness: read_wtns(&files.wtns).expect("the exported witness"),
            zkey: files.zkey,
        },
    ]
}

fn bench(c: &mut Criterion) {
    for case in cases() {
        let zkey = read_zkey::<Bn254>(&case.zkey, ZkeyOptions::default()).unwrap();
        let header = zkey.header;
        let label = format!(
            "{}, {} constraints, domain 2^{}",
            case.label,
            zkey.num_constraints,
            header.domain_size.trailing_zeros()
        );

        let mut group = c.benchmark_group("circom/load");
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(5));
        group.bench_function(BenchmarkId::new("zkaccel read_zkey", &label), |b| {
            b.iter(|| black_box(read_zkey::<Bn254>(&case.zkey, ZkeyOptions::default()).unwrap()))
        });
        // The same bytes in a file, mapped once: map_zkey checks every
        // point and decodes the sections it cannot use in place (its pages
        // are in the page cache after the first iteration, as a key proved
        // with repeatedly is).
        let path = std::env::temp_dir().join(format!("zkaccel-bench-{}.zkey", std::process::id()));
        std::fs::write(&path, &case.zkey).unwrap();
        let map = ZkeyMap::new(&std::fs::File::open(&path).unwrap()).unwrap();
        std::fs::remove_file(&path).unwrap();
        group.bench_function(
            BenchmarkId::new("zkaccel map_zkey (mapped file)", &label),
            |b| b.iter(|| black_box(map_zkey::<Bn254>(&map, ZkeyOptions::default()).unwrap())),
        );
        let checked = ZkeyOptions {
            check_points: true,
            ..Default::default()
        };
        group.bench_function(
            BenchmarkId::new("zkaccel read_zkey, points checked", &label),
            |b| b.iter(|| black_box(read_zkey::<Bn254>(&case.zkey, checked).unwrap())),
        );
        let mut ark_bytes = Vec::new();
        zkey.pk.serialize_uncompressed(&mut ark_bytes).unwrap();
        group.bench_function(
            BenchmarkId::new(
                "arkworks ProvingKey::deserialize_uncompressed_unchecked",
                &label,
            ),
            |b| {
                b.iter(|| {
                    black_box(
                        ark_groth16::ProvingKey::<Bn254>::deserialize_uncompressed_unchecked(
                            &ark_bytes[..],
                        )
                        .unwrap(),
                    )
                })
            },
        );
        group.finish();

        // The same r, s for both: the proofs are the same bytes (checked
        // here before timing, and in crates/circom/tests).
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let (r, s) = (Fr::rand(&mut rng), Fr::rand(&mut rng));
        let num_inputs = zkey.num_inputs();
        let nc = zkey.num_constraints;
        let mats = [
            zkey.matrices[0].to_rows(),
            zkey.matrices[1].to_rows(),
            Vec::new(),
        ];
        let pk = zkey.pk.clone();
        let prover = CircomProver::from_parts(zkey, Backend::Cpu, Duration::ZERO);
        let dropin = || {
            ark_groth16::Groth16::<Bn254, CircomReduction>::create_proof_with_reduction_and_matrices(
                &pk,
                r,
                s,
                &mats,
                num_inputs,
                nc,
                &case.witness,
            )
            .unwrap()
        };
        let ours = prover.prove_with(&case.witness, r, s).unwrap();
        assert_eq!(ours.proof, dropin(), "{label}: the two provers disagree");
        assert!(prover.verify(&ours.proof, &ours.public).unwrap());

        let mut group = c.benchmark_group("circom/prove");
        group.sample_size(10);
        group.bench_function(
            BenchmarkId::new("ark-groth16 + zkaccel CircomReduction", &label),
            |b| b.iter(|| black_box(dropin())),
        );
        group.bench_function(
            BenchmarkId::new("zkaccel CircomProver (CPU)", &label),
            |b| b.iter(|| black_box(prover.prove_with(&case.witness, r, s).unwrap())),
        );
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
