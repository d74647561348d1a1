//! snarkjs fixtures (circomlib circuits, snarkjs keys and witnesses): our
//! proofs equal ark-groth16's with the circom reduction and with an
//! independent naive reduction, verify under snarkjs' verification key, and
//! our public.json and vkey.json are snarkjs' byte for byte.

use crate::support::{self, read, NaiveCircom, NaiveSnarkjs, FIXTURES};
use ark_ff::UniformRand;
use ark_groth16::r1cs_to_qap::R1CSToQAP;
use ark_serialize::CanonicalSerialize;
use rand::SeedableRng;
use zkaccel_circom::*;
use zkaccel_groth16::Backend;

fn bytes<T: CanonicalSerialize>(t: &T) -> Vec<u8> {
    let mut v = Vec::new();
    t.serialize_compressed(&mut v).unwrap();
    v
}

/// The zkey's A and B rows equal the r1cs's, up to order inside a row and
/// the zero coefficients snarkjs drops.
fn assert_rows_are_the_r1cs<F: ark_ff::PrimeField>(
    name: &str,
    matrices: &[CsrMatrix<F>; 2],
    r1cs: &R1cs<F>,
) {
    for (m, matrix) in matrices.iter().enumerate() {
        let rows = matrix.to_rows();
        assert_eq!(rows.len(), r1cs.constraints.len(), "{name}");
        for (i, (row, con)) in rows.iter().zip(&r1cs.constraints).enumerate() {
            let mut ours: Vec<(usize, F)> = row.iter().map(|&(c, j)| (j, c)).collect();
            let mut theirs: Vec<_> = con[m]
                .iter()
                .copied()
                .filter(|(_, c)| !c.is_zero())
                .collect();
            ours.sort_by_key(|e| e.0);
            theirs.sort_by_key(|e| e.0);
            assert_eq!(ours, theirs, "{name}: matrix {m} row {i}");
        }
    }
}

fn check_fixture<E: CircomCurve>(name: &str) {
    let zkey = read(name, "circuit.zkey");
    assert_eq!(zkey_curve(&zkey).unwrap().name(), E::NAME, "{name}");
    let checked = read_zkey::<E>(&zkey, support::CHECKED).unwrap();
    let witness = read_wtns::<E::ScalarField>(&read(name, "witness.wtns")).unwrap();
    let r1cs = read_r1cs::<E::ScalarField>(&read(name, "circuit.r1cs")).unwrap();
    r1cs.check_witness(&witness).unwrap();
    assert_eq!(r1cs.n_public(), checked.header.n_public, "{name}");
    assert_eq!(r1cs.constraints.len(), checked.num_constraints, "{name}");
    // The zkey's A and B rows are the r1cs file's (read by separate code).
    assert_rows_are_the_r1cs(name, &checked.matrices, &r1cs);
    // Read from a file, section by section: the same key.
    let path = std::env::temp_dir().join(format!(
        "zkaccel-fixture-{name}-{}.zkey",
        std::process::id()
    ));
    std::fs::write(&path, &zkey).unwrap();
    let from_file = read_zkey_from::<E>(std::fs::File::open(&path).unwrap(), support::CHECKED);
    std::fs::remove_file(&path).unwrap();
    let from_file = from_file.unwrap();
    assert_eq!(bytes(&from_file.pk), bytes(&checked.pk), "{name}");
    assert_eq!(from_file.matrices, checked.matrices, "{name}");
    // Mapped: the same key, every query in the file. snarkjs' 12-byte
    // section headers align every other section: those are viewed as
    // points, the others read from their bytes (or, when asked, decoded),
    // so every path runs on every fixture.
    let map = support::mapped(&zkey, name);
    let key = map_zkey::<E>(&map, support::CHECKED).unwrap();
    assert_eq!(key.points_in_place(), ["A", "B1", "B2", "C", "H"], "{name}");
    assert_eq!(bytes(&key.to_proving_key()), bytes(&checked.pk), "{name}");
    let decode = support::DECODE_UNALIGNED;
    let decoded = map_zkey::<E>(&map, decode).unwrap();
    let aligned = decoded.points_in_place();
    assert!(
        (2..=3).contains(&aligned.len()),
        "{name}: {aligned:?} aligned"
    );
    // The unaligned ones are the others.
    let unaligned = key.points_unaligned();
    assert!(unaligned.iter().all(|q| !aligned.contains(q)), "{name}");
    assert_eq!(aligned.len() + unaligned.len(), 5, "{name}");
    assert_eq!(
        bytes(&decoded.to_proving_key()),
        bytes(&checked.pk),
        "{name}"
    );
    // snarkjs writes the coefficients in row order: indexed in place.
    assert!(key.matrices.iter().all(|m| m.is_mapped()), "{name}");
    assert_eq!(
        key.matrices.each_ref().map(|m| m.to_csr()),
        checked.matrices,
        "{name}"
    );
    let mapped_prover =
        CircomProver::<E>::from_zkey_map(&map, Backend::Cpu, ZkeyOptions::default()).unwrap();
    assert_eq!(
        mapped_prover.zkey().points_in_place(),
        key.points_in_place(),
        "{name}"
    );
    let decoded_prover = CircomProver::<E>::from_zkey_map(&map, Backend::Cpu, decode).unwrap();
    assert_eq!(decoded_prover.zkey().points_in_place(), aligned, "{name}");

    // vkey.json and public.json exactly as snarkjs wrote them.
    let vkey = String::from_utf8(read(name, "vkey.json")).unwrap();
    assert_eq!(vkey_json(&checked.pk.vk), vkey, "{name}: vkey.json");
    let vk = read_vkey_json::<E>(&vkey).unwrap();
    assert_eq!(bytes(&vk), bytes(&checked.pk.vk), "{name}");
    // snarkjs' own proof verifies with our reader and verifier.
    let public =
        read_public_json::<E>(&String::from_utf8(read(name, "public.json")).unwrap()).unwrap();
    let snark_proof =
        read_proof_json::<E>(&String::from_utf8(read(name, "proof.json")).unwrap()).unwrap();
    assert!(
        verify(&vk, &snark_proof, &public).unwrap(),
        "{name}: snarkjs' proof"
    );

    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(42);
    for backend in [Backend::Cpu, Backend::Auto] {
        let prover =
            CircomProver::<E>::from_zkey_bytes(&zkey, backend, ZkeyOptions::default()).unwrap();
        let z = prover.zkey();
        for _ in 0..2 {
            let (r, s) = (
                E::ScalarField::rand(&mut rng),
                E::ScalarField::rand(&mut rng),
            );
            let ours = prover.prove_with(&witness, r, s).unwrap();
            // From the mapped key: the same proof, byte for byte.
            let from_map = mapped_prover.prove_with(&witness, r, s).unwrap();
            assert_eq!(bytes(&from_map.proof), bytes(&ours.proof), "{name}: mapped");
            let from_decoded = decoded_prover.prove_with(&witness, r, s).unwrap();
            assert_eq!(
                bytes(&from_decoded.proof),
                bytes(&ours.proof),
                "{name}: decoded"
            );
            assert_eq!(
                public_json::<E>(&ours.public).into_bytes(),
                read(name, "public.json"),
                "{name}"
            );
            assert!(
                verify(&vk, &ours.proof, &ours.public).unwrap(),
                "{name}: {backend:?}"
            );
            // ark-groth16 with our CircomReduction, and with the naive one.
            let rows = z.matrices.each_ref().map(|m| m.to_csr().to_rows());
            let args = (&rows[..], z.num_inputs(), z.num_constraints, &witness[..]);
            let pk = z.to_proving_key();
            let stock = ark_groth16::Groth16::<E, CircomReduction>::create_proof_with_reduction_and_matrices(
                &pk, r, s, args.0, args.1, args.2, args.3,
            )
            .unwrap();
            let naive =
                ark_groth16::Groth16::<E, NaiveCircom>::create_proof_with_reduction_and_matrices(
                    &pk, r, s, args.0, args.1, args.2, args.3,
                )
                .unwrap();
            // snarkjs' roots, written independently.
            let snarkjs =
                ark_groth16::Groth16::<E, NaiveSnarkjs>::create_proof_with_reduction_and_matrices(
                    &pk, r, s, args.0, args.1, args.2, args.3,
                )
                .unwrap();
            assert_eq!(
                bytes(&ours.proof),
                bytes(&snarkjs),
                "{name}: {backend:?} vs naive snarkjs roots"
            );
            assert_eq!(
                bytes(&stock),
                bytes(&naive),
                "{name}: CircomReduction vs naive"
            );
            if E::NAME == "bn128" {
                // One root convention on BN254: ark-circom's reduction is ours.
                assert_eq!(
                    bytes(&ours.proof),
                    bytes(&stock),
                    "{name}: {backend:?} vs ark-groth16"
                );
            } else {
                // On BLS12-381 the arkworks-rooted reduction does not fit a
                // snarkjs key: that is why the prover uses Qap::Snarkjs.
                assert!(!verify(&vk, &stock, &ours.public).unwrap(), "{name}");
            }
        }
    }
    // The witness map itself against the naive one.
    let z = &checked;
    let rows = z.matrices.each_ref().map(|m| m.to_rows());
    let ours = CircomReduction::witness_map_from_matrices::<
        E::ScalarField,
        ark_poly::GeneralEvaluationDomain<E::ScalarField>,
    >(&rows, z.num_inputs(), z.num_constraints, &witness)
    .unwrap();
    let naive = NaiveCircom::witness_map_from_matrices::<
        E::ScalarField,
        ark_poly::GeneralEvaluationDomain<E::ScalarField>,
    >(&rows, z.num_inputs(), z.num_constraints, &witness)
    .unwrap();
    assert_eq!(ours, naive, "{name}: witness map");
    assert_eq!(ours.len(), z.header.domain_size);
}

/// `check_fixture` on `FIXTURES[index]`, which must be `name`.
fn check_fixture_at(index: usize, name: &str) {
    let (found, curve) = FIXTURES[index];
    assert_eq!(
        found, name,
        "FIXTURES[{index}] moved: update the tests below"
    );
    match curve {
        "bn128" => check_fixture::<ark_bn254::Bn254>(name),
        _ => check_fixture::<ark_bls12_381::Bls12_381>(name),
    }
}

/// One test per fixture, so that libtest runs them side by side (each one's
/// work is single-threaded: 52 s for the four in one test in CI's build).
macro_rules! fixture_tests {
    ($($test:ident: $index:literal $name:literal),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                check_fixture_at($index, $name);
            }
        )*

        #[test]
        fn every_fixture_has_its_test() {
            let tested = [$($name),*];
            let all = FIXTURES.map(|(name, _)| name);
            assert_eq!(tested, all, "add a test for each fixture to fixture_tests!");
        }
    };
}

fixture_tests!(
    snarkjs_fixture_poseidon_proves_verifies_and_matches: 0 "poseidon",
    snarkjs_fixture_merkle_proves_verifies_and_matches: 1 "merkle",
    snarkjs_fixture_nopublic_proves_verifies_and_matches: 2 "nopublic",
    snarkjs_fixture_poseidon_bls_proves_verifies_and_matches: 3 "poseidon_bls",
    snarkjs_fixture_arrays_proves_verifies_and_matches: 4 "arrays",
);

/// The zkey and wtns writers give back the files snarkjs wrote (the zkey
/// up to its contributions section, which we write empty).
#[test]
fn writers_round_trip_snarkjs_files() {
    for (name, curve) in FIXTURES {
        if curve != "bn128" {
            continue;
        }
        let wtns = read(name, "witness.wtns");
        let w = read_wtns::<ark_bn254::Fr>(&wtns).unwrap();
        assert_eq!(write_wtns(&w), wtns, "{name}");
        let zkey = read(name, "circuit.zkey");
        let z = read_zkey::<ark_bn254::Bn254>(&zkey, ZkeyOptions::default()).unwrap();
        let again = write_zkey(&z.pk, &z.matrices, z.num_constraints).unwrap();
        let z2 = read_zkey::<ark_bn254::Bn254>(&again, support::CHECKED).unwrap();
        assert_eq!(bytes(&z.pk), bytes(&z2.pk), "{name}");
        assert_eq!(z.matrices, z2.matrices, "{name}");
    }
}

/// A test key made from a circom r1cs (no ceremony) proves the circuit's
/// snarkjs witness: its A and B rows are the r1cs's, its proofs verify
/// under its own vk and not for another witness's public signals.
#[test]
fn r1cs_test_setup_proves_snarkjs_witnesses() {
    type E = ark_bn254::Bn254;
    type Fr = ark_bn254::Fr;
    for (name, curve) in FIXTURES {
        if curve != "bn128" {
            continue;
        }
        let r1cs = read_r1cs::<Fr>(&read(name, "circuit.r1cs")).unwrap();
        let witness = read_wtns::<Fr>(&read(name, "witness.wtns")).unwrap();
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(5);
        let (pk, zkey) = setup_r1cs::<E, _>(&r1cs, &mut rng).unwrap();
        let z = read_zkey::<E>(&zkey, support::CHECKED).unwrap();
        assert_eq!(bytes(&z.pk), bytes(&pk), "{name}");
        assert_eq!(z.header.n_vars, r1cs.n_wires, "{name}");
        assert_eq!(z.header.n_public, r1cs.n_public(), "{name}");
        assert_eq!(z.num_constraints, r1cs.constraints.len(), "{name}");
        assert_rows_are_the_r1cs(name, &z.matrices, &r1cs);
        let prover = CircomProver::from_parts(z, Backend::Cpu, Default::default());
        let out = prover.prove(&witness, &mut rng).unwrap();
        assert!(prover.verify(&out.proof, &out.public).unwrap(), "{name}");
        assert_eq!(out.public, witness[1..=r1cs.n_public()], "{name}");
        if !out.public.is_empty() {
            let mut other = out.public.clone();
            other[0] += Fr::from(1u64);
            assert!(!prover.verify(&out.proof, &other).unwrap(), "{name}");
        }
    }
}
