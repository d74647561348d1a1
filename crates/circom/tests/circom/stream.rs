//! [`ZkeyStream`]: a key pushed in chunks of every size decodes to the key
//! [`read_zkey`] reads from the whole file, and every malformed file fails
//! with [`read_zkey`]'s own message, the bad ones as soon as their bytes
//! arrive.

use crate::bad_input::{boundaries, section_body};
use crate::support::{self, read, FIXTURES};
use zkaccel_circom::*;

type E = ark_bn254::Bn254;

/// `bytes` pushed in chunks of `chunk` bytes, then finished.
fn streamed<C: CircomCurve>(
    bytes: &[u8],
    chunk: usize,
    opts: ZkeyOptions,
) -> Result<ProverKey<C>, CircomError> {
    let mut s = ZkeyStream::<C>::new(opts);
    for c in bytes.chunks(chunk.max(1)) {
        s.push(c)?;
    }
    assert_eq!(s.position(), bytes.len() as u64);
    s.finish()
}

/// The streamed key equals the whole file's, part by part.
fn same_key<C: CircomCurve>(bytes: &[u8], chunk: usize, opts: ZkeyOptions, name: &str) {
    let want = read_zkey::<C>(bytes, opts).unwrap();
    let got = streamed::<C>(bytes, chunk, opts)
        .unwrap_or_else(|e| panic!("{name} in chunks of {chunk}: {e}"))
        .into_zkey();
    let at = format!("{name} in chunks of {chunk}");
    assert_eq!(got.header, want.header, "{at}");
    assert_eq!(got.num_constraints, want.num_constraints, "{at}");
    assert!(got.pk == want.pk, "{at}: the proving keys differ");
    assert!(got.matrices == want.matrices, "{at}: the matrices differ");
}

#[test]
fn every_fixture_in_chunks_of_every_size_is_the_files_key() {
    for (name, curve) in FIXTURES {
        let zkey = read(name, "circuit.zkey");
        let mut sizes = vec![13, 4096, 65_537, zkey.len()];
        if zkey.len() < 10_000 {
            sizes.push(1);
        }
        for chunk in sizes {
            match curve {
                "bn128" => same_key::<E>(&zkey, chunk, ZkeyOptions::default(), name),
                _ => {
                    same_key::<ark_bls12_381::Bls12_381>(&zkey, chunk, ZkeyOptions::default(), name)
                }
            }
        }
    }
    let zkey = read("poseidon", "circuit.zkey");
    same_key::<E>(&zkey, 1000, support::CHECKED, "poseidon, points checked");
}

#[test]
fn the_curve_is_known_from_the_first_bytes() {
    for (name, curve) in FIXTURES {
        let zkey = read(name, "circuit.zkey");
        let whole = zkey_curve(&zkey).unwrap();
        assert_eq!(whole.name(), curve);
        let first = (0..zkey.len())
            .find(|&n| zkey_curve_prefix(&zkey[..n]).unwrap().is_some())
            .unwrap_or_else(|| panic!("{name}: no prefix names the curve"));
        // Sections 1 (4 bytes) and 2 up to q: 12 + 16 + 12 + 4 + n8q.
        let n8q = if curve == "bn128" { 32 } else { 48 };
        assert_eq!(first, 12 + 16 + 12 + 4 + n8q, "{name}");
        for n in [first, first + 1, zkey.len()] {
            assert_eq!(
                zkey_curve_prefix(&zkey[..n]).unwrap(),
                Some(whole),
                "{name}"
            );
        }
    }
    let mut z = read("poseidon", "circuit.zkey");
    z[0] = b'x';
    assert!(zkey_curve_prefix(&z[..12])
        .unwrap_err()
        .to_string()
        .contains("magic"));
    // Another base-field modulus.
    let mut z = read("poseidon", "circuit.zkey");
    z[44] ^= 1;
    let e = zkey_curve_prefix(&z[..100]).unwrap_err();
    assert!(matches!(e, CircomError::Unsupported { .. }), "{e}");
}

#[test]
fn truncated_streams_fail_with_the_file_readers_message() {
    let zkey = read("poseidon", "circuit.zkey");
    let mut cuts = boundaries(&zkey);
    cuts.extend([1, 11, 13, 27, zkey.len() - 1]);
    for cut in cuts.into_iter().filter(|&c| c < zkey.len()) {
        let want = read_zkey::<E>(&zkey[..cut], ZkeyOptions::default())
            .unwrap_err()
            .to_string();
        for chunk in [7, 4096] {
            let got = streamed::<E>(&zkey[..cut], chunk, ZkeyOptions::default())
                .unwrap_err()
                .to_string();
            assert_eq!(got, want, "cut at {cut}, chunks of {chunk}");
        }
    }
    // Bytes after the last section.
    let long = [&zkey[..], &[0u8; 5]].concat();
    let want = read_zkey::<E>(&long, ZkeyOptions::default()).unwrap_err();
    let got = streamed::<E>(&long, 4096, ZkeyOptions::default()).unwrap_err();
    assert_eq!(got.to_string(), want.to_string());
    assert!(got.to_string().contains("5 bytes after the last"), "{got}");
}

/// Pushes `bytes` in chunks of `chunk` until one fails: the error and the
/// offset of the chunk's end.
fn first_failure(bytes: &[u8], chunk: usize) -> Option<(CircomError, usize)> {
    let mut s = ZkeyStream::<E>::new(ZkeyOptions::default());
    for (i, c) in bytes.chunks(chunk).enumerate() {
        if let Err(e) = s.push(c) {
            // Every later push, and the end, fail too.
            assert!(s.push(&[0]).is_err());
            assert!(s.finish().is_err());
            return Some((e, (i + 1) * chunk));
        }
    }
    None
}

#[test]
fn bad_points_fail_when_they_arrive_naming_the_point() {
    let zkey = read("poseidon", "circuit.zkey");
    let good = read_zkey::<E>(&zkey, ZkeyOptions::default()).unwrap();
    let (n_vars, n) = (good.header.n_vars, good.header.domain_size);
    let q = E::q_le();
    for (id, name, size, count) in [
        (5u32, "PointsA", 64usize, n_vars),
        (6, "PointsB1", 64, n_vars),
        (7, "PointsB2", 128, n_vars),
        (8, "PointsC", 64, n_vars - good.num_inputs()),
        (9, "PointsH", 64, n),
    ] {
        for k in [0, count / 2, count - 1] {
            let mut z = zkey.clone();
            let at = section_body(&zkey, id) + k * size + size - 32;
            z[at..at + 32].copy_from_slice(&q);
            let want = read_zkey::<E>(&z, ZkeyOptions::default()).unwrap_err();
            // Chunks of 100 bytes split points; the error comes with the
            // chunk that completes the bad point.
            let (e, end) = first_failure(&z, 100).expect("a bad point is an error");
            assert!(e.to_string().contains(&format!("{name} point {k}:")), "{e}");
            assert_eq!(e.to_string(), want.to_string());
            assert!(
                end >= at + 32 && end < at + 32 + 100,
                "{name} {k}: failed at {end}"
            );
        }
    }
}

#[test]
fn foreign_files_fail_at_their_first_chunk() {
    let zkey = read("poseidon", "circuit.zkey");
    // Another protocol: section 1's body at 24..28.
    let mut z = zkey.clone();
    z[24..28].copy_from_slice(&2u32.to_le_bytes());
    let (e, end) = first_failure(&z, 64).unwrap();
    assert!(matches!(e, CircomError::Unsupported { .. }) && e.to_string().contains("plonk"));
    assert_eq!(end, 64);
    // Another curve's key.
    let bls = read("poseidon_bls", "circuit.zkey");
    let (e, end) = first_failure(&bls, 4096).unwrap();
    assert!(matches!(e, CircomError::Mismatch(_)), "{e}");
    assert_eq!(end, 4096);
    // Another file.
    let (e, _) = first_failure(&read("poseidon", "witness.wtns"), 64).unwrap();
    assert!(e.to_string().contains("magic"), "{e}");
    // A header whose domain does not match the H section: the section's
    // first bytes fail with the file reader's message.
    let mut z = zkey.clone();
    let h = section_body(&zkey, 2) + 4 + 32 + 4 + 32 + 8;
    let d = u32::from_le_bytes(z[h..h + 4].try_into().unwrap());
    z[h..h + 4].copy_from_slice(&(2 * d).to_le_bytes());
    let want = read_zkey::<E>(&z, ZkeyOptions::default()).unwrap_err();
    let (e, end) = first_failure(&z, 1024).unwrap();
    assert_eq!(e.to_string(), want.to_string());
    assert!(e.to_string().contains("PointsH"), "{e}");
    assert!(end < section_body(&zkey, 9) + 1024, "failed at {end}");
}

#[test]
fn a_repeated_point_section_is_refused() {
    let zkey = read("poseidon", "circuit.zkey");
    let secs = support::sections(&zkey);
    let (_, a) = secs.iter().find(|(id, _)| *id == 5).unwrap().clone();
    // Section 5 again at the end, the count one more.
    let mut z = zkey.clone();
    let count = u32::from_le_bytes(z[8..12].try_into().unwrap());
    z[8..12].copy_from_slice(&(count + 1).to_le_bytes());
    z.extend_from_slice(&zkey[a.start - 12..a.end]);
    let want = read_zkey::<E>(&z, ZkeyOptions::default()).unwrap_err();
    let (e, _) = first_failure(&z, 4096).unwrap();
    assert_eq!(e.to_string(), want.to_string());
    assert!(e.to_string().contains("more than once"), "{e}");
}

#[test]
fn a_streamed_key_proves_as_the_files_key() {
    use rand::SeedableRng;
    let zkey = read("poseidon", "circuit.zkey");
    let w = read_wtns::<ark_bn254::Fr>(&read("poseidon", "witness.wtns")).unwrap();
    let backend = zkaccel_groth16::Backend::Cpu;
    let a = CircomProver::from_key(
        streamed::<E>(&zkey, 3000, ZkeyOptions::default()).unwrap(),
        backend,
        Default::default(),
    );
    let b = CircomProver::<E>::from_zkey_bytes(&zkey, backend, ZkeyOptions::default()).unwrap();
    let seeded = || rand_chacha::ChaCha20Rng::seed_from_u64(7);
    let (pa, pb) = (
        a.prove(&w, &mut seeded()).unwrap(),
        b.prove(&w, &mut seeded()).unwrap(),
    );
    assert_eq!(pa.proof, pb.proof);
    assert!(a.verify(&pa.proof, &pa.public).unwrap());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 48, ..Default::default() })]

    /// Any byte flipped, or the file cut, and streamed in chunks of any
    /// size: the stream accepts exactly what the whole-file reader
    /// accepts, as the same key.
    #[test]
    fn a_stream_accepts_what_the_file_reader_accepts(
        pos in 0usize..1_000_000,
        bit in 0u8..8,
        cut in proptest::option::of(0usize..1_000_000),
        chunk in 1usize..70_000,
    ) {
        let mut z = read("poseidon", "circuit.zkey");
        let p = pos % z.len();
        z[p] ^= 1 << bit;
        if let Some(c) = cut {
            z.truncate(c % z.len());
        }
        let whole = read_zkey::<E>(&z, ZkeyOptions::default());
        let streamed = streamed::<E>(&z, chunk, ZkeyOptions::default());
        match (whole, streamed) {
            (Ok(a), Ok(b)) => {
                let b = b.into_zkey();
                proptest::prop_assert!(a.pk == b.pk && a.matrices == b.matrices);
            }
            (Err(_), Err(_)) => {}
            (a, b) => proptest::prop_assert!(false, "whole: {:?}; streamed: {:?}", a.err(), b.err()),
        }
    }
}

/// A header claiming 2^28 signals, a point section claiming their 16 GiB,
/// and the file ending soon after: the truncation error `read_zkey` gives,
/// with no room reserved for what was only claimed (the vector grows with
/// the points that arrive).
#[test]
fn a_huge_claim_on_a_short_file_is_a_truncation() {
    let zkey = read("poseidon", "circuit.zkey");
    let n_vars = 1u32 << 28;
    let a = section_body(&zkey, 5);
    let mut z = zkey[..a + 1000].to_vec();
    let at = section_body(&zkey, 2) + 72;
    z[at..at + 4].copy_from_slice(&n_vars.to_le_bytes());
    z[a - 8..a].copy_from_slice(&(u64::from(n_vars) * 64).to_le_bytes());
    let want = read_zkey::<E>(&z, ZkeyOptions::default()).unwrap_err();
    let got = streamed::<E>(&z, 4096, ZkeyOptions::default()).unwrap_err();
    assert_eq!(got.to_string(), want.to_string());
    assert!(got.to_string().contains("truncated"), "{got}");
}
