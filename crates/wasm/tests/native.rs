//! The JavaScript API's functions, natively, on the committed circom
//! fixtures (made by circom and snarkjs: their `public.json`, `vkey.json`
//! and `proof.json` are the reference), and on bad input. The same
//! functions compiled to WebAssembly are checked in node by
//! `crates/wasm/js/test/` (scripts/npm-check.sh).

use zkaccel_wasm::{verify_json, KeyProver, KeyStream, Randomness};

const FIXTURES: [&str; 5] = ["poseidon", "poseidon_bls", "arrays", "merkle", "nopublic"];

fn fixture(name: &str, file: &str) -> Vec<u8> {
    let path = format!(
        "{}/../circom/tests/fixtures/{name}/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn text(name: &str, file: &str) -> String {
    String::from_utf8(fixture(name, file)).unwrap()
}

#[test]
fn proofs_verify_under_snarkjs_keys_with_snarkjs_public_signals() {
    for name in FIXTURES {
        let prover = KeyProver::new(&fixture(name, "circuit.zkey")).unwrap();
        let wtns = fixture(name, "witness.wtns");
        let out = prover.prove_wtns(&wtns, Randomness::Os).unwrap();
        // snarkjs' own files: the public signals text for text, and the
        // verification key it exported from the same zkey.
        assert_eq!(out.public, text(name, "public.json"), "{name}: public.json");
        assert_eq!(
            prover.vkey_json(),
            text(name, "vkey.json"),
            "{name}: vkey.json"
        );
        let vkey = text(name, "vkey.json");
        assert!(
            verify_json(&vkey, &out.public, &out.proof).unwrap(),
            "{name}"
        );
        // snarkjs' proof of the same witness verifies here too.
        assert!(verify_json(&vkey, &out.public, &text(name, "proof.json")).unwrap());
        let curve = if name.ends_with("_bls") {
            "bls12381"
        } else {
            "bn128"
        };
        assert_eq!(prover.curve(), curve);
        assert!(
            out.proof.contains(&format!("\"curve\": \"{curve}\"")),
            "{name}"
        );
    }
}

#[test]
fn a_seed_gives_one_proof_and_os_randomness_a_new_one() {
    let prover = KeyProver::new(&fixture("poseidon", "circuit.zkey")).unwrap();
    let wtns = fixture("poseidon", "witness.wtns");
    let a = prover.prove_wtns(&wtns, Randomness::Seed(7)).unwrap();
    let b = prover.prove_wtns(&wtns, Randomness::Seed(7)).unwrap();
    let c = prover.prove_wtns(&wtns, Randomness::Seed(8)).unwrap();
    let d = prover.prove_wtns(&wtns, Randomness::Os).unwrap();
    assert_eq!(a, b);
    assert_ne!(a.proof, c.proof);
    assert_ne!(a.proof, d.proof);
    assert_eq!(a.public, d.public);
}

#[test]
fn a_changed_public_signal_or_proof_does_not_verify() {
    let name = "arrays";
    let vkey = text(name, "vkey.json");
    let proof = text(name, "proof.json");
    let public = text(name, "public.json");
    assert!(verify_json(&vkey, &public, &proof).unwrap());
    let changed = public.replacen("\"1\"", "\"2\"", 1);
    assert_ne!(changed, public);
    assert!(!verify_json(&vkey, &changed, &proof).unwrap());
    // Another fixture's proof under this key: well-formed, wrong.
    let other = text("merkle", "proof.json");
    assert!(!verify_json(&vkey, &public, &other).unwrap());
}

fn err_of<T>(r: Result<T, zkaccel_circom::CircomError>) -> String {
    match r {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

/// The lengths a key of `n` bytes is cut at: every one up to 80 (the
/// headers, section 2 and the start of IC), then a stride through the
/// file, and one byte short.
fn cut_lengths(n: usize) -> impl Iterator<Item = usize> {
    (0..80).chain((80..n).step_by(n / 97 + 1)).chain([n - 1])
}

#[test]
fn truncated_or_corrupted_keys_are_errors_naming_the_file() {
    let zkey = fixture("poseidon", "circuit.zkey");
    for len in cut_lengths(zkey.len()) {
        let msg = err_of(KeyProver::new(&zkey[..len]));
        assert!(msg.contains("zkey"), "{len} bytes: {msg}");
    }
    let mut bad = zkey.clone();
    bad[..4].copy_from_slice(b"wtns");
    assert!(err_of(KeyProver::new(&bad)).contains("zkey"));
    assert!(err_of(KeyProver::new(b"")).contains("zkey"));
    // A wtns or an r1cs is not a key.
    let msg = err_of(KeyProver::new(&fixture("poseidon", "witness.wtns")));
    assert!(msg.contains("zkey"), "{msg}");
}

#[test]
fn a_witness_of_another_circuit_or_curve_is_an_error() {
    let prover = KeyProver::new(&fixture("poseidon", "circuit.zkey")).unwrap();
    let msg = err_of(prover.prove_wtns(&fixture("arrays", "witness.wtns"), Randomness::Os));
    assert!(msg.contains("witness length"), "{msg}");
    let msg = err_of(prover.prove_wtns(&fixture("poseidon_bls", "witness.wtns"), Randomness::Os));
    assert!(msg.contains("prime") || msg.contains("witness"), "{msg}");
    let wtns = fixture("poseidon", "witness.wtns");
    for len in [0, 4, 12, 40, wtns.len() / 2, wtns.len() - 1] {
        let msg = err_of(prover.prove_wtns(&wtns[..len], Randomness::Os));
        assert!(msg.contains("wtns"), "{len} bytes: {msg}");
    }
}

#[test]
fn a_witness_that_violates_the_circuit_gives_no_proof() {
    let prover = KeyProver::new(&fixture("poseidon", "circuit.zkey")).unwrap();
    let mut wtns = fixture("poseidon", "witness.wtns");
    // The last signal's lowest byte (an internal signal: the witness keeps
    // its shape, one constraint no longer holds).
    let at = wtns.len() - 32;
    wtns[at] ^= 1;
    let msg = err_of(prover.prove_wtns(&wtns, Randomness::Os));
    assert!(msg.contains("verify"), "{msg}");
}

#[test]
fn malformed_verification_inputs_are_errors() {
    let vkey = text("arrays", "vkey.json");
    let proof = text("arrays", "proof.json");
    let public = text("arrays", "public.json");
    assert!(verify_json("{", &public, &proof).is_err());
    assert!(verify_json(&vkey.replace("bn128", "secp256k1"), &public, &proof).is_err());
    assert!(
        verify_json(&vkey, "[\"1\"]", &proof).is_err(),
        "wrong count"
    );
    assert!(verify_json(&vkey, &public, "{}").is_err());
    // A point moved off the curve.
    let off = proof.replacen("\"1\"\n ],\n \"pi_b\"", "\"2\"\n ],\n \"pi_b\"", 1);
    assert_ne!(off, proof);
    assert!(verify_json(&vkey, &public, &off).is_err());
}

#[test]
fn shares_assembled_give_the_whole_proof_byte_for_byte() {
    use zkaccel_groth16::ProofPart;
    for name in ["poseidon", "poseidon_bls", "nopublic"] {
        let prover = KeyProver::new(&fixture(name, "circuit.zkey")).unwrap();
        let wtns = fixture(name, "witness.wtns");
        let whole = prover.prove_wtns(&wtns, Randomness::Seed(9)).unwrap();
        let part = |p| prover.prove_part_wtns(&wtns, p).unwrap();
        let n = prover.h_terms();
        let range = |start, end| part(ProofPart::QuotientH { start, end });
        let (q, b2, l) = (
            part(ProofPart::QUOTIENT_H),
            part(ProofPart::B2),
            part(ProofPart::LAB1),
        );
        assert!(n / 3 > 0, "{name}: domain {n}");
        let (h0, h1) = (range(0, n / 3), range(n / 3, n));
        let sets: [&[&[u8]]; 4] = [
            &[&q, &b2, &l],
            &[&l, &b2, &q],
            &[&h1, &l, &h0, &b2],
            &[&h0, &range(n / 3, n / 3), &h1, &b2, &l],
        ];
        for shares in sets {
            let out = prover
                .assemble_wtns(&wtns, shares, Randomness::Seed(9))
                .unwrap();
            assert_eq!(out, whole, "{name}");
        }
        // A share missing, given twice, truncated, or with a byte changed;
        // H ranges that leave a gap or overlap, or cover part of the query.
        let err = |shares: &[&[u8]]| err_of(prover.assemble_wtns(&wtns, shares, Randomness::Os));
        assert!(err(&[&q, &b2]).contains("missing"), "{}", err(&[&q, &b2]));
        assert!(err(&[&q, &b2, &l, &l]).contains("in both shares"));
        assert!(err(&[&q, &b2, &l[..l.len() - 1]]).contains("share 2"));
        assert!(err(&[&h0, &b2, &l]).contains("part of the H query"));
        let gap = range(n / 2, n);
        assert!(err(&[&h0, &gap, &b2, &l]).contains("overlap or leave a gap"));
        // One term in both ranges.
        let over = range(n / 3 - 1, n);
        assert!(err(&[&h0, &over, &b2, &l]).contains("overlap or leave a gap"));
        let mut bad = l.clone();
        bad[10] ^= 1;
        let msg = err(&[&q, &b2, &bad]);
        assert!(msg.contains("share 2") || msg.contains("verify"), "{msg}");
        let mut extra = l.clone();
        extra.push(0);
        assert!(err(&[&q, &b2, &extra]).contains("after the sums"));
        // A range that ends before it starts: h1's end (after its flag, its
        // point and its start; then four absent sums' flags) set to 0.
        let mut backwards = h1.clone();
        let end_at = backwards.len() - 4 - 8;
        backwards[end_at..end_at + 8].copy_from_slice(&0u64.to_le_bytes());
        let msg = err(&[&h0, &backwards, &b2, &l]);
        assert!(msg.contains("ends before it starts"), "{msg}");
        // Another circuit's witness with these shares.
        let other = fixture("arrays", "witness.wtns");
        assert!(prover
            .assemble_wtns(&other, &[&q, &b2, &l], Randomness::Os)
            .is_err());
    }
}

#[test]
fn quotient_once_and_h_parts_give_the_whole_proof_byte_for_byte() {
    use zkaccel_groth16::ProofPart;
    for name in ["poseidon", "poseidon_bls", "nopublic"] {
        let prover = KeyProver::new(&fixture(name, "circuit.zkey")).unwrap();
        let wtns = fixture(name, "witness.wtns");
        let whole = prover.prove_wtns(&wtns, Randomness::Seed(4)).unwrap();
        let part = |p| prover.prove_part_wtns(&wtns, p).unwrap();
        let (b2, l) = (part(ProofPart::B2), part(ProofPart::LAB1));
        let n = prover.h_terms();
        let q = prover.quotient_wtns(&wtns).unwrap();
        assert_eq!(q.len(), 32 * n, "{name}");
        let h = |start: usize, end: usize| prover.h_part(start, &q[32 * start..32 * end]).unwrap();
        for k in [0, 1, n / 3, n] {
            let (h0, h1) = (h(0, k), h(k, n));
            let out = prover
                .assemble_wtns(&wtns, &[&h1, &b2, &h0, &l], Randomness::Seed(4))
                .unwrap();
            assert_eq!(out, whole, "{name}, k = {k}");
        }
        // The quotient from its columns computed apart, each split.
        for held in 0..8u32 {
            let mine = prover.quotient_columns(&wtns, held).unwrap();
            let theirs = prover.quotient_columns(&wtns, 7 - held).unwrap();
            let out = prover.quotient_from(&wtns, mine, &theirs.to_bytes());
            assert_eq!(out.unwrap(), q, "{name}: held {held}");
        }
        assert!(err_of(prover.quotient_columns(&wtns, 8)).contains("mask 8"));
        let mine = || prover.quotient_columns(&wtns, 3).unwrap();
        let c = prover.quotient_columns(&wtns, 4).unwrap().to_bytes();
        // Cut short, a column too many, another curve's columns.
        let msg = err_of(prover.quotient_from(&wtns, mine(), &c[..c.len() - 32]));
        assert!(msg.contains("other columns"), "{msg}");
        let both = prover.quotient_columns(&wtns, 6).unwrap().to_bytes();
        assert!(err_of(prover.quotient_from(&wtns, mine(), &both)).contains("other columns"));
        let other_curve = if name == "poseidon_bls" {
            "poseidon"
        } else {
            "poseidon_bls"
        };
        let foreign = KeyProver::new(&fixture(other_curve, "circuit.zkey"))
            .unwrap()
            .quotient_columns(&fixture(other_curve, "witness.wtns"), 3)
            .unwrap();
        assert!(err_of(prover.quotient_from(&wtns, foreign, &c)).contains("another curve"));
        let err = |start, bytes: &[u8]| err_of(prover.h_part(start, bytes));
        // Part of an element, an element at the modulus or above, a range
        // past the query.
        assert!(
            err(0, &q[..31]).contains("whole number"),
            "{}",
            err(0, &q[..31])
        );
        let mut high = q.clone();
        high[32 * 2..32 * 3].fill(0xff);
        let msg = err(0, &high);
        assert!(msg.contains("scalar 2"), "{msg}");
        assert!(err(1, &q).contains("past the H query"), "{}", err(1, &q));
        // Another circuit's witness: rejected before any work.
        assert!(prover
            .quotient_wtns(&fixture("arrays", "witness.wtns"))
            .is_err());
        // A scalar changed: the proof does not verify, and says so.
        let mut changed = q.clone();
        changed[5] ^= 1;
        let bad = prover.h_part(0, &changed).unwrap();
        let msg = err_of(prover.assemble_wtns(&wtns, &[&bad, &b2, &l], Randomness::Os));
        assert!(msg.contains("verif"), "{msg}");
    }
}

#[test]
fn share_lists_split_by_their_lengths() {
    use zkaccel_wasm::sums::split_shares;
    let list = |shares: &[&[u8]]| -> Vec<u8> {
        shares
            .iter()
            .flat_map(|s| {
                (s.len() as u32)
                    .to_le_bytes()
                    .into_iter()
                    .chain(s.iter().copied())
            })
            .collect()
    };
    let shares: [&[u8]; 3] = [b"abc", b"", b"defgh"];
    assert_eq!(split_shares(&list(&shares)).unwrap(), shares.to_vec());
    assert!(split_shares(&[]).unwrap().is_empty());
    let whole = list(&shares);
    // Cut inside the last share, inside its length, and a length past the end.
    let e = split_shares(&whole[..whole.len() - 1]).unwrap_err();
    assert!(e.contains("share 2: 5 bytes announced, 4 left"), "{e}");
    let e = split_shares(&whole[..3 + 4 + 4 + 2]).unwrap_err();
    assert!(e.contains("share 2: its length truncated"), "{e}");
    let e = split_shares(&u32::MAX.to_le_bytes()).unwrap_err();
    assert!(e.contains("share 0"), "{e}");
}

/// `bytes` through a [`KeyStream`] in chunks of `chunk`.
fn streamed(bytes: &[u8], chunk: usize) -> Result<KeyProver, zkaccel_circom::CircomError> {
    let mut s = KeyStream::new();
    for c in bytes.chunks(chunk) {
        s.push(c)?;
    }
    s.finish()
}

#[test]
fn a_key_streamed_in_chunks_proves_as_the_whole_file() {
    for name in FIXTURES {
        let zkey = fixture(name, "circuit.zkey");
        let wtns = fixture(name, "witness.wtns");
        let whole = KeyProver::new(&zkey).unwrap();
        let want = whole.prove_wtns(&wtns, Randomness::Seed(3)).unwrap();
        // 1 byte: the curve named across many pushes; 50: the prefix in
        // two; 1 MiB: one push.
        for chunk in [1, 50, 8191, 1 << 20] {
            if chunk == 1 && zkey.len() > 10_000 {
                continue;
            }
            let p = streamed(&zkey, chunk).unwrap_or_else(|e| panic!("{name}, {chunk}: {e}"));
            assert_eq!(p.curve(), whole.curve(), "{name}");
            assert_eq!(p.vkey_json(), whole.vkey_json(), "{name}");
            let got = p.prove_wtns(&wtns, Randomness::Seed(3)).unwrap();
            assert_eq!(got, want, "{name} in chunks of {chunk}");
        }
    }
}

#[test]
fn a_streamed_key_fails_as_the_whole_file_does() {
    let zkey = fixture("poseidon", "circuit.zkey");
    for len in cut_lengths(zkey.len()) {
        let want = err_of(KeyProver::new(&zkey[..len]));
        for chunk in [7, 4096] {
            assert_eq!(err_of(streamed(&zkey[..len], chunk)), want, "{len} bytes");
        }
    }
    // A foreign file fails at its first chunk, and so does every later push.
    let mut s = KeyStream::new();
    let wtns = fixture("poseidon", "witness.wtns");
    assert!(err_of(s.push(&wtns[..64])).contains("magic"));
    assert!(s.push(&wtns[64..]).is_err());
    assert!(err_of(s.finish()).contains("rejected"));
    // A bls12381 key streams to a bls12381 prover.
    let bls = streamed(&fixture("poseidon_bls", "circuit.zkey"), 333).unwrap();
    assert_eq!(bls.curve(), "bls12381");
}
