//! From `input.json` to a verified proof: `zkaccel-prover fullprove` and
//! `wtns calculate` on every fixture (witnesses byte for byte snarkjs',
//! proofs accepted by our verifier and, where ZKACCEL_SNARKJS names snarkjs,
//! by `snarkjs groth16 verify`; `snarkjs wtns calculate` run live beside
//! ours), `--witness-bin` with generators standing in for circom's C++ one,
//! every bad input and module refused in one line with no proof written,
//! and `CircomProver::prove_inputs` in Rust.

use crate::support::{fixture, skip, snarkjs, FIXTURES};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use zkaccel_circom::witness::{Inputs, WitnessCalculator, WitnessError};
use zkaccel_circom::{read_wtns, CircomError, CircomProver, ZkeyOptions};
use zkaccel_groth16::Backend;

const BIN: &str = env!("CARGO_BIN_EXE_zkaccel-prover");

fn out_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fullprove-{name}"));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// zkaccel-prover with its compiled-module cache in the test's own folder
/// (not the user's ~/.cache).
fn zk() -> Command {
    let mut c = Command::new(BIN);
    c.env(
        "ZKACCEL_WASM_CACHE",
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("fullprove-wasm-cache"),
    );
    c
}

fn run<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    zk().args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn fullprove_every_fixture_and_verifiers_accept() {
    let snark = snarkjs();
    if snark.is_none() {
        skip("snarkjs groth16 verify of fullprove's proofs: ZKACCEL_SNARKJS is not set (scripts/circom-fixtures.sh --install prints it); checked with zkaccel-prover verify only");
    }
    for (name, _) in FIXTURES {
        let d = out_dir(name);
        let (proof, public) = (d.join("proof.json"), d.join("public.json"));
        let _ = std::fs::remove_file(&proof);
        let o = zk()
            .args(["fullprove", "--timings", "--backend", "cpu"])
            .args([
                fixture(name, "input.json"),
                fixture(name, "circuit.wasm"),
                fixture(name, "circuit.zkey"),
                proof.clone(),
                public.clone(),
            ])
            .output()
            .unwrap();
        let err = stderr(&o);
        assert!(o.status.success(), "{name}: {err}");
        assert!(
            (err.contains("compile wasm") || err.contains("wasm from cache"))
                && err.contains("witness (wasm)")
                && err.contains("msm A"),
            "{name}: {err}"
        );
        assert_eq!(
            std::fs::read(&public).unwrap(),
            std::fs::read(fixture(name, "public.json")).unwrap(),
            "{name}: public.json differs from snarkjs'"
        );
        let vkey = fixture(name, "vkey.json");
        let o = run(&[Path::new("verify"), &vkey, &public, &proof]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        if let Some(s) = &snark {
            let o = Command::new(s)
                .args(["groth16", "verify"])
                .args([&vkey, &public, &proof])
                .output()
                .unwrap();
            let said = String::from_utf8_lossy(&o.stdout);
            assert!(
                o.status.success() && said.contains("OK"),
                "{name}: snarkjs: {said}"
            );
        }
    }
}

/// The compiled module is kept between runs (ZKACCEL_WASM_CACHE) and
/// reused; `off` compiles every time; the proofs verify either way.
#[test]
fn compiled_wasm_cached_between_runs() {
    let d = out_dir("cache");
    let cache = d.join("cache");
    let _ = std::fs::remove_dir_all(&cache);
    let (p, q) = (d.join("p.json"), d.join("q.json"));
    let name = "nopublic";
    let prove = |cache: &std::ffi::OsStr| {
        let o = Command::new(BIN)
            .env("ZKACCEL_WASM_CACHE", cache)
            .args(["fullprove", "--timings"])
            .args([
                fixture(name, "input.json"),
                fixture(name, "circuit.wasm"),
                fixture(name, "circuit.zkey"),
                p.clone(),
                q.clone(),
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        let o2 = run(&[Path::new("verify"), &fixture(name, "vkey.json"), &q, &p]);
        assert!(o2.status.success(), "{}", stderr(&o2));
        stderr(&o)
    };
    assert!(prove(cache.as_os_str()).contains("compile wasm"));
    assert!(prove(cache.as_os_str()).contains("wasm from cache"));
    assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 1);
    assert!(prove("off".as_ref()).contains("compile wasm"));
    assert!(prove("off".as_ref()).contains("compile wasm"));
}

#[test]
fn wtns_calculate_writes_snarkjs_bytes() {
    let snark = snarkjs();
    if snark.is_none() {
        skip("snarkjs wtns calculate run live: ZKACCEL_SNARKJS is not set; compared with the committed witness.wtns (snarkjs') only");
    }
    for (name, _) in FIXTURES {
        let d = out_dir(name);
        let ours = d.join("ours.wtns");
        let (wasm, input) = (fixture(name, "circuit.wasm"), fixture(name, "input.json"));
        let o = run(&[
            Path::new("wtns"),
            Path::new("calculate"),
            &wasm,
            &input,
            &ours,
        ]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let ours = std::fs::read(&ours).unwrap();
        assert!(
            ours == std::fs::read(fixture(name, "witness.wtns")).unwrap(),
            "{name}: differs from the committed snarkjs witness"
        );
        if let Some(s) = &snark {
            let theirs = d.join("theirs.wtns");
            let o = Command::new(s)
                .args(["wtns", "calculate"])
                .args([&wasm, &input, &theirs])
                .output()
                .unwrap();
            assert!(o.status.success(), "{name}: snarkjs: {}", stderr(&o));
            assert!(
                ours == std::fs::read(&theirs).unwrap(),
                "{name}: differs from snarkjs wtns calculate"
            );
        }
    }
}

/// A failed command: non-zero, one line naming `needle` (beside the
/// circuit's own `log()` lines, printed as it ran), and no proof.
fn assert_refused(args: &[&Path], proof: &Path, needle: &str) {
    let _ = std::fs::remove_file(proof);
    let o = run(args);
    let err = stderr(&o);
    assert!(!o.status.success(), "{args:?} succeeded");
    assert!(err.contains(needle), "{args:?}: {err}");
    let ours = err
        .lines()
        .filter(|l| !l.starts_with("[INFO  circom]"))
        .count();
    assert_eq!(ours, 1, "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(!proof.exists(), "{args:?}: a proof was written");
}

#[test]
fn bad_inputs_and_modules_refused_in_one_line() {
    let d = out_dir("errors");
    let (p, q) = (d.join("p.json"), d.join("q.json"));
    let fp = Path::new("fullprove");
    let wasm = fixture("arrays", "circuit.wasm");
    let zkey = fixture("arrays", "circuit.zkey");
    let input = |name: &str, text: &str| {
        let f = d.join(name);
        std::fs::write(&f, text).unwrap();
        f
    };
    let cases = [
        (
            input(
                "unknown.json",
                r#"{"a": [[1,2,3],[4,5,6]], "k": 1, "x": 2}"#,
            ),
            "input signal `x` not found",
        ),
        (
            input("count.json", r#"{"a": [[1,2,3],[4,5]], "k": 1}"#),
            "not enough values for input signal `a`: the circuit takes 6, the input gives 5",
        ),
        (
            input("nan.json", r#"{"a": [[1,2,3],[4,"five",6]], "k": 1}"#),
            "input signal `a`, value 4: \"five\" is not an integer",
        ),
        (
            input("missing.json", r#"{"a": [[1,2,3],[4,5,6]]}"#),
            "only 6 out of 7",
        ),
        (
            input("assert.json", r#"{"a": [[1,2,3],[4,5,6]], "k": 2}"#),
            "Assert Failed. Error in template Main_",
        ),
        (
            input("syntax.json", r#"{"a": [[1,2,3],[4,5,6]], "k": 1"#),
            "syntax.json: ",
        ),
    ];
    for (file, needle) in &cases {
        assert_refused(&[fp, file, &wasm, &zkey, &p, &q], &p, needle);
    }
    let good = fixture("arrays", "input.json");
    let bytes = std::fs::read(&wasm).unwrap();
    let truncated = input("truncated.wasm", "");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let modules = [
        (truncated, "truncated.wasm: not a circom witness calculator"),
        (
            zkey.clone(),
            "circuit.zkey: not a circom witness calculator",
        ),
        (fixture("poseidon_bls", "circuit.wasm"), "another prime"),
        (
            fixture("poseidon", "circuit.wasm"),
            "the wasm's witness has 520 signals, the zkey 14",
        ),
        (d.join("absent.wasm"), "absent.wasm"),
    ];
    for (module, needle) in &modules {
        assert_refused(&[fp, &good, module, &zkey, &p, &q], &p, needle);
    }
    assert_refused(
        &[fp, &good, &wasm, &zkey, &p],
        &p,
        "fullprove expects <input.json>",
    );
    // wtns calculate: the same errors, no file written.
    let out = d.join("out.wtns");
    let (file, needle) = &cases[0];
    assert_refused(
        &[Path::new("wtns"), Path::new("calculate"), &wasm, file, &out],
        &out,
        needle,
    );
}

/// A stand-in for circom's C++ generator (`circuit input.json out.wtns`):
/// a shell script doing `body`.
fn generator(d: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let f = d.join(name);
    std::fs::write(&f, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).unwrap();
    f
}

#[test]
fn witness_bin_runs_a_generator_and_checks_its_witness() {
    let d = out_dir("native");
    let (p, q) = (d.join("p.json"), d.join("q.json"));
    let zkey = fixture("merkle", "circuit.zkey");
    let input = fixture("merkle", "input.json");
    let wb = Path::new("--witness-bin");
    let fp = Path::new("fullprove");
    // The generator's protocol: arguments input.json and the output path.
    let copy = generator(
        &d,
        "copy.sh",
        &format!(
            "[ \"$1\" = '{}' ] || exit 3\ncp '{}' \"$2\"",
            input.display(),
            fixture("merkle", "witness.wtns").display()
        ),
    );
    let _ = std::fs::remove_file(&p);
    let o = run(&[fp, wb, &copy, &input, &zkey, &p, &q]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(&q).unwrap(),
        std::fs::read(fixture("merkle", "public.json")).unwrap()
    );
    let o = run(&[Path::new("verify"), &fixture("merkle", "vkey.json"), &q, &p]);
    assert!(o.status.success(), "{}", stderr(&o));

    let fails = generator(
        &d,
        "fails.sh",
        "echo 'Error: Assert Failed. in template Main line 9' >&2\nexit 1",
    );
    assert_refused(
        &[fp, wb, &fails, &input, &zkey, &p, &q],
        &p,
        "Assert Failed. in template Main line 9",
    );
    let silent = generator(&d, "silent.sh", "exit 0");
    assert_refused(
        &[fp, wb, &silent, &input, &zkey, &p, &q],
        &p,
        "malformed wtns",
    );
    let other = generator(
        &d,
        "other.sh",
        &format!(
            "cp '{}' \"$2\"",
            fixture("poseidon_bls", "witness.wtns").display()
        ),
    );
    assert_refused(
        &[fp, wb, &other, &input, &zkey, &p, &q],
        &p,
        "another prime",
    );
    let short = generator(
        &d,
        "short.sh",
        &format!(
            "cp '{}' \"$2\"",
            fixture("poseidon", "witness.wtns").display()
        ),
    );
    assert_refused(
        &[fp, wb, &short, &input, &zkey, &p, &q],
        &p,
        "invalid witness length",
    );
    assert_refused(
        &[fp, wb, &d.join("absent"), &input, &zkey, &p, &q],
        &p,
        "absent",
    );
}

#[test]
fn prove_inputs_in_rust() {
    type E = ark_bn254::Bn254;
    for name in ["arrays", "poseidon", "nopublic"] {
        let zkey = std::fs::read(fixture(name, "circuit.zkey")).unwrap();
        let calc = WitnessCalculator::from_file(fixture(name, "circuit.wasm")).unwrap();
        let prover =
            CircomProver::<E>::from_zkey_bytes(&zkey, Backend::Cpu, ZkeyOptions::default())
                .unwrap()
                .with_calculator(calc)
                .unwrap();
        let inputs = Inputs::from_file(fixture(name, "input.json")).unwrap();
        let snark_witness =
            read_wtns::<ark_bn254::Fr>(&std::fs::read(fixture(name, "witness.wtns")).unwrap())
                .unwrap();
        assert_eq!(
            prover.calculate_witness(&inputs).unwrap(),
            snark_witness,
            "{name}"
        );
        let mut rng = rand::rngs::OsRng;
        let out = prover.prove_inputs(&inputs, &mut rng).unwrap();
        assert!(prover.verify(&out.proof, &out.public).unwrap(), "{name}");
        assert_eq!(
            out.public,
            snark_witness[1..prover.zkey().num_inputs()],
            "{name}"
        );
        assert!(out.witness_time > std::time::Duration::ZERO);
    }
    // Errors come back typed.
    let zkey = std::fs::read(fixture("arrays", "circuit.zkey")).unwrap();
    let prover =
        CircomProver::<E>::from_zkey_bytes(&zkey, Backend::Cpu, ZkeyOptions::default()).unwrap();
    let inputs = Inputs::from_file(fixture("arrays", "input.json")).unwrap();
    assert!(matches!(
        prover.prove_inputs(&inputs, &mut rand::rngs::OsRng),
        Err(CircomError::Mismatch(_))
    ));
    let prover = prover
        .with_calculator(WitnessCalculator::from_file(fixture("arrays", "circuit.wasm")).unwrap())
        .unwrap();
    let bad = Inputs::from_json(r#"{"a": [[1,2,3],[4,5,6]], "k": 2}"#).unwrap();
    match prover.prove_inputs(&bad, &mut rand::rngs::OsRng) {
        Err(CircomError::Witness(WitnessError::Circuit { message })) => {
            assert!(message.starts_with("Assert Failed."), "{message}")
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
    let bls = WitnessCalculator::from_file(fixture("poseidon_bls", "circuit.wasm")).unwrap();
    let prover =
        CircomProver::<E>::from_zkey_bytes(&zkey, Backend::Cpu, ZkeyOptions::default()).unwrap();
    assert!(
        matches!(prover.with_calculator(bls), Err(CircomError::Mismatch(m)) if m.contains("another prime"))
    );
}

/// circom's own C++ generator (built by `scripts/circom-fixtures.sh --cpp`,
/// which prints the folder ZKACCEL_CIRCOM_CPP names): its witness equals
/// the wasm's, `fullprove --witness-bin` proves with it, and its failures
/// reach the user in its own words.
#[test]
fn witness_bin_with_circoms_cpp_generator() {
    let Some(root) = std::env::var_os("ZKACCEL_CIRCOM_CPP").filter(|s| !s.is_empty()) else {
        skip("circom's C++ witness generators: ZKACCEL_CIRCOM_CPP is not set (scripts/circom-fixtures.sh --cpp builds them and prints it); --witness-bin checked with stand-in generators only");
        return;
    };
    let root = PathBuf::from(root);
    let d = out_dir("cpp");
    let (p, q) = (d.join("p.json"), d.join("q.json"));
    let (fp, wb) = (Path::new("fullprove"), Path::new("--witness-bin"));
    // circom's generator takes no negative values: the arrays input without one.
    let arrays_input = d.join("arrays.json");
    std::fs::write(
        &arrays_input,
        r#"{"a": [["1", "2", "3"], [4, "0x5", "6"]], "k": "1"}"#,
    )
    .unwrap();
    for name in ["poseidon", "merkle", "nopublic", "arrays"] {
        let bin = root.join(name).join(name);
        assert!(bin.exists(), "{}: not built", bin.display());
        let input = match name {
            "arrays" => arrays_input.clone(),
            _ => fixture(name, "input.json"),
        };
        let native = zkaccel_circom::native_witness::<ark_bn254::Fr>(&bin, &input).unwrap();
        let calc = WitnessCalculator::from_file(fixture(name, "circuit.wasm")).unwrap();
        let wasm = calc
            .calculate::<ark_bn254::Fr>(&Inputs::from_file(&input).unwrap())
            .unwrap();
        assert_eq!(native, wasm, "{name}: the C++ and wasm witnesses differ");
        let _ = std::fs::remove_file(&p);
        let o = run(&[fp, wb, &bin, &input, &fixture(name, "circuit.zkey"), &p, &q]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let o = run(&[Path::new("verify"), &fixture(name, "vkey.json"), &q, &p]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
    }
    let bin = root.join("arrays").join("arrays");
    let zkey = fixture("arrays", "circuit.zkey");
    let bad = d.join("bad.json");
    std::fs::write(&bad, r#"{"a": [[1,2,3],[4,5,6]], "k": 2}"#).unwrap();
    assert_refused(
        &[fp, wb, &bin, &bad, &zkey, &p, &q],
        &p,
        "Failed assert in template/function Main line",
    );
    assert_refused(
        &[
            fp,
            wb,
            &bin,
            &fixture("arrays", "input.json"),
            &zkey,
            &p,
            &q,
        ],
        &p,
        "Invalid number in JSON input: -6",
    );
}
