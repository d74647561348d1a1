//! zkaccel's range-proof verifier against the C library that shipped
//! (Grin's secp256k1-zkp, `grin_secp256k1zkp`): proofs made by the C
//! prover verify, every mutation and wrong commitment is refused exactly
//! when the C verifier refuses it, and batches agree and name their bad
//! proofs.
//!
//! `ZKACCEL_BP_CASES` scales the counts (default 2,000: about 4,000 proofs
//! and mutations; CI runs 6,000, over 10,000). Each test says on stderr how
//! many it compared.

use super::c_lib::C;
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use zkaccel_bulletproofs::{
    proof_len, prove, Blinding, Commitment, Generators, ProofError, ProofInput, ProveError,
    RangeVerifier, GRIN_GENERATOR_COUNT,
};

use super::cases;

/// A blinding factor below the group order.
fn blind(rng: &mut ChaCha20Rng) -> [u8; 32] {
    loop {
        let mut b = [0u8; 32];
        rng.fill_bytes(&mut b);
        if Blinding::from_be_bytes(&b).is_ok() {
            return b;
        }
    }
}

fn commit(value: u64, b: &[u8; 32]) -> Commitment {
    Commitment::commit(value, &Blinding::from_be_bytes(b).unwrap()).unwrap()
}

fn value(rng: &mut ChaCha20Rng, i: usize) -> u64 {
    match i % 5 {
        0 => 0,
        1 => 1,
        2 => u64::MAX,
        3 => 1 << rng.gen_range(0..64),
        _ => rng.gen(),
    }
}

struct Made {
    proof: Vec<u8>,
    commits: Vec<Commitment>,
    extra: Option<Vec<u8>>,
}

fn make(c: &C, rng: &mut ChaCha20Rng, m: usize, i: usize) -> Made {
    let values: Vec<u64> = (0..m).map(|j| value(rng, i + j)).collect();
    let blinds: Vec<[u8; 32]> = (0..m).map(|_| blind(rng)).collect();
    let mut nonce = [0u8; 32];
    rng.fill_bytes(&mut nonce);
    let extra = match i % 3 {
        0 => None,
        1 => Some(Vec::new()),
        _ => Some((0..rng.gen_range(1..80)).map(|_| rng.gen()).collect()),
    };
    let proof = c.prove(&values, &blinds, 64, &nonce, extra.as_deref());
    let commits = values
        .iter()
        .zip(&blinds)
        .map(|(v, b)| commit(*v, b))
        .collect();
    Made {
        proof,
        commits,
        extra,
    }
}

#[test]
fn grin_generators_are_the_c_librarys() {
    // The C library's generators are opaque; its proofs verify only under
    // the same G_i and H_i, so a proof made with them that zkaccel accepts
    // and one with the roles of two generators swapped that it refuses
    // pin them down. The swap test is the one that can fail.
    let c = C::new(GRIN_GENERATOR_COUNT);
    let mut rng = ChaCha20Rng::seed_from_u64(10);
    let made = make(&c, &mut rng, 1, 4);
    let ours = RangeVerifier::grin().unwrap();
    assert_eq!(
        ours.verify(&made.proof, &made.commits, 64, made.extra.as_deref()),
        Ok(())
    );
    let g = ours.generators();
    let mut points: Vec<_> = g.g().iter().chain(g.h()).copied().collect();
    points.swap(0, 1);
    let swapped = Generators::from_points(points[..128].to_vec(), points[128..].to_vec());
    let wrong = RangeVerifier::new(swapped);
    assert_eq!(
        wrong.verify(&made.proof, &made.commits, 64, made.extra.as_deref()),
        Err(ProofError::Equation)
    );
}

#[test]
fn c_proofs_verify_and_mutations_agree() {
    let c = C::new(GRIN_GENERATOR_COUNT);
    let ours = RangeVerifier::grin().unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    let proofs = (cases() / 400).max(2);
    let mut checked = 0;
    for i in 0..proofs {
        let m = if i % 4 == 3 { 2 } else { 1 };
        let made = make(&c, &mut rng, m, i);
        assert_eq!(made.proof.len(), proof_len(64, m).unwrap());
        let extra = made.extra.as_deref();
        assert!(c.verify(&made.proof, &made.commits, 64, extra));
        assert_eq!(
            ours.verify(&made.proof, &made.commits, 64, extra),
            Ok(()),
            "proof {i}"
        );
        // Every byte, once with a random change, as many more as the
        // budget allows.
        let per_byte = (cases() / 400 / proofs).max(1);
        for pos in 0..made.proof.len() {
            for _ in 0..per_byte {
                let mut bad = made.proof.clone();
                bad[pos] ^= rng.gen_range(1..=255u8);
                let theirs = c.verify(&bad, &made.commits, 64, extra);
                let mine = ours.verify(&bad, &made.commits, 64, extra);
                assert_eq!(mine.is_ok(), theirs, "proof {i}, byte {pos}: ours {mine:?}");
                checked += 1;
            }
        }
        // A wrong commitment, the extra data changed or dropped.
        let mut wrong = made.commits.clone();
        wrong[0] = Commitment::from_point((wrong[0].point() + ours_h()).into()).unwrap();
        assert!(!c.verify(&made.proof, &wrong, 64, extra));
        assert_eq!(
            ours.verify(&made.proof, &wrong, 64, extra),
            Err(ProofError::Equation)
        );
        let other_extra: Option<&[u8]> = match extra {
            None => Some(&[]),
            Some(_) => None,
        };
        assert!(!c.verify(&made.proof, &made.commits, 64, other_extra));
        assert!(ours
            .verify(&made.proof, &made.commits, 64, other_extra)
            .is_err());
        checked += 2;
    }
    assert!(checked >= proofs * 675, "only {checked} checks");
    report(&format!(
        "{proofs} C-made proofs and {checked} mutations or wrong inputs"
    ));
}

/// A line on stderr, where cargo shows it.
fn report(what: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "compared with the C verifier: {what}");
}

#[test]
fn unused_sign_bits_are_malleable_in_both() {
    // The sign bytes have room for 8 and 16 bits; a 64-bit proof uses 4
    // (A, S, T1, T2) and 10 (L0..R4). Neither verifier reads the rest, and
    // no hash covers byte 64, so flipping them keeps the proof valid: ten
    // malleable bits a proof. The bits in use are not.
    let c = C::new(GRIN_GENERATOR_COUNT);
    let ours = RangeVerifier::grin().unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(16);
    let made = make(&c, &mut rng, 1, 0);
    for (pos, bit, valid) in [
        (64, 4, true),
        (64, 7, true),
        (354, 2, true),
        (354, 7, true),
        (64, 3, false),
        (354, 1, false),
        (353, 0, false),
    ] {
        let mut p = made.proof.clone();
        p[pos] ^= 1 << bit;
        assert_eq!(
            c.verify(&p, &made.commits, 64, None),
            valid,
            "byte {pos} bit {bit}"
        );
        assert_eq!(
            ours.verify(&p, &made.commits, 64, None).is_ok(),
            valid,
            "byte {pos} bit {bit}"
        );
    }
}

/// `H`, the value generator, as a point.
fn ours_h() -> zkaccel_bulletproofs::Affine {
    let one = Blinding::from_be_bytes(&[0u8; 32]).unwrap();
    Commitment::commit(1, &one).unwrap().point()
}

#[test]
fn aggregated_proofs_of_2_4_8_values() {
    let c = C::new(1024);
    let ours = RangeVerifier::new(Generators::new(1024).unwrap());
    let mut rng = ChaCha20Rng::seed_from_u64(12);
    let mut compared = 0;
    for (i, m) in [2usize, 4, 8, 8, 4, 2].into_iter().enumerate() {
        let made = make(&c, &mut rng, m, i);
        let extra = made.extra.as_deref();
        assert_eq!(made.proof.len(), proof_len(64, m).unwrap());
        assert!(c.verify(&made.proof, &made.commits, 64, extra));
        assert_eq!(
            ours.verify(&made.proof, &made.commits, 64, extra),
            Ok(()),
            "m = {m}"
        );
        // The commitments in another order, and one too few.
        let mut swapped = made.commits.clone();
        swapped.swap(0, 1);
        assert!(!c.verify(&made.proof, &swapped, 64, extra));
        assert_eq!(
            ours.verify(&made.proof, &swapped, 64, extra),
            Err(ProofError::Equation)
        );
        assert!(ours
            .verify(&made.proof, &made.commits[..m - 1], 64, extra)
            .is_err());
        // Some mutations, everywhere in the proof.
        for _ in 0..(cases() / 50).max(8) {
            compared += 1;
            let mut bad = made.proof.clone();
            let pos = rng.gen_range(0..bad.len());
            bad[pos] ^= rng.gen_range(1..=255u8);
            let theirs = c.verify(&bad, &made.commits, 64, extra);
            assert_eq!(
                ours.verify(&bad, &made.commits, 64, extra).is_ok(),
                theirs,
                "m {m}, byte {pos}"
            );
        }
    }
    report(&format!(
        "6 aggregated proofs (2, 4, 8 values) and {compared} mutations"
    ));
    // Grin's 256 generators cover two values, not four.
    let grin = RangeVerifier::grin().unwrap();
    let made = make(&c, &mut rng, 4, 0);
    assert_eq!(
        grin.verify(&made.proof, &made.commits, 64, made.extra.as_deref()),
        Err(ProofError::TooFewGenerators {
            needed: 512,
            have: 256
        })
    );
}

#[test]
fn batches_agree_and_name_the_bad_proofs() {
    let c = C::new(GRIN_GENERATOR_COUNT);
    let ours = RangeVerifier::grin().unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(13);
    let rounds = (cases() / 200).max(3);
    let mut batched = 0;
    for round in 0..rounds {
        let size = [1usize, 2, 5, 16][round % 4];
        let mut made: Vec<Made> = (0..size)
            .map(|i| make(&c, &mut rng, 1, round + i))
            .collect();
        // Spoil some proofs (none in every fourth round).
        let mut bad = Vec::new();
        if round % 4 != 0 {
            for (i, p) in made.iter_mut().enumerate() {
                if rng.gen_bool(0.3) {
                    // A change in the last L/R x or a scalar: parses, fails.
                    let pos = if rng.gen() { 0 } else { p.proof.len() - 1 };
                    p.proof[pos] ^= 1;
                    bad.push(i);
                }
            }
        }
        let proofs: Vec<Vec<u8>> = made.iter().map(|m| m.proof.clone()).collect();
        let commits: Vec<Vec<Commitment>> = made.iter().map(|m| m.commits.clone()).collect();
        let extras: Vec<Option<Vec<u8>>> = made.iter().map(|m| m.extra.clone()).collect();
        let inputs: Vec<ProofInput<'_>> = made
            .iter()
            .map(|m| ProofInput {
                proof: &m.proof,
                commitments: &m.commits,
                extra: m.extra.as_deref(),
            })
            .collect();
        let theirs = c.verify_multi(&proofs, &commits, 64, &extras);
        let mine = ours.verify_batch(&inputs, 64);
        assert_eq!(mine.is_ok(), theirs, "round {round}: ours {mine:?}");
        // Which proofs are bad: the C library's answer one by one.
        let one_by_one: Vec<usize> = (0..size)
            .filter(|&i| !c.verify(&proofs[i], &commits[i], 64, extras[i].as_deref()))
            .collect();
        assert_eq!(ours.find_invalid(&inputs, 64), one_by_one, "round {round}");
        // A flip in the first byte can leave -tau_x valid; the last byte is
        // an x, so most flips are caught, but not every one need be.
        assert!(one_by_one.iter().all(|i| bad.contains(i)));
        batched += size;
    }
    report(&format!(
        "{rounds} batches of {batched} proofs, each proof also one by one"
    ));
}

#[test]
fn malformed_input_is_a_typed_error() {
    let ours = RangeVerifier::grin().unwrap();
    let c = commit(5, &[3u8; 32]);
    let proof = vec![0u8; 675];
    assert_eq!(
        ours.verify(&proof[..674], &[c], 64, None),
        Err(ProofError::Length {
            expected: 675,
            got: 674
        })
    );
    assert_eq!(
        ours.verify(&[], &[c], 64, None),
        Err(ProofError::Length {
            expected: 675,
            got: 0
        })
    );
    assert_eq!(
        ours.verify(&proof, &[c], 48, None),
        Err(ProofError::Bits(48))
    );
    assert_eq!(ours.verify(&proof, &[c], 0, None), Err(ProofError::Bits(0)));
    assert_eq!(
        ours.verify(&proof, &[c], 128, None),
        Err(ProofError::Bits(128))
    );
    assert_eq!(
        ours.verify(&proof, &[], 64, None),
        Err(ProofError::Commitments(0))
    );
    assert_eq!(
        ours.verify(&proof, &[c, c, c], 64, None),
        Err(ProofError::Commitments(3))
    );
    assert_eq!(ours.verify_batch(&[], 64), Err(ProofError::EmptyBatch));
    // All zeros: x = 0 gives y^2 = 7, not a square mod p, so A is refused.
    assert_eq!(
        ours.verify(&proof, &[c], 64, None),
        Err(ProofError::Point {
            name: "A",
            round: 0
        })
    );
}

#[test]
fn zkaccel_proofs_are_accepted_by_the_c_verifier() {
    let mut rng = ChaCha20Rng::seed_from_u64(14);
    let mut made = 0;
    for (count, shapes) in [
        (
            GRIN_GENERATOR_COUNT,
            vec![
                (64usize, 1usize),
                (64, 2),
                (32, 1),
                (8, 2),
                (1, 1),
                (2, 1),
                (1, 2),
            ],
        ),
        (1024, vec![(64, 4), (64, 8), (64, 1)]),
    ] {
        let c = C::new(count);
        let gens = Generators::new(count).unwrap();
        let ours = RangeVerifier::new(gens.clone());
        for (i, &(nbits, m)) in shapes
            .iter()
            .cycle()
            .take(shapes.len().max(cases() / 200))
            .enumerate()
        {
            let top = if nbits == 64 {
                u64::MAX
            } else {
                (1u64 << nbits) - 1
            };
            let values: Vec<u64> = (0..m)
                .map(|j| match (i + j) % 4 {
                    0 => 0,
                    1 => top,
                    2 => 1,
                    _ => rng.gen_range(0..=top),
                })
                .collect();
            let blinds: Vec<Blinding> = (0..m)
                .map(|_| Blinding::from_be_bytes(&blind(&mut rng)).unwrap())
                .collect();
            let extra: Option<Vec<u8>> = match i % 3 {
                0 => None,
                1 => Some(Vec::new()),
                _ => Some(vec![i as u8; 40]),
            };
            let (proof, commits) =
                prove(&gens, &values, &blinds, nbits, extra.as_deref(), &mut rng).unwrap();
            assert_eq!(proof.len(), proof_len(nbits, m).unwrap());
            for (k, (v, b)) in values.iter().zip(&blinds).enumerate() {
                assert_eq!(commits[k], Commitment::commit(*v, b).unwrap());
            }
            assert!(
                c.verify(&proof, &commits, nbits, extra.as_deref()),
                "nbits {nbits}, m {m}, values {values:?}"
            );
            assert_eq!(
                ours.verify(&proof, &commits, nbits, extra.as_deref()),
                Ok(())
            );
            // Under another bit width or other extra data, refused by both.
            let other: Option<&[u8]> = if extra.is_some() { None } else { Some(b"x") };
            assert!(!c.verify(&proof, &commits, nbits, other));
            assert!(ours.verify(&proof, &commits, nbits, other).is_err());
            made += 1;
        }
    }
    report(&format!("{made} zkaccel-made proofs accepted"));
}

#[test]
fn prover_refuses_what_it_cannot_prove() {
    let gens = Generators::grin().unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(15);
    let b = Blinding::from_be_bytes(&[1u8; 32]).unwrap();
    assert_eq!(
        prove(&gens, &[256], &[b], 8, None, &mut rng).unwrap_err(),
        ProveError::ValueTooLarge(0)
    );
    assert_eq!(
        prove(&gens, &[255, 256], &[b, b], 8, None, &mut rng).unwrap_err(),
        ProveError::ValueTooLarge(1)
    );
    assert_eq!(
        prove(&gens, &[1, 2], &[b], 64, None, &mut rng).unwrap_err(),
        ProveError::Blindings {
            values: 2,
            blindings: 1
        }
    );
    assert_eq!(
        prove(&gens, &[1, 2, 3], &[b, b, b], 64, None, &mut rng).unwrap_err(),
        ProveError::Shape(ProofError::Commitments(3))
    );
    assert_eq!(
        prove(&gens, &[1], &[b], 63, None, &mut rng).unwrap_err(),
        ProveError::Shape(ProofError::Bits(63))
    );
    assert_eq!(
        prove(&gens, &[1; 4], &[b; 4], 64, None, &mut rng).unwrap_err(),
        ProveError::Shape(ProofError::TooFewGenerators {
            needed: 512,
            have: 256
        })
    );
    let zero = Blinding::from_be_bytes(&[0u8; 32]).unwrap();
    assert_eq!(
        prove(&gens, &[0], &[zero], 64, None, &mut rng).unwrap_err(),
        ProveError::Degenerate
    );
}
