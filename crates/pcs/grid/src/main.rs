//! `pcs-grid`: stock linear-code commitments (ark-poly-commit 0.6 with
//! `parallel`) against zkaccel-pcs on the same polynomial, point and
//! transcript; every commitment and proof checked equal before it is timed.
//!
//! ```text
//! pcs-grid [--vars 12,14,16,18,20] [--rounds 5]
//! ```
//!
//! Rows: Ligero commit / open / check (stock: `MultilinearLigero` and the
//! benches' BLAKE2s column hasher; zkaccel: `NttLigero` and
//! `Blake2sColHasher`, plus `check_strict`), the stages of Ligero's commit
//! (row encoding, column hashing, Merkle tree; the rest is copies), and
//! Brakedown (its encoder is not an FFT: stock, and stock with zkaccel's
//! column hasher). Interleaved rounds, medians in milliseconds, one
//! markdown table on stdout.

use ark_bn254::Fr;
use ark_crypto_primitives::crh::CRHScheme;
use ark_crypto_primitives::merkle_tree::MerkleTree;
use ark_ff::UniformRand;
use ark_poly::{
    DenseMultilinearExtension, EvaluationDomain, GeneralEvaluationDomain, MultilinearExtension,
};
use ark_poly_commit::linear_codes::{
    LinCodeParametersInfo, LinearCodePCS, MultilinearBrakedown, MultilinearLigero,
};
use ark_poly_commit::{LabeledPolynomial, PolynomialCommitment};
use ark_serialize::CanonicalSerialize;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;
use std::hint::black_box;
use zkaccel_pcs::{
    check_strict, column_digest, column_digest_with, Blake2sColHasher, Blake2sCore, NttLigero,
    Sha256Tree as Tree,
};
use zkaccel_testkit::pcs::{sponge_for, StockColHasher};
use zkaccel_testkit::timing::interleaved_all;

type Poly = DenseMultilinearExtension<Fr>;
type StockH = StockColHasher<Fr>;
type OurH = Blake2sColHasher<Fr>;
type OurL = NttLigero<Fr, Tree, Poly, OurH>;
type Stock = LinearCodePCS<MultilinearLigero<Fr, Tree, Poly, StockH>, Fr, Poly, Tree, StockH>;
type Ours = LinearCodePCS<OurL, Fr, Poly, Tree, OurH>;
type BrakeStock =
    LinearCodePCS<MultilinearBrakedown<Fr, Tree, Poly, StockH>, Fr, Poly, Tree, StockH>;
type BrakeOurs = LinearCodePCS<MultilinearBrakedown<Fr, Tree, Poly, OurH>, Fr, Poly, Tree, OurH>;

fn bytes<T: CanonicalSerialize>(t: &T) -> Vec<u8> {
    let mut v = Vec::new();
    t.serialize_compressed(&mut v)
        .expect("serializing to a Vec");
    v
}

fn args() -> Result<(Vec<usize>, usize), String> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let (mut vars, mut rounds) = (vec![12, 14, 16, 18, 20], 5);
    let mut i = 0;
    while i < a.len() {
        let v = a.get(i + 1).ok_or(format!("{} needs a value", a[i]))?;
        match a[i].as_str() {
            "--vars" => {
                vars = v
                    .split(',')
                    .map(|x| {
                        x.parse()
                            .map_err(|_| format!("--vars: {x:?} is not a number"))
                    })
                    .collect::<Result<_, _>>()?
            }
            "--rounds" => rounds = v.parse().map_err(|_| format!("--rounds: {v:?}"))?,
            o => {
                return Err(format!(
                    "unknown argument {o:?}; usage: pcs-grid [--vars 12,14] [--rounds 5]"
                ))
            }
        }
        i += 2;
    }
    if rounds == 0 || vars.iter().any(|&n| n == 0 || n > 24) {
        return Err("--rounds at least 1, --vars from 1 to 24".into());
    }
    Ok((vars, rounds))
}

/// One row of the table: label, stock ms, zkaccel ms.
fn row(label: &str, nv: usize, stock: f64, ours: f64) {
    println!(
        "| {label} | {nv} | {stock:.2} | {ours:.2} | {:.2}x |",
        stock / ours
    );
}

fn ligero(nv: usize, rounds: usize) {
    let rng = &mut ChaCha20Rng::seed_from_u64(nv as u64);
    let pp_s = Stock::setup(1, Some(nv), rng).unwrap();
    let (ck_s, vk_s) = Stock::trim(&pp_s, 0, 0, None).unwrap();
    let pp_o = Ours::setup(1, Some(nv), rng).unwrap();
    let (ck_o, vk_o) = Ours::trim(&pp_o, 0, 0, None).unwrap();
    let poly = LabeledPolynomial::new("p".into(), Poly::rand(nv, rng), None, None);
    let point: Vec<Fr> = (0..nv).map(|_| Fr::rand(rng)).collect();
    let value = poly.evaluate(&point);

    // Checked before anything is timed.
    let (com_s, st_s) = Stock::commit(&ck_s, [&poly], None).unwrap();
    let (com_o, st_o) = Ours::commit(&ck_o, [&poly], None).unwrap();
    assert_eq!(
        bytes(com_s[0].commitment()),
        bytes(com_o[0].commitment()),
        "{nv}: commitments differ"
    );
    let open_s = || {
        Stock::open(
            &ck_s,
            [&poly],
            &com_s,
            &point,
            &mut sponge_for::<Fr>(),
            &st_s,
            None,
        )
        .unwrap()
    };
    let open_o = || {
        Ours::open(
            &ck_o,
            [&poly],
            &com_o,
            &point,
            &mut sponge_for::<Fr>(),
            &st_o,
            None,
        )
        .unwrap()
    };
    let (pf_s, pf_o) = (open_s(), open_o());
    assert_eq!(bytes(&pf_s), bytes(&pf_o), "{nv}: proofs differ");
    let check_s = || {
        Stock::check(
            &vk_s,
            &com_s,
            &point,
            [value],
            &pf_s,
            &mut sponge_for::<Fr>(),
            None,
        )
        .unwrap()
    };
    let check_o = || {
        Ours::check(
            &vk_o,
            &com_o,
            &point,
            [value],
            &pf_o,
            &mut sponge_for::<Fr>(),
            None,
        )
        .unwrap()
    };
    let strict = || {
        check_strict::<OurL, _, _, _, _>(
            &vk_o,
            &com_o,
            &point,
            [value],
            &pf_o,
            &mut sponge_for::<Fr>(),
            None,
        )
        .unwrap()
    };
    assert!(
        check_s() && check_o() && strict(),
        "{nv}: a proof does not verify"
    );

    let commit = interleaved_all(
        rounds,
        &mut [
            &mut || {
                black_box(Stock::commit(&ck_s, [&poly], None).unwrap());
            },
            &mut || {
                black_box(Ours::commit(&ck_o, [&poly], None).unwrap());
            },
        ],
    );
    row("Ligero commit", nv, commit[0], commit[1]);
    let t = interleaved_all(
        rounds,
        &mut [
            &mut || {
                black_box(open_s());
            },
            &mut || {
                black_box(open_o());
            },
        ],
    );
    row("Ligero open", nv, t[0], t[1]);
    let t = interleaved_all(
        rounds,
        &mut [
            &mut || {
                black_box(check_s());
            },
            &mut || {
                black_box(check_o());
            },
            &mut || {
                black_box(strict());
            },
        ],
    );
    row("Ligero check", nv, t[0], t[1]);
    println!(
        "| Ligero check_strict (adds the Merkle paths) | {nv} | | {:.2} | |",
        t[2]
    );

    // The stages of commit, as LinearCodePCS::commit runs them.
    let (n_rows, n_cols) = ck_s.compute_dimensions(1 << nv);
    let mut evals = poly.to_evaluations();
    evals.resize(n_rows * n_cols, Fr::from(0u64));
    let rows: Vec<Vec<Fr>> = evals.chunks(n_cols).map(|r| r.to_vec()).collect();
    let domain = GeneralEvaluationDomain::<Fr>::new(n_cols * 2).unwrap();
    let enc_s = || rows.par_iter().map(|r| domain.fft(r)).collect::<Vec<_>>();
    let enc_o = || {
        rows.par_iter()
            .map(|r| zkaccel_pcs::reed_solomon(r, 2).unwrap())
            .collect::<Vec<_>>()
    };
    let ext = enc_s();
    assert_eq!(ext, enc_o(), "{nv}: encodings differ");
    let n_ext = ext[0].len();
    let cols: Vec<Vec<Fr>> = (0..n_ext)
        .map(|j| ext.iter().map(|r| r[j]).collect())
        .collect();
    let hash_s = || {
        cols.par_iter()
            .map(|c| StockH::evaluate(&(), c.clone()).unwrap())
            .collect::<Vec<_>>()
    };
    let hash_o = || {
        cols.par_iter()
            .map(|c| column_digest(c).to_vec())
            .collect::<Vec<_>>()
    };
    let leaves = hash_s();
    assert_eq!(leaves, hash_o(), "{nv}: column digests differ");
    let tree = || {
        let mut l = leaves.clone();
        l.resize(l.len().next_power_of_two(), Vec::new());
        MerkleTree::<Tree>::new(&(), &(), l).unwrap()
    };
    let t = interleaved_all(
        rounds,
        &mut [
            &mut || {
                black_box(enc_s());
            },
            &mut || {
                black_box(enc_o());
            },
            &mut || {
                black_box(hash_s());
            },
            &mut || {
                black_box(hash_o());
            },
            &mut || {
                black_box(tree());
            },
        ],
    );
    println!(
        "| Ligero commit: {n_rows} rows encoded to {n_ext} | {nv} | {:.2} | {:.2} | {:.2}x |",
        t[0],
        t[1],
        t[0] / t[1]
    );
    transforms_alone(nv, rounds, &rows, n_ext, &ext);
    println!(
        "| Ligero commit: {n_ext} columns of {n_rows} hashed | {nv} | {:.2} | {:.2} | {:.2}x |",
        t[2],
        t[3],
        t[2] / t[3]
    );
    println!(
        "| Ligero commit: Merkle tree (SHA-256, both) | {nv} | {:.2} | {:.2} | |",
        t[4], t[4]
    );
    println!(
        "| Ligero commit: the rest (arkworks' matrix copies and transposition; by difference) | {nv} | {:.2} | {:.2} | |",
        commit[0] - t[0] - t[2] - t[4],
        commit[1] - t[1] - t[3] - t[4]
    );
}

/// The encoding stage without its allocation: each row copied into a
/// zero-padded buffer allocated once, then transformed in place (stock:
/// ark-poly's radix-2 domain; zkaccel: the `NttDomain` that `reed_solomon`
/// uses). The encoding stage's rows are freshly allocated, and their page
/// faults, paid by both sides, are the difference.
fn transforms_alone(nv: usize, rounds: usize, rows: &[Vec<Fr>], n_ext: usize, ext: &[Vec<Fr>]) {
    let padded: Vec<Vec<Fr>> = rows
        .iter()
        .map(|r| {
            let mut v = r.clone();
            v.resize(n_ext, Fr::from(0u64));
            v
        })
        .collect();
    let stock = GeneralEvaluationDomain::<Fr>::new(n_ext).unwrap();
    let ours = zkaccel_ntt::NttDomain::<Fr>::new(n_ext).unwrap();
    let (mut bufs_s, mut bufs_o) = (padded.clone(), padded.clone());
    let t = interleaved_all(
        rounds,
        &mut [
            &mut || {
                bufs_s.par_iter_mut().zip(&padded).for_each(|(b, p)| {
                    b.copy_from_slice(p);
                    stock.fft_in_place(b);
                })
            },
            &mut || {
                bufs_o.par_iter_mut().zip(&padded).for_each(|(b, p)| {
                    b.copy_from_slice(p);
                    ours.fft_in_place(b);
                })
            },
        ],
    );
    assert!(bufs_s == ext && bufs_o == ext, "{nv}: transforms differ");
    println!(
        "| Ligero commit: the same transforms into rows allocated once | {nv} | {:.2} | {:.2} | {:.2}x |",
        t[0],
        t[1],
        t[0] / t[1]
    );
}

fn brakedown(nv: usize, rounds: usize) {
    let rng = &mut ChaCha20Rng::seed_from_u64(nv as u64);
    let pp_s = BrakeStock::setup(1, Some(nv), rng).unwrap();
    let (ck_s, _) = BrakeStock::trim(&pp_s, 0, 0, None).unwrap();
    // The same encoder matrices: the setup draws them from the RNG.
    let rng = &mut ChaCha20Rng::seed_from_u64(nv as u64);
    let pp_o = BrakeOurs::setup(1, Some(nv), rng).unwrap();
    let (ck_o, _) = BrakeOurs::trim(&pp_o, 0, 0, None).unwrap();
    let poly = LabeledPolynomial::new("p".into(), Poly::rand(nv, rng), None, None);
    let (a, _) = BrakeStock::commit(&ck_s, [&poly], None).unwrap();
    let (b, _) = BrakeOurs::commit(&ck_o, [&poly], None).unwrap();
    assert_eq!(
        bytes(a[0].commitment()),
        bytes(b[0].commitment()),
        "{nv}: Brakedown commitments differ"
    );
    let t = interleaved_all(
        rounds,
        &mut [
            &mut || {
                black_box(BrakeStock::commit(&ck_s, [&poly], None).unwrap());
            },
            &mut || {
                black_box(BrakeOurs::commit(&ck_o, [&poly], None).unwrap());
            },
        ],
    );
    row(
        "Brakedown commit (stock encoder; zkaccel's column hasher)",
        nv,
        t[0],
        t[1],
    );
}

/// Nanoseconds per element of hashing one 128-element column (Ligero's
/// 2^20 shape): the stock hasher, [`column_digest`] with each BLAKE2s
/// core (and which one it chose on this CPU), and, for what an
/// interface that handed the hasher many columns at once would allow,
/// `blake2s_simd::many::hash_many` over 8 columns' bytes.
fn hash_rates(rounds: usize) {
    let rng = &mut ChaCha20Rng::seed_from_u64(1);
    let cols: Vec<Vec<Fr>> = (0..8)
        .map(|_| (0..128).map(|_| Fr::rand(rng)).collect())
        .collect();
    let encoded: Vec<Vec<u8>> = cols.iter().map(bytes).collect();
    let params = blake2s_simd::Params::new();
    for (c, e) in cols.iter().zip(&encoded) {
        assert_eq!(
            column_digest(c).to_vec(),
            StockH::evaluate(&(), c.clone()).unwrap()
        );
        assert_eq!(params.hash(e).as_bytes(), &column_digest(c)[..]);
        for core in [Blake2sCore::Scalar, Blake2sCore::Simd] {
            assert_eq!(column_digest_with(core, c), column_digest(c));
        }
    }
    let reps = 2000;
    let per = |ms: f64| ms * 1e6 / (reps * 8 * 128) as f64;
    let t = interleaved_all(
        rounds,
        &mut [
            &mut || {
                for _ in 0..reps {
                    for c in &cols {
                        black_box(StockH::evaluate(&(), c.clone()).unwrap());
                    }
                }
            },
            &mut || {
                for _ in 0..reps {
                    for c in &cols {
                        black_box(column_digest_with(Blake2sCore::Scalar, c));
                    }
                }
            },
            &mut || {
                for _ in 0..reps {
                    for c in &cols {
                        black_box(column_digest_with(Blake2sCore::Simd, c));
                    }
                }
            },
            &mut || {
                for _ in 0..reps {
                    let mut jobs: Vec<_> = encoded
                        .iter()
                        .map(|e| blake2s_simd::many::HashManyJob::new(&params, e))
                        .collect();
                    blake2s_simd::many::hash_many(jobs.iter_mut());
                    black_box(jobs[7].to_hash());
                }
            },
        ],
    );
    println!();
    println!("Column hashing, one thread, 128-element columns: stock {:.1} ns/element, column_digest {:.1} \
              with the scalar BLAKE2s core and {:.1} with the SIMD one ({} chosen on this CPU), \
              8 columns at once (hash_many, not reachable through CRHScheme::evaluate) {:.1}",
             per(t[0]), per(t[1]), per(t[2]), Blake2sCore::chosen().name(), per(t[3]));
}

fn main() {
    let (vars, rounds) = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("pcs-grid: {e}");
            std::process::exit(2);
        }
    };
    println!("ark-poly-commit 0.6 with `parallel`, {} rayon threads, BN254 Fr, {rounds} rounds, medians in ms", rayon::current_num_threads());
    println!();
    println!("| step | variables | stock | zkaccel | speed-up |");
    println!("|---|---:|---:|---:|---:|");
    for &nv in &vars {
        ligero(nv, rounds);
        brakedown(nv, rounds);
    }
    hash_rates(rounds);
}
