//! The calculator against the witnesses snarkjs computed for the committed
//! circom fixtures (crates/circom/tests/fixtures: circuit.wasm, input.json,
//! witness.wtns from circom's own calculator), and every bad input and bad
//! module refused with its own error.

use std::io::Write;
use std::path::PathBuf;
use zkaccel_witness::{CalculatorOptions, Inputs, WitnessCalculator, WitnessError};

fn cached(dir: &std::path::Path) -> CalculatorOptions {
    CalculatorOptions::new().cache(Some(dir.to_path_buf()))
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../circom/tests/fixtures")
        .join(name)
}

fn calculator(name: &str) -> WitnessCalculator {
    WitnessCalculator::from_file(fixture(name).join("circuit.wasm")).unwrap()
}

fn inputs(name: &str) -> Inputs {
    Inputs::from_file(fixture(name).join("input.json")).unwrap()
}

const BN254: [&str; 4] = ["poseidon", "merkle", "nopublic", "arrays"];

#[test]
fn wtns_is_snarkjs_byte_for_byte() {
    for name in BN254.iter().chain(&["poseidon_bls"]) {
        let calc = calculator(name);
        let ours = calc.calculate_wtns(&inputs(name)).unwrap();
        let theirs = std::fs::read(fixture(name).join("witness.wtns")).unwrap();
        assert_eq!(ours.len(), theirs.len(), "{name}");
        assert!(ours == theirs, "{name}: the .wtns differs from snarkjs'");
    }
}

/// The host's products ([`CalculatorOptions::native_products`], on by
/// default) give the witness the module's own code gives, on every fixture
/// (both fields) and on random inputs; off, the module runs as compiled.
#[test]
fn native_products_give_the_modules_own_witness() {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(17);
    for name in BN254.iter().chain(&["poseidon_bls"]) {
        let path = fixture(name).join("circuit.wasm");
        let native = WitnessCalculator::from_file(&path).unwrap();
        let own = WitnessCalculator::from_file_with(
            &path,
            &CalculatorOptions::new().native_products(false),
        )
        .unwrap();
        assert!(
            native.native_products(),
            "{name}: the host's products are not in use"
        );
        assert!(!own.native_products(), "{name}: switched off, still in use");
        let fixed = inputs(name);
        assert!(
            native.calculate_wtns(&fixed).unwrap() == own.calculate_wtns(&fixed).unwrap(),
            "{name}: the fixture's witness differs"
        );
        for round in 0..4 {
            let random = random_inputs(name, &mut rng);
            match (native.calculate_wtns(&random), own.calculate_wtns(&random)) {
                (Ok(a), Ok(b)) => {
                    assert!(a == b, "{name}, random inputs {round}: witnesses differ")
                }
                (Err(a), Err(b)) => {
                    assert_eq!(a.to_string(), b.to_string(), "{name}: errors differ")
                }
                (a, b) => panic!(
                    "{name}, random inputs {round}: {:?} against {:?}",
                    a.is_ok(),
                    b.is_ok()
                ),
            }
        }
    }
}

/// The values of a `.wtns` (the fixture's, written by snarkjs), parsed here
/// by hand: 32-byte little-endian integers after the two section headers.
fn wtns_values(bytes: &[u8]) -> Vec<[u8; 32]> {
    let n = u32::from_le_bytes(bytes[60..64].try_into().unwrap()) as usize;
    let body = &bytes[76..];
    assert_eq!(body.len(), n * 32);
    body.chunks_exact(32)
        .map(|c| c.try_into().unwrap())
        .collect()
}

fn field_bytes<F: ark_ff::PrimeField>(v: &F) -> [u8; 32] {
    let mut out = [0u8; 32];
    let le = ark_ff::BigInteger::to_bytes_le(&v.into_bigint());
    out[..le.len()].copy_from_slice(&le);
    out
}

#[test]
fn field_elements_equal_snarkjs_witness() {
    for name in BN254 {
        let calc = calculator(name);
        let w: Vec<ark_bn254::Fr> = calc.calculate(&inputs(name)).unwrap();
        let theirs = wtns_values(&std::fs::read(fixture(name).join("witness.wtns")).unwrap());
        assert_eq!(w.len(), calc.witness_size());
        assert_eq!(
            w.iter().map(field_bytes).collect::<Vec<_>>(),
            theirs,
            "{name}"
        );
        assert_eq!(w[0], ark_ff::One::one());
    }
    let calc = calculator("poseidon_bls");
    let w: Vec<ark_bls12_381::Fr> = calc.calculate(&inputs("poseidon_bls")).unwrap();
    let theirs = wtns_values(&std::fs::read(fixture("poseidon_bls").join("witness.wtns")).unwrap());
    assert_eq!(w.iter().map(field_bytes).collect::<Vec<_>>(), theirs);
}

#[test]
fn module_facts() {
    let calc = calculator("arrays");
    assert_eq!(calc.version().0, 2);
    assert_eq!(calc.field_bytes(), 32);
    assert_eq!(calc.input_size(), 7);
    assert!(calc.is_field::<ark_bn254::Fr>());
    assert!(!calc.is_field::<ark_bls12_381::Fr>());
    assert!(calculator("poseidon_bls").is_field::<ark_bls12_381::Fr>());
    // circom's bn128 prime, written out.
    let p = "21888242871839275222246405745257275088548364400416034343698204186575808495617";
    let mine = num_bigint::BigUint::from_bytes_le(&calc.prime_le_bytes());
    assert_eq!(mine.to_string(), p);
}

#[test]
fn one_calculator_many_witnesses_and_threads() {
    let calc = calculator("arrays");
    let first = calc.calculate_wtns(&inputs("arrays")).unwrap();
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| assert_eq!(calc.calculate_wtns(&inputs("arrays")).unwrap(), first));
        }
    });
    // A failed witness leaves nothing behind for the next.
    let bad = Inputs::from_json(r#"{"a": [[1,2,3],[4,5,6]], "k": 2}"#).unwrap();
    assert!(calc.calculate_wtns(&bad).is_err());
    assert_eq!(calc.calculate_wtns(&inputs("arrays")).unwrap(), first);
}

/// The arrays circuit by hand: acc starts at k, each value a[i][j] makes
/// acc = acc * a + 1; s is the last acc (its only output, witness[1]).
#[test]
fn values_reduced_as_snarkjs_reduces_them() {
    use ark_bn254::Fr;
    let calc = calculator("arrays");
    let a = [
        "3",
        "-1",
        "0x10",
        "21888242871839275222246405745257275088548364400416034343698204186575808495618",
        "0",
        "7",
    ];
    let json = format!(
        r#"{{"k": true, "a": [["{}", "{}", "{}"], ["{}", {}, {}]]}}"#,
        a[0], a[1], a[2], a[3], a[4], a[5]
    );
    let w: Vec<Fr> = calc.calculate(&Inputs::from_json(&json).unwrap()).unwrap();
    let vals = [
        Fr::from(3u64),
        -Fr::from(1u64),
        Fr::from(16u64),
        Fr::from(1u64),
        Fr::from(0u64),
        Fr::from(7u64),
    ];
    let mut acc = Fr::from(1u64);
    for v in vals {
        acc = acc * v + Fr::from(1u64);
    }
    assert_eq!(w[1], acc);
}

#[test]
fn rust_inputs_equal_json_inputs() {
    let calc = calculator("arrays");
    let mut i = Inputs::new();
    i.set("k", [1]);
    i.set("a", [1, 2, 3, 4, 5, -6]);
    assert_eq!(
        calc.calculate_wtns(&i).unwrap(),
        calc.calculate_wtns(&inputs("arrays")).unwrap()
    );
}

fn err(calc: &WitnessCalculator, json: &str) -> WitnessError {
    calc.calculate_wtns(&Inputs::from_json(json).unwrap())
        .expect_err(json)
}

#[test]
fn bad_inputs_named() {
    let calc = calculator("arrays");
    let e = err(&calc, r#"{"a": [[1,2,3],[4,5,6]], "k": 1, "x": 3}"#);
    assert!(
        matches!(&e, WitnessError::UnknownSignal { signal } if signal == "x"),
        "{e}"
    );
    assert_eq!(e.to_string(), "input signal `x` not found in the circuit");

    let e = err(&calc, r#"{"a": [[1,2,3],[4,5]], "k": 1}"#);
    assert!(
        matches!(&e, WitnessError::WrongCount { signal, expected: 6, given: 5 } if signal == "a"),
        "{e}"
    );
    assert!(
        e.to_string()
            .starts_with("not enough values for input signal `a`"),
        "{e}"
    );
    let e = err(&calc, r#"{"a": [[1,2,3],[4,5,6,7]], "k": 1}"#);
    assert!(
        e.to_string().starts_with(
            "too many values for input signal `a`: the circuit takes 6, the input gives 7"
        ),
        "{e}"
    );

    let e = err(&calc, r#"{"a": [["1","2","3"],["4","five","6"]], "k": 1}"#);
    assert!(
        matches!(&e, WitnessError::NotANumber { signal, index: 4, .. } if signal == "a"),
        "{e}"
    );
    assert!(e.to_string().contains("\"five\" is not an integer"), "{e}");
    let e = err(&calc, r#"{"a": [[1,2,3],[4,5,6]], "k": 0.5}"#);
    assert!(
        matches!(&e, WitnessError::NotANumber { signal, index: 0, .. } if signal == "k"),
        "{e}"
    );
    let e = err(&calc, r#"{"a": [[1,2,3],[4,5,6]], "k": ""}"#);
    assert!(matches!(&e, WitnessError::NotANumber { .. }), "{e}");

    let e = err(&calc, r#"{"a": [[1,2,3],[4,5,6]]}"#);
    assert!(
        matches!(
            e,
            WitnessError::MissingInputs {
                set: 6,
                expected: 7
            }
        ),
        "{e}"
    );
    let e = err(&calc, "{}");
    assert!(
        matches!(
            e,
            WitnessError::MissingInputs {
                set: 0,
                expected: 7
            }
        ),
        "{e}"
    );
}

#[test]
fn failed_check_names_template_and_line() {
    let calc = calculator("arrays");
    // k * (k - 1) === 0 fails for k = 2.
    let e = err(&calc, r#"{"a": [[1,2,3],[4,5,6]], "k": 2}"#);
    let WitnessError::Circuit { message } = &e else {
        panic!("{e}")
    };
    assert!(message.starts_with("Assert Failed."), "{message}");
    assert!(
        message.contains("Main_") && message.contains("line:"),
        "{message}"
    );
    // Setting a signal twice is the runtime's own refusal (through a
    // repeated key we cannot: JSON keeps one; through the hash of an
    // array element of a signal set whole, the runtime says so).
    assert!(!message.contains('\n'));
}

#[test]
fn bad_modules_refused() {
    let good = std::fs::read(fixture("arrays").join("circuit.wasm")).unwrap();
    for (what, bytes) in [
        ("empty", Vec::new()),
        ("not wasm", b"this is not a wasm module".to_vec()),
        ("truncated", good[..good.len() / 2].to_vec()),
        ("one byte short", good[..good.len() - 1].to_vec()),
        // A valid module that is not a calculator: (module) in binary.
        ("empty module", vec![0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]),
    ] {
        match WitnessCalculator::from_bytes(&bytes) {
            Err(WitnessError::Wasm { msg, path: None }) => assert!(!msg.is_empty(), "{what}"),
            Err(e) => panic!("{what}: {e}"),
            Ok(_) => panic!("{what}: accepted"),
        }
    }
    let e = WitnessCalculator::from_file("/nonexistent/circuit.wasm")
        .err()
        .unwrap();
    assert!(
        e.to_string().starts_with("/nonexistent/circuit.wasm: "),
        "{e}"
    );
}

#[test]
fn corrupted_modules_never_panic() {
    // Every 97th byte flipped in turn: refused, or (where the flip lands in
    // data the calculator does not check) a witness or an error, never a
    // panic.
    // panic. A flip can make a loop endless: the time limit ends it.
    let good = std::fs::read(fixture("arrays").join("circuit.wasm")).unwrap();
    let input = inputs("arrays");
    let limit = Some(std::time::Duration::from_secs(2));
    for at in (8..good.len()).step_by(97) {
        let mut bytes = good.clone();
        bytes[at] ^= 0x5a;
        let opts = CalculatorOptions::new().time_limit(limit);
        if let Ok(calc) = WitnessCalculator::from_bytes_with(&bytes, &opts) {
            let _ = calc.calculate_wtns(&input);
        }
    }
}

#[test]
fn wrong_field_refused() {
    let calc = calculator("poseidon_bls");
    let e = calc
        .calculate::<ark_bn254::Fr>(&inputs("poseidon_bls"))
        .unwrap_err();
    assert!(matches!(e, WitnessError::Mismatch(_)), "{e}");
    assert!(e.to_string().contains("prime"), "{e}");
}

#[test]
fn compiled_modules_cached_and_damaged_entries_recompiled() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("wasm-cache-test");
    let _ = std::fs::remove_dir_all(&dir);
    let wasm = fixture("arrays").join("circuit.wasm");
    let want = calculator("arrays")
        .calculate_wtns(&inputs("arrays"))
        .unwrap();
    let first = WitnessCalculator::from_file_with(&wasm, &cached(&dir)).unwrap();
    assert!(!first.from_cache());
    assert_eq!(first.calculate_wtns(&inputs("arrays")).unwrap(), want);
    let again = WitnessCalculator::from_file_with(&wasm, &cached(&dir)).unwrap();
    assert!(
        again.from_cache(),
        "the second load should come from the cache"
    );
    assert_eq!(again.calculate_wtns(&inputs("arrays")).unwrap(), want);
    // Another module has its own entry.
    let other =
        WitnessCalculator::from_file_with(fixture("nopublic").join("circuit.wasm"), &cached(&dir))
            .unwrap();
    assert!(!other.from_cache());
    let entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(entries.len(), 2, "{entries:?}");
    // A loaded module maps its entry: none may be in use while the test
    // writes into them below (the cache itself only ever renames a new file
    // over an entry).
    drop((first, again, other));
    // Damaged entries: one byte flipped, truncated, empty. Each is compiled
    // again (and rewritten), never loaded.
    for damage in ["flip", "truncate", "empty"] {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let mut b = std::fs::read(&p).unwrap();
            match damage {
                "flip" => {
                    let at = b.len() / 3;
                    b[at] ^= 0x10;
                }
                "truncate" => b.truncate(b.len() / 2),
                _ => b.clear(),
            }
            std::fs::write(&p, b).unwrap();
        }
        let c = WitnessCalculator::from_file_with(&wasm, &cached(&dir)).unwrap();
        assert!(!c.from_cache(), "{damage}: a damaged entry was loaded");
        assert_eq!(
            c.calculate_wtns(&inputs("arrays")).unwrap(),
            want,
            "{damage}"
        );
        let c = WitnessCalculator::from_file_with(&wasm, &cached(&dir)).unwrap();
        assert!(c.from_cache(), "{damage}: the entry was not rewritten");
    }
    // A folder that cannot be made only costs the compile.
    let c = WitnessCalculator::from_file_with(
        &wasm,
        &cached(std::path::Path::new("/proc/no-such-cache")),
    )
    .unwrap();
    assert!(!c.from_cache());
    assert_eq!(c.calculate_wtns(&inputs("arrays")).unwrap(), want);
}

#[test]
fn time_limited_calculators_give_the_same_witness() {
    // The interruptible engine (epoch checks compiled in) computes what the
    // plain one does, and a generous limit does not stop it.
    for name in ["arrays", "poseidon"] {
        let opts = CalculatorOptions::new().time_limit(Some(std::time::Duration::from_secs(60)));
        let limited =
            WitnessCalculator::from_file_with(fixture(name).join("circuit.wasm"), &opts).unwrap();
        assert_eq!(
            limited.calculate_wtns(&inputs(name)).unwrap(),
            std::fs::read(fixture(name).join("witness.wtns")).unwrap(),
            "{name}"
        );
    }
}

/// Random inputs of the fixtures: field elements, and 0 or 1 where the
/// circuit allows only those (the merkle fixture's `bits`, arrays' `k`).
fn random_inputs(name: &str, rng: &mut impl rand::Rng) -> Inputs {
    use num_bigint::{BigInt, BigUint};
    let p = modulus(name);
    let mut big = |n: usize| -> Vec<BigInt> {
        (0..n)
            .map(|_| BigInt::from(BigUint::from_bytes_le(&rng.gen::<[u8; 32]>()) % &p))
            .collect()
    };
    let mut i = Inputs::new();
    match name {
        "poseidon" | "poseidon_bls" | "nopublic" => {
            i.set("a", big(1));
            i.set("b", big(1));
        }
        "arrays" => {
            i.set("a", big(6));
            i.set("k", big(1).iter().map(|v| v % 2u8));
        }
        "merkle" => {
            i.set("leaf", big(1));
            i.set("path", big(4));
            i.set("bits", big(4).iter().map(|v| v % 2u8));
        }
        _ => unreachable!("{name}"),
    }
    i
}

fn modulus(name: &str) -> num_bigint::BigUint {
    let m = if name == "poseidon_bls" {
        ark_ff::BigInteger::to_bytes_le(&<ark_bls12_381::Fr as ark_ff::PrimeField>::MODULUS)
    } else {
        ark_ff::BigInteger::to_bytes_le(&<ark_bn254::Fr as ark_ff::PrimeField>::MODULUS)
    };
    num_bigint::BigUint::from_bytes_le(&m)
}

#[test]
fn reused_instances_give_fresh_instances_witnesses() {
    use rand::SeedableRng;
    let rng = &mut rand_chacha::ChaCha20Rng::seed_from_u64(11);
    let rounds: usize = std::env::var("ZKACCEL_TEST_WITNESS_REUSE_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    for name in BN254.iter().chain(&["poseidon_bls"]) {
        let wasm = fixture(name).join("circuit.wasm");
        let reused = calculator(name);
        let fresh = WitnessCalculator::from_file_with(
            &wasm,
            &CalculatorOptions::new().reuse_instances(false),
        )
        .unwrap();
        let snarkjs = std::fs::read(fixture(name).join("witness.wtns")).unwrap();
        assert_eq!(reused.idle_instances(), 0, "{name}: none before a witness");
        assert_eq!(
            reused.calculate_wtns(&inputs(name)).unwrap(),
            snarkjs,
            "{name}"
        );
        assert_eq!(reused.idle_instances(), 1, "{name}: the instance is kept");
        for round in 0..rounds {
            let i = random_inputs(name, rng);
            let want = fresh.calculate_wtns(&i).unwrap();
            assert_eq!(
                reused.calculate_wtns(&i).unwrap(),
                want,
                "{name}, round {round}: a reused instance differs from a fresh one"
            );
            assert_eq!(reused.idle_instances(), 1, "{name}: one instance serves");
            assert_eq!(fresh.idle_instances(), 0, "{name}: reuse off keeps none");
        }
        // The fixture's input again, after other witnesses on the same instance.
        assert_eq!(
            reused.calculate_wtns(&inputs(name)).unwrap(),
            snarkjs,
            "{name}"
        );
        // Field elements through the same instance.
        if *name != "poseidon_bls" {
            let w: Vec<ark_bn254::Fr> = reused.calculate(&inputs(name)).unwrap();
            assert_eq!(
                w.iter().map(field_bytes).collect::<Vec<_>>(),
                wtns_values(&snarkjs),
                "{name}"
            );
        }
    }
    // A failed calculation drops its instance; the next one starts afresh and
    // is right.
    let calc = calculator("arrays");
    let good = calc.calculate_wtns(&inputs("arrays")).unwrap();
    assert_eq!(calc.idle_instances(), 1);
    let bad = Inputs::from_json(r#"{"a": [[1,2,3],[4,5,6]], "k": 2}"#).unwrap();
    assert!(matches!(
        calc.calculate_wtns(&bad),
        Err(WitnessError::Circuit { .. })
    ));
    assert_eq!(calc.idle_instances(), 0, "the failed instance was dropped");
    let unknown = Inputs::from_json(r#"{"a": [[1,2,3],[4,5,6]], "k": 1, "zz": 1}"#).unwrap();
    assert!(calc.calculate_wtns(&unknown).is_err());
    assert_eq!(calc.idle_instances(), 0);
    assert_eq!(calc.calculate_wtns(&inputs("arrays")).unwrap(), good);
    assert_eq!(calc.idle_instances(), 1);
    // Threads at once: each calculation has its own instance, at most one
    // per CPU thread is kept.
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..3 {
                    assert_eq!(calc.calculate_wtns(&inputs("arrays")).unwrap(), good);
                }
            });
        }
    });
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert!((1..=cpus.min(4)).contains(&calc.idle_instances()));
}

/// The fuzz target `witness_inputs`' committed seeds (fuzz/corpus), replayed
/// here as that target's body runs them: CI's short fuzz run builds without
/// wasmtime, so this is where the seeds are checked on every run. Each seed
/// gives a witness of the module's size with the constant 1 first, or an
/// error, the same from both read-outs; the fixture's own input gives
/// snarkjs' witness, and the failing check and the wrong count are errors.
#[test]
fn fuzz_seeds_of_witness_inputs_replayed() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/witness_inputs");
    let opts = CalculatorOptions::new().time_limit(Some(std::time::Duration::from_secs(5)));
    let calc =
        WitnessCalculator::from_file_with(fixture("arrays").join("circuit.wasm"), &opts).unwrap();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let (mut ok, mut refused) = (Vec::new(), Vec::new());
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Ok(text) = String::from_utf8(std::fs::read(path).unwrap()) else {
            continue;
        };
        let Ok(inputs) = Inputs::from_json(&text) else {
            refused.push(name);
            continue;
        };
        let fields = calc.calculate::<ark_bn254::Fr>(&inputs);
        let wtns = calc.calculate_wtns(&inputs);
        assert_eq!(
            fields.is_ok(),
            wtns.is_ok(),
            "{name}: the two read-outs disagree"
        );
        match fields {
            Ok(w) => {
                assert_eq!(w.len(), calc.witness_size(), "{name}");
                assert_eq!(w[0], ark_bn254::Fr::from(1u64), "{name}");
                if name == "seed-fixture.json" {
                    let want = std::fs::read(fixture("arrays").join("witness.wtns")).unwrap();
                    assert!(wtns.unwrap() == want, "{name}: not snarkjs' witness");
                }
                ok.push(name);
            }
            Err(_) => refused.push(name),
        }
    }
    let _ = writeln!(
        std::io::stderr(),
        "witness_inputs seeds: {} gave a witness, {} an error",
        ok.len(),
        refused.len()
    );
    assert!(
        ok.iter().any(|n| n == "seed-fixture.json"),
        "witnesses: {ok:?}"
    );
    for bad in ["seed-assert.json", "seed-count.json"] {
        assert!(
            refused.iter().any(|n| n == bad),
            "{bad} was not refused: {refused:?}"
        );
    }
}
