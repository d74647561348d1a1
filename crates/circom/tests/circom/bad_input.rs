//! Bad input is an error naming what is wrong, never a panic and never a
//! proof that fails later without a word.

use crate::support::{self, read};
use proptest::prelude::*;
use zkaccel_circom::*;
use zkaccel_groth16::Backend;

type E = ark_bn254::Bn254;
type Fr = ark_bn254::Fr;

/// Offsets of every section boundary in an iden3 container.
pub(crate) fn boundaries(file: &[u8]) -> Vec<usize> {
    let mut out = vec![0, 4, 8, 12];
    for (_, body) in support::sections(file) {
        out.extend([
            body.start - 8,
            body.start,
            body.start + body.len() / 2,
            body.end,
        ]);
    }
    out
}

#[test]
fn truncated_files_are_errors() {
    let zkey = read("poseidon", "circuit.zkey");
    let wtns = read("poseidon", "witness.wtns");
    let r1cs = read("poseidon", "circuit.r1cs");
    for cut in boundaries(&zkey).into_iter().filter(|&c| c < zkey.len()) {
        let e = read_zkey::<E>(&zkey[..cut], ZkeyOptions::default()).err();
        assert!(e.is_some(), "zkey cut at {cut}");
        assert!(
            zkey_curve(&zkey[..cut]).is_err() || cut > 400,
            "zkey cut at {cut}"
        );
    }
    for cut in boundaries(&wtns).into_iter().filter(|&c| c < wtns.len()) {
        assert!(read_wtns::<Fr>(&wtns[..cut]).is_err(), "wtns cut at {cut}");
    }
    for cut in boundaries(&r1cs).into_iter().filter(|&c| c < r1cs.len()) {
        assert!(read_r1cs::<Fr>(&r1cs[..cut]).is_err(), "r1cs cut at {cut}");
    }
    let e = read_zkey::<E>(&zkey[..zkey.len() - 1], ZkeyOptions::default()).unwrap_err();
    assert!(e.to_string().contains("truncated"), "{e}");
}

/// A mapped key: truncated anywhere, or with a coordinate not below the
/// modulus in any point section (aligned and used in place, unaligned and
/// read where it lies, or decoded), is an error naming the section and the
/// point.
#[test]
fn mapped_keys_check_every_point() {
    let zkey = read("poseidon", "circuit.zkey");
    for cut in boundaries(&zkey).into_iter().filter(|&c| c < zkey.len()) {
        let map = support::mapped(&zkey[..cut], "cut");
        assert!(
            map_zkey::<E>(&map, ZkeyOptions::default()).is_err(),
            "cut at {cut}"
        );
    }
    let q = E::q_le();
    let good_map = support::mapped(&zkey, "good");
    let good = map_zkey::<E>(&good_map, ZkeyOptions::default()).unwrap();
    let n_vars = good.header.n_vars;
    // Every section is in the map; the unaligned ones are decoded instead
    // when asked.
    assert_eq!(good.points_in_place(), ["A", "B1", "B2", "C", "H"]);
    let decode = support::DECODE_UNALIGNED;
    let decoded = map_zkey::<E>(&good_map, decode).unwrap();
    let aligned = decoded.points_in_place();
    assert!((2..=3).contains(&aligned.len()), "{aligned:?}");
    let mut seen = [false; 3];
    for (id, name, size, count) in [
        (5u32, "PointsA", 64usize, n_vars),
        (6, "PointsB1", 64, n_vars),
        (7, "PointsB2", 128, n_vars),
        (8, "PointsC", 64, n_vars - good.num_inputs()),
        (9, "PointsH", 64, good.header.domain_size),
    ] {
        let query = &name["Points".len()..];
        for opts in [ZkeyOptions::default(), decode] {
            // 0: aligned, in place; 1: unaligned, read in place; 2: decoded.
            let path = match (aligned.contains(&query), opts.decode_unaligned) {
                (true, _) => 0,
                (false, false) => 1,
                (false, true) => 2,
            };
            seen[path] = true;
            for k in [0, count / 2, count - 1] {
                let mut z = zkey.clone();
                // The point's y (its last coordinate) set to the modulus.
                let at = section_body(&zkey, id) + k * size + size - 32;
                z[at..at + 32].copy_from_slice(&q);
                let e = map_zkey::<E>(&support::mapped(&z, "bad"), opts)
                    .unwrap_err()
                    .to_string();
                assert!(e.contains(&format!("{name} point {k}:")), "{e}");
            }
        }
    }
    assert_eq!(seen, [true; 3], "every path covered");
}

/// The offset of section `id`'s body.
pub(crate) fn section_body(file: &[u8], id: u32) -> usize {
    let found = support::sections(file)
        .into_iter()
        .find(|(sid, _)| *sid == id);
    found.unwrap_or_else(|| panic!("no section {id}")).1.start
}

#[test]
fn bad_coefficients_are_named() {
    let zkey = read("poseidon", "circuit.zkey");
    // Section 4: a u32 count, then (matrix, constraint, signal, value).
    let first = section_body(&zkey, 4) + 4;
    // Read, and mapped (whose sorted coefficients take a parallel path):
    // the same message.
    let err = |z: &[u8]| {
        let read = read_zkey::<E>(z, ZkeyOptions::default()).unwrap_err();
        let mapped = map_zkey::<E>(&support::mapped(z, "coef"), ZkeyOptions::default());
        let mapped = mapped.unwrap_err().to_string();
        assert_eq!(read.to_string(), mapped);
        mapped
    };
    let mut z = zkey.clone();
    z[first + 12..first + 44].copy_from_slice(&[0xff; 32]);
    let e = err(&z);
    assert!(
        e.contains("coefficient 0") && e.contains("value not below r"),
        "{e}"
    );
    let mut z = zkey.clone();
    z[first..first + 4].copy_from_slice(&2u32.to_le_bytes());
    let e = err(&z);
    assert!(e.contains("coefficient 0 (matrix 2"), "{e}");
    let mut z = zkey.clone();
    z[first + 8..first + 12].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = err(&z);
    assert!(e.contains("signal not below nVars"), "{e}");
    // A header claiming a huge domain is refused by the H section's length
    // before anything of that size is allocated.
    let mut z = zkey.clone();
    let h = section_body(&zkey, 2);
    let n8q = u32::from_le_bytes(z[h..h + 4].try_into().unwrap()) as usize;
    let domain_at = h + 4 + n8q + 4 + 32 + 8;
    z[domain_at..domain_at + 4].copy_from_slice(&(1u32 << 27).to_le_bytes());
    let e = err(&z);
    assert!(e.contains("PointsH"), "{e}");
}

#[test]
fn other_protocols_curves_and_magic_are_refused() {
    let zkey = read("poseidon", "circuit.zkey");
    // Section 1 is the first: id at 12, size at 16, the protocol at 24.
    assert_eq!(&zkey[12..16], &1u32.to_le_bytes());
    for (p, name) in [(2u32, "plonk"), (10, "fflonk")] {
        let mut z = zkey.clone();
        z[24..28].copy_from_slice(&p.to_le_bytes());
        let e = read_zkey::<E>(&z, ZkeyOptions::default()).unwrap_err();
        assert!(
            matches!(e, CircomError::Unsupported { .. }) && e.to_string().contains(name),
            "{e}"
        );
    }
    let bls = read("poseidon_bls", "circuit.zkey");
    let e = read_zkey::<E>(&bls, ZkeyOptions::default()).unwrap_err();
    assert!(matches!(e, CircomError::Mismatch(_)), "{e}");
    let mut z = zkey.clone();
    z[0] = b'x';
    assert!(read_zkey::<E>(&z, ZkeyOptions::default())
        .unwrap_err()
        .to_string()
        .contains("magic"));
    // A wtns or r1cs given as a zkey.
    assert!(read_zkey::<E>(&read("poseidon", "witness.wtns"), ZkeyOptions::default()).is_err());
    assert!(read_wtns::<Fr>(&zkey).is_err());
}

#[test]
fn witnesses_of_the_wrong_length_prime_or_values_are_refused() {
    let prover = CircomProver::<E>::from_zkey_bytes(
        &read("poseidon", "circuit.zkey"),
        Backend::Cpu,
        ZkeyOptions::default(),
    )
    .unwrap();
    let w = read_wtns::<Fr>(&read("poseidon", "witness.wtns")).unwrap();
    let mut rng = rand::rngs::OsRng;
    for bad in [
        w[..w.len() - 1].to_vec(),
        [&w[..], &[Fr::from(1u64)]].concat(),
        vec![],
    ] {
        let e = prover.prove(&bad, &mut rng).unwrap_err();
        assert!(e.to_string().contains("witness length"), "{e}");
    }
    let mut zero_one = w.clone();
    zero_one[0] = Fr::from(2u64);
    assert!(prover.prove(&zero_one, &mut rng).is_err());
    // A bls12381 witness for a bn128 key.
    let e = read_wtns::<Fr>(&read("poseidon_bls", "witness.wtns")).unwrap_err();
    assert!(matches!(e, CircomError::Mismatch(_)), "{e}");
    // A value not below the prime.
    let mut f = read("poseidon", "witness.wtns");
    let n = f.len();
    f[n - 32..].copy_from_slice(&[0xff; 32]);
    assert!(read_wtns::<Fr>(&f)
        .unwrap_err()
        .to_string()
        .contains("not below the prime"));

    // A witness that violates a constraint: the r1cs names it, and without
    // it the proof does not verify (zkaccel-prover's self-check refuses it).
    let r1cs = read_r1cs::<Fr>(&read("poseidon", "circuit.r1cs")).unwrap();
    let mut bad = w.clone();
    bad[w.len() - 1] += Fr::from(1u64);
    let e = r1cs.check_witness(&bad).unwrap_err();
    assert!(matches!(e, CircomError::Unsatisfied { .. }), "{e}");
    let out = prover.prove(&bad, &mut rng).unwrap();
    assert!(!prover.verify(&out.proof, &out.public).unwrap());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Any byte flipped anywhere: an error, or a key that still proves
    /// without a panic (a flipped point coordinate decodes to another
    /// point; the self-check catches its proof).
    #[test]
    fn flipped_bytes_never_panic(pos in 0usize..1_000_000, bit in 0u8..8) {
        let zkey = read("poseidon", "circuit.zkey");
        let wtns = read("poseidon", "witness.wtns");
        let r1cs = read("poseidon", "circuit.r1cs");
        let mut z = zkey.clone();
        let p = pos % z.len();
        z[p] ^= 1 << bit;
        if let Ok(k) = read_zkey::<E>(&z, ZkeyOptions::default()) {
            let prover = CircomProver::from_parts(k, Backend::Cpu, Default::default());
            let w = read_wtns::<Fr>(&wtns).unwrap();
            let _ = prover.prove(&w, &mut rand::rngs::OsRng);
        }
        let _ = read_zkey::<E>(&z, support::CHECKED);
        let mut w = wtns.clone();
        let p = pos % w.len();
        w[p] ^= 1 << bit;
        let _ = read_wtns::<Fr>(&w);
        let mut r = r1cs.clone();
        let p = pos % r.len();
        r[p] ^= 1 << bit;
        let _ = read_r1cs::<Fr>(&r);
    }
}
