//! `zkaccel-prover` as a rapidsnark user runs it: proofs of every fixture
//! checked by our verifier and, where snarkjs is installed (ZKACCEL_SNARKJS,
//! set by .ci/run through scripts/circom-fixtures.sh --install), by
//! `snarkjs groth16 verify`; an exported arkworks circuit proved by snarkjs;
//! errors as one line and a non-zero status.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use support::{fixture, skip, snarkjs, FIXTURES};

const BIN: &str = env!("CARGO_BIN_EXE_zkaccel-prover");

fn out_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{name}"));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(args: &[&Path]) -> std::process::Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn snarkjs_run(cmd: &str, args: &[&Path]) -> std::process::Output {
    Command::new(cmd).args(args).output().unwrap()
}

#[test]
fn proves_every_fixture_and_verifiers_accept() {
    let snark = snarkjs();
    if snark.is_none() {
        skip("snarkjs groth16 verify of zkaccel-prover's proofs: ZKACCEL_SNARKJS is not set (scripts/circom-fixtures.sh --install prints it); checked with ark-groth16's verifier only");
    }
    for (name, _) in FIXTURES {
        let d = out_dir(name);
        let (proof, public) = (d.join("proof.json"), d.join("public.json"));
        let o = Command::new(BIN)
            .args(["--timings", "--backend", "cpu", "--r1cs"])
            .arg(fixture(name, "circuit.r1cs"))
            .args([
                fixture(name, "circuit.zkey"),
                fixture(name, "witness.wtns"),
                proof.clone(),
                public.clone(),
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{name}: {err}");
        assert!(
            err.contains("load zkey") && err.contains("msm A"),
            "{name}: {err}"
        );
        assert_eq!(
            std::fs::read(&public).unwrap(),
            std::fs::read(fixture(name, "public.json")).unwrap(),
            "{name}"
        );
        let vkey = fixture(name, "vkey.json");
        let o = run(&[Path::new("verify"), &vkey, &public, &proof]);
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        if let Some(s) = &snark {
            let o = snarkjs_run(
                s,
                &[
                    Path::new("groth16"),
                    Path::new("verify"),
                    &vkey,
                    &public,
                    &proof,
                ],
            );
            let out = String::from_utf8_lossy(&o.stdout);
            assert!(
                o.status.success() && out.contains("OK"),
                "{name}: snarkjs: {out}"
            );
        }
        // The verifier rejects the proof for other public signals.
        if name == "poseidon" {
            std::fs::write(&public, "[\n \"1\",\n \"1\"\n]").unwrap();
            let o = run(&[Path::new("verify"), &vkey, &public, &proof]);
            assert_eq!(o.status.code(), Some(1), "{name}");
        }
    }
}

#[test]
fn an_exported_arkworks_circuit_is_proved_by_snarkjs() {
    let d = out_dir("export");
    let o = run(&[
        Path::new("export-example"),
        Path::new("mimc"),
        Path::new("64"),
        &d,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (zkey, wtns, vkey) = (
        d.join("circuit.zkey"),
        d.join("witness.wtns"),
        d.join("vkey.json"),
    );
    let (proof, public) = (d.join("proof.json"), d.join("public.json"));
    // Our own prover on the exported files first.
    let o = run(&[&zkey, &wtns, &proof, &public]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&[Path::new("verify"), &vkey, &public, &proof]);
    assert!(o.status.success());
    let Some(s) = snarkjs() else {
        skip("snarkjs groth16 prove of an exported arkworks circuit: ZKACCEL_SNARKJS is not set");
        return;
    };
    let (sp, spub) = (d.join("snarkjs-proof.json"), d.join("snarkjs-public.json"));
    let o = snarkjs_run(
        &s,
        &[
            Path::new("groth16"),
            Path::new("prove"),
            &zkey,
            &wtns,
            &sp,
            &spub,
        ],
    );
    assert!(
        o.status.success(),
        "snarkjs prove: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        std::fs::read(&spub).unwrap(),
        std::fs::read(&public).unwrap()
    );
    // snarkjs' proof of our export, checked by ark-groth16's verifier.
    let o = run(&[Path::new("verify"), &vkey, &spub, &sp]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `test-setup` on a circom-compiled r1cs: zkaccel-prover proves the
/// circuit's snarkjs witness with the new key, and snarkjs proves with it
/// and accepts zkaccel's proof.
#[test]
fn a_test_setup_of_a_circom_r1cs_is_proved_by_both() {
    let d = out_dir("test-setup");
    let o = run(&[
        Path::new("test-setup"),
        &fixture("merkle", "circuit.r1cs"),
        &d,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (zkey, vkey, wtns) = (
        d.join("circuit.zkey"),
        d.join("vkey.json"),
        fixture("merkle", "witness.wtns"),
    );
    let (proof, public) = (d.join("proof.json"), d.join("public.json"));
    let o = run(&[&zkey, &wtns, &proof, &public]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read(&public).unwrap(),
        std::fs::read(fixture("merkle", "public.json")).unwrap()
    );
    let o = run(&[Path::new("verify"), &vkey, &public, &proof]);
    assert!(o.status.success());
    // Not the fixture's own (ceremony) key: its vk rejects this proof.
    let o = run(&[
        Path::new("verify"),
        &fixture("merkle", "vkey.json"),
        &public,
        &proof,
    ]);
    assert!(!o.status.success());
    let Some(s) = snarkjs() else {
        skip("snarkjs on a test-setup key: ZKACCEL_SNARKJS is not set");
        return;
    };
    let groth16 = Path::new("groth16");
    let o = snarkjs_run(&s, &[groth16, Path::new("verify"), &vkey, &public, &proof]);
    assert!(
        o.status.success(),
        "snarkjs verify: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    let (sp, spub) = (d.join("snarkjs-proof.json"), d.join("snarkjs-public.json"));
    let o = snarkjs_run(&s, &[groth16, Path::new("prove"), &zkey, &wtns, &sp, &spub]);
    assert!(
        o.status.success(),
        "snarkjs prove: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = run(&[Path::new("verify"), &vkey, &spub, &sp]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn errors_are_one_line_and_non_zero() {
    let d = out_dir("errors");
    let zkey = fixture("poseidon", "circuit.zkey");
    let wtns = fixture("poseidon", "witness.wtns");
    let bls_wtns = fixture("poseidon_bls", "witness.wtns");
    let missing = d.join("missing.zkey");
    let unwritable = Path::new("/nonexistent-dir/proof.json");
    let (p, q) = (d.join("p.json"), d.join("q.json"));
    let cases: Vec<(Vec<&Path>, &str)> = vec![
        (vec![&missing, &wtns, &p, &q], "missing.zkey"),
        (vec![&zkey, &wtns, unwritable, &q], "nonexistent-dir"),
        (vec![&zkey, &bls_wtns, &p, &q], "another prime"),
        (vec![&wtns, &wtns, &p, &q], "magic"),
        (vec![&zkey, &wtns, &p], "expected <circuit.zkey>"),
    ];
    for (args, needle) in cases {
        let o = run(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
    // A witness that violates a constraint: named with --r1cs, refused by
    // the self-check without it; no proof is written either way.
    let w = std::fs::read(&wtns).unwrap();
    let mut bad = w.clone();
    let n = bad.len();
    bad[n - 32] ^= 1;
    let bad_path = d.join("bad.wtns");
    std::fs::write(&bad_path, &bad).unwrap();
    let _ = std::fs::remove_file(&p);
    let r1cs = fixture("poseidon", "circuit.r1cs");
    let o = run(&[Path::new("--r1cs"), &r1cs, &zkey, &bad_path, &p, &q]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("does not satisfy constraint"));
    let o = run(&[&zkey, &bad_path, &p, &q]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("does not verify"));
    assert_eq!(
        std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0),
        0,
        "no proof written"
    );
}

#[test]
fn info_prints_the_keys_sizes_and_the_kernels() {
    // Wires, outputs + public inputs and constraints as `snarkjs r1cs info`
    // reports them for the fixtures' circuit.r1cs; the domain is the power
    // of two above constraints + public + 1.
    for (name, want) in [
        (
            "poseidon",
            "curve bn128 | signals 520 | public 2 | constraints 517 | domain 2^10",
        ),
        (
            "merkle",
            "curve bn128 | signals 2086 | public 1 | constraints 2080 | domain 2^12",
        ),
        (
            "nopublic",
            "curve bn128 | signals 5 | public 0 | constraints 2 | domain 2^2",
        ),
        (
            "poseidon_bls",
            "curve bls12381 | signals 520 | public 2 | constraints 517 | domain 2^10",
        ),
    ] {
        let o = run(&[Path::new("info"), &fixture(name, "circuit.zkey")]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(out.lines().next().unwrap().contains(want), "{name}: {out}");
        assert!(
            out.lines().nth(1).unwrap().starts_with("kernels: "),
            "{name}: {out}"
        );
    }
    let o = run(&[Path::new("info"), &fixture("poseidon", "witness.wtns")]);
    assert!(!o.status.success());
    assert_eq!(
        String::from_utf8_lossy(&o.stderr)
            .trim_end()
            .lines()
            .count(),
        1
    );
}
