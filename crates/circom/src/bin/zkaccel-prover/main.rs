//! `zkaccel-prover`: rapidsnark's command line on zkaccel.
//!
//! ```text
//! zkaccel-prover [--backend cpu|cuda|auto] [--timings] [--r1cs circuit.r1cs] [--no-verify] [--no-mmap]
//!                <circuit.zkey> <witness.wtns> <proof.json> <public.json>
//! zkaccel-prover fullprove [options] <input.json> <circuit.wasm> <circuit.zkey> <proof.json> <public.json>
//! zkaccel-prover fullprove [options] --witness-bin <circuit_cpp/circuit> <input.json> <circuit.zkey> <proof.json> <public.json>
//! zkaccel-prover wtns calculate <circuit.wasm> <input.json> <witness.wtns>
//! zkaccel-prover verify <vkey.json> <public.json> <proof.json>
//! zkaccel-prover export-vkey <circuit.zkey> <vkey.json>
//! zkaccel-prover export-example <mimc|sha256> <size> <out-dir>
//! zkaccel-prover test-setup <circuit.r1cs> <out-dir>
//! zkaccel-prover info <circuit.zkey>
//! zkaccel-prover serve --circuit NAME=circuit.zkey[,circuit.wasm] [options]
//! zkaccel-prover serve --redis URL --circuit NAME [options]
//! zkaccel-prover worker --redis URL --circuit NAME=circuit.zkey[,circuit.wasm] [options]
//! ```
//! Exit 0 on success; otherwise one line on stderr and a non-zero status.

mod serve;

use std::io::{Read, Seek};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;
use zkaccel_circom::{
    export_circuit, json_curve, native_witness, proof_json, public_json, read_proof_json,
    read_public_json, read_r1cs, read_vkey_json, read_wtns, read_zkey_from, setup_r1cs, verify,
    vkey_json, zkey_curve, zkey_curve_from, CircomCurve, CircomError, CircomProver, Curve, ZkeyMap,
    ZkeyOptions,
};
use zkaccel_groth16::Backend;
use zkaccel_witness::{CalculatorOptions, Inputs, WitnessCalculator};

const USAGE: &str = "usage:
  zkaccel-prover [--backend cpu|cuda|auto] [--timings] [--r1cs circuit.r1cs] [--no-verify] [--no-mmap]
                 <circuit.zkey> <witness.wtns> <proof.json> <public.json>
                 (--test-seed N: the randomness from a fixed seed, to compare provers byte for byte;
                  such proofs are NOT zero-knowledge: for tests only)
  zkaccel-prover fullprove [the options above] <input.json> <circuit.wasm> <circuit.zkey> <proof.json> <public.json>
                 (snarkjs groth16 fullprove's order: the witness from the circuit's wasm, in-process)
  zkaccel-prover fullprove [options] --witness-bin <circuit_cpp/circuit> <input.json> <circuit.zkey> <proof.json> <public.json>
                 (the witness from circom's C++ generator, run as a subprocess)
  zkaccel-prover wtns calculate <circuit.wasm> <input.json> <witness.wtns>   (snarkjs' order and bytes)
  zkaccel-prover verify <vkey.json> <public.json> <proof.json>
  zkaccel-prover export-vkey <circuit.zkey> <vkey.json>
  zkaccel-prover export-example <mimc|sha256> <size> <out-dir>   (test keys: not for production)
  zkaccel-prover test-setup <circuit.r1cs> <out-dir>   (a bn128 circuit.zkey and vkey.json from a fixed seed,
                                                        no ceremony: for benchmarks, NOT for production)
  zkaccel-prover info <circuit.zkey>          (the key's sizes, and the kernels this CPU runs)
";

fn main() -> ExitCode {
    // The library's warnings (a GPU fallback, a bad ZKACCEL_BACKEND);
    // RUST_LOG=info also shows the backend choice; the circuit's log() lines
    // (target circom) are shown as snarkjs shows them.
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn,circom=info"))
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("zkaccel-prover: {e}");
            ExitCode::from(2)
        }
    }
}

type Res<T> = Result<T, String>;

/// A line on stdout; a reader that has gone (`| head -1`) is not an error.
fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout(), "{line}");
}

fn read(path: &str) -> Res<Vec<u8>> {
    std::fs::read(path).map_err(|e| format!("{path}: {e}"))
}

fn read_text(path: &str) -> Res<String> {
    std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))
}

fn write(path: &str, data: &[u8]) -> Res<()> {
    std::fs::write(path, data).map_err(|e| format!("{path}: {e}"))
}

/// `--backend`'s value.
fn backend(v: Option<&String>) -> Res<Backend> {
    match v.map(String::as_str) {
        Some("cpu") => Ok(Backend::Cpu),
        Some("cuda") => Ok(Backend::Cuda),
        Some("auto") => Ok(Backend::Auto),
        other => Err(format!("--backend takes cpu, cuda or auto, not {other:?}")),
    }
}

/// An error about `path`.
fn at(path: &str) -> impl Fn(CircomError) -> String + '_ {
    move |e| format!("{path}: {e}")
}

fn run(args: &[String]) -> Res<ExitCode> {
    match args.first().map(String::as_str) {
        None | Some("-h") | Some("--help") => {
            say(USAGE);
            say(serve::USAGE);
            Ok(ExitCode::SUCCESS)
        }
        Some("fullprove") => prove_cmd(&args[1..], true),
        Some("serve") => serve::serve_cmd(&args[1..]),
        Some("worker") => serve::worker_cmd(&args[1..]),
        Some("wtns") => match &args[1..] {
            [sub, wasm, input, out] if sub == "calculate" => wtns_calculate(wasm, input, out),
            _ => Err("wtns calculate takes <circuit.wasm> <input.json> <witness.wtns> (see zkaccel-prover --help)".to_string()),
        },
        Some("verify") => match &args[1..] {
            [vkey, public, proof] => verify_cmd(vkey, public, proof),
            _ => Err("verify takes 3 files (see zkaccel-prover --help)".to_string()),
        },
        Some("export-vkey") => match &args[1..] {
            [zkey, out] => {
                let mut key = open_key(zkey)?;
                let text = match zkey_curve_from(&mut key).map_err(at(zkey))? {
                    Curve::Bn254 => export_vkey::<ark_bn254::Bn254>(key),
                    Curve::Bls12_381 => export_vkey::<ark_bls12_381::Bls12_381>(key),
                }
                .map_err(at(zkey))?;
                write(out, text.as_bytes())?;
                Ok(ExitCode::SUCCESS)
            }
            _ => Err("export-vkey takes 2 files (see zkaccel-prover --help)".to_string()),
        },
        Some("info") => match &args[1..] {
            [zkey] => {
                let mut key = open_key(zkey)?;
                let text = match zkey_curve_from(&mut key).map_err(at(zkey))? {
                    Curve::Bn254 => info::<ark_bn254::Bn254>(key),
                    Curve::Bls12_381 => info::<ark_bls12_381::Bls12_381>(key),
                }
                .map_err(at(zkey))?;
                say(&text);
                say(&zkaccel_ff::kernel_summary());
                Ok(ExitCode::SUCCESS)
            }
            _ => Err("info takes 1 file (see zkaccel-prover --help)".to_string()),
        },
        Some("test-setup") => match &args[1..] {
            [r1cs, dir] => test_setup(r1cs, dir),
            _ => {
                Err("test-setup takes an r1cs and a folder (see zkaccel-prover --help)".to_string())
            }
        },
        Some("export-example") => match &args[1..] {
            [name, size, dir] => export_example(name, size, dir),
            _ => Err(
                "export-example takes a circuit, a size and a folder (see zkaccel-prover --help)"
                    .to_string(),
            ),
        },
        Some(_) => prove_cmd(args, false),
    }
}

fn export_vkey<E: CircomCurve>(key: Box<dyn KeySource>) -> Result<String, CircomError> {
    let z = read_zkey_from::<E>(key, ZkeyOptions::default())?;
    Ok(vkey_json(&z.pk.vk))
}

/// One line: the curve and the key's sizes.
fn info<E: CircomCurve>(key: Box<dyn KeySource>) -> Result<String, CircomError> {
    let z = read_zkey_from::<E>(key, ZkeyOptions::default())?;
    let h = z.header;
    Ok(format!(
        "curve {} | signals {} | public {} | constraints {} | domain 2^{}",
        E::NAME,
        h.n_vars,
        h.n_public,
        z.num_constraints,
        h.domain_size.trailing_zeros()
    ))
}

struct ProveArgs {
    backend: Backend,
    timings: bool,
    r1cs: Option<String>,
    self_verify: bool,
    /// `--test-seed N`: the proof's randomness from ChaCha20 seeded with N
    /// (as the npm package's `proveWithTestSeed`), so that two provers'
    /// proofs can be compared byte for byte. NOT zero-knowledge.
    test_seed: Option<u64>,
    /// Map the zkey and prove from its points in place (`--no-mmap` reads
    /// and decodes a copy, for a key file that may change meanwhile).
    mmap: bool,
    /// Where the witness comes from, and the key and outputs.
    witness: WitnessFrom,
    zkey: String,
    proof: String,
    public: String,
}

/// The witness: a `.wtns` file, or computed from `input.json`.
enum WitnessFrom {
    Wtns(String),
    Wasm { input: String, wasm: String },
    Native { input: String, bin: String },
}

fn parse_prove(args: &[String], full: bool) -> Res<ProveArgs> {
    let mut a = ProveArgs {
        backend: Backend::Auto,
        timings: false,
        r1cs: None,
        self_verify: true,
        test_seed: None,
        mmap: true,
        witness: WitnessFrom::Wtns(String::new()),
        zkey: String::new(),
        proof: String::new(),
        public: String::new(),
    };
    let mut files = Vec::new();
    let mut bin = None;
    let mut it = args.iter();
    while let Some(x) = it.next() {
        match x.as_str() {
            "--backend" => a.backend = backend(it.next())?,
            "--timings" => a.timings = true,
            "--no-verify" => a.self_verify = false,
            "--no-mmap" => a.mmap = false,
            "--test-seed" => {
                let v = it.next().ok_or("--test-seed takes a number")?;
                let seed = v.parse().map_err(|_| {
                    format!("--test-seed takes a number from 0 to 2^64-1, not {v:?}")
                })?;
                a.test_seed = Some(seed);
            }
            "--r1cs" => {
                a.r1cs = Some(it.next().ok_or("--r1cs takes a file")?.clone());
            }
            "--witness-bin" if full => {
                bin = Some(it.next().ok_or("--witness-bin takes a program")?.clone());
            }
            f if f.starts_with("--") => {
                return Err(format!("unknown option {f} (see zkaccel-prover --help)"))
            }
            f => files.push(f.to_owned()),
        }
    }
    let got = files.len();
    match (full, bin, files.as_slice()) {
        (false, _, [zkey, wtns, proof, public]) => {
            a.witness = WitnessFrom::Wtns(wtns.clone());
            (a.zkey, a.proof, a.public) = (zkey.clone(), proof.clone(), public.clone());
        }
        (true, None, [input, wasm, zkey, proof, public]) => {
            a.witness = WitnessFrom::Wasm { input: input.clone(), wasm: wasm.clone() };
            (a.zkey, a.proof, a.public) = (zkey.clone(), proof.clone(), public.clone());
        }
        (true, Some(bin), [input, zkey, proof, public]) => {
            a.witness = WitnessFrom::Native { input: input.clone(), bin };
            (a.zkey, a.proof, a.public) = (zkey.clone(), proof.clone(), public.clone());
        }
        (false, _, _) => return Err(format!(
            "expected <circuit.zkey> <witness.wtns> <proof.json> <public.json>, got {got} files (see zkaccel-prover --help)"
        )),
        (true, None, _) => return Err(format!(
            "fullprove expects <input.json> <circuit.wasm> <circuit.zkey> <proof.json> <public.json>, got {got} files (see zkaccel-prover --help)"
        )),
        (true, Some(_), _) => return Err(format!(
            "fullprove --witness-bin expects <input.json> <circuit.zkey> <proof.json> <public.json>, got {got} files (see zkaccel-prover --help)"
        )),
    }
    Ok(a)
}

/// Where compiled wasm modules are kept between runs: `ZKACCEL_WASM_CACHE`
/// (a folder, or `off`), else `~/.cache/zkaccel/wasm`.
fn wasm_cache() -> Option<std::path::PathBuf> {
    match std::env::var_os("ZKACCEL_WASM_CACHE") {
        Some(v) if v.is_empty() || v == "off" => None,
        Some(v) => Some(v.into()),
        None => zkaccel_witness::default_cache_dir(),
    }
}

/// The circuit's calculator, through the compiled-module cache.
fn calculator(wasm: &str) -> Res<WitnessCalculator> {
    calculator_with(wasm, None)
}

/// The circuit's calculator with a time limit on each witness.
fn calculator_with(wasm: &str, limit: Option<std::time::Duration>) -> Res<WitnessCalculator> {
    let opts = CalculatorOptions::new()
        .cache(wasm_cache())
        .time_limit(limit);
    WitnessCalculator::from_file_with(wasm, &opts).map_err(|e| e.to_string())
}

/// `wtns calculate`: snarkjs' command, the same bytes out.
fn wtns_calculate(wasm: &str, input: &str, out: &str) -> Res<ExitCode> {
    let calc = calculator(wasm)?;
    let inputs = Inputs::from_file(input).map_err(|e| e.to_string())?;
    let bytes = calc
        .calculate_wtns(&inputs)
        .map_err(|e| format!("{input}: {e}"))?;
    write(out, &bytes)?;
    Ok(ExitCode::SUCCESS)
}

/// A zkey to read a section at a time.
trait KeySource: Read + Seek + Send {}
impl<T: Read + Seek + Send> KeySource for T {}

/// Opens the zkey at `path` to be read a section at a time, in chunks, so
/// that its bytes are never in memory beside the decoded key; a file that
/// cannot seek (a pipe) is read whole first.
fn open_key(path: &str) -> Res<Box<dyn KeySource>> {
    let mut file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    if file.seek(std::io::SeekFrom::End(0)).is_ok() {
        return Ok(Box::new(file));
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| format!("{path}: {e}"))?;
    Ok(Box::new(std::io::Cursor::new(bytes)))
}

/// The zkey to prove with: mapped (its points used in place), or read.
enum KeyFile {
    Mapped(ZkeyMap),
    Read(Box<dyn KeySource>),
}

fn prove_cmd(args: &[String], full: bool) -> Res<ExitCode> {
    let a = parse_prove(args, full)?;
    let start = Instant::now();
    let path = &a.zkey;
    // A file that cannot be mapped (a pipe) is read.
    let mapped = match a.mmap {
        true => std::fs::File::open(path)
            .map_err(|e| format!("{path}: {e}"))
            .map(|f| ZkeyMap::new(&f).ok())?,
        false => None,
    };
    let (key, curve) = match mapped {
        Some(map) => {
            let curve = zkey_curve(map.bytes()).map_err(at(path))?;
            (KeyFile::Mapped(map), curve)
        }
        None => {
            let mut key = open_key(path)?;
            let curve = zkey_curve_from(&mut key).map_err(at(path))?;
            (KeyFile::Read(key), curve)
        }
    };
    match curve {
        Curve::Bn254 => prove::<ark_bn254::Bn254>(&a, key, start),
        Curve::Bls12_381 => prove::<ark_bls12_381::Bls12_381>(&a, key, start),
    }
}

fn prove<E: CircomCurve>(a: &ProveArgs, key: KeyFile, start: Instant) -> Res<ExitCode> {
    let [zkey, proof_out, public_out] = [&a.zkey, &a.proof, &a.public];
    // Fail on an unwritable output before the work, not after.
    for out in [proof_out, public_out] {
        let existed = Path::new(out).exists();
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(out)
            .map_err(|e| format!("{out}: {e}"))?;
        if !existed {
            let _ = std::fs::remove_file(out);
        }
    }
    // The wasm compiled before the key is read, so that a bad one costs no
    // key load.
    let t = Instant::now();
    let calc = match &a.witness {
        WitnessFrom::Wasm { wasm, .. } => Some(calculator(wasm)?),
        _ => None,
    };
    let compile = t.elapsed();
    let opts = ZkeyOptions::default();
    // The wasm's witness (input.json read, then calculated) is computed on a
    // thread of its own while the key loads: on two cores the load is hidden
    // behind it. Errors keep the order they had one after the other: the
    // key's own, its checks of the calculator, then input.json's and the
    // calculation's.
    let (loaded, calculated) = std::thread::scope(|s| {
        let job = match (&a.witness, calc.as_ref()) {
            (WitnessFrom::Wasm { input, .. }, Some(calc)) => Some(s.spawn(move || {
                let t = Instant::now();
                let w = Inputs::from_file(input)
                    .map_err(|e| e.to_string())
                    .and_then(|inputs| {
                        calc.calculate::<E::ScalarField>(&inputs)
                            .map_err(|e| format!("{input}: {}", CircomError::from(e)))
                    });
                (w, t.elapsed())
            })),
            _ => None,
        };
        let loaded = match key {
            KeyFile::Mapped(map) => CircomProver::<E>::from_zkey_map(&map, a.backend, opts),
            KeyFile::Read(r) => CircomProver::<E>::from_zkey_reader(r, a.backend, opts),
        };
        let load = start.elapsed() - compile;
        (
            loaded.map(|p| (p, load)),
            job.map(|j| {
                j.join()
                    .map_err(|_| "internal: the witness thread panicked")
            }),
        )
    });
    let (mut prover, load) = loaded.map_err(at(zkey))?;
    let calculated = calculated.transpose()?;
    // The wasm's time is its own thread's, beside the key load.
    let wasm_time = calculated.as_ref().map(|(_, took)| *took);
    let t = Instant::now();
    let (witness, source) = match &a.witness {
        WitnessFrom::Wtns(wtns) => (
            read_wtns::<E::ScalarField>(&read(wtns)?).map_err(at(wtns))?,
            wtns,
        ),
        WitnessFrom::Wasm { input, wasm } => {
            let calc = calc.ok_or("internal: no calculator")?;
            prover = prover
                .with_calculator(calc)
                .map_err(|e| format!("{wasm}: {e} ({zkey})"))?;
            let (w, _) = calculated.ok_or("internal: no witness")?;
            let w = w?;
            (w, input)
        }
        WitnessFrom::Native { input, bin } => (
            native_witness::<E::ScalarField>(Path::new(bin), Path::new(input))
                .map_err(|e| format!("{input}: {e}"))?,
            input,
        ),
    };
    prover.check_witness(&witness).map_err(at(source))?;
    let wtns_time = wasm_time.unwrap_or_else(|| t.elapsed());
    let wtns = source;
    if let Some(r1cs) = &a.r1cs {
        let r = read_r1cs::<E::ScalarField>(&read(r1cs)?).map_err(at(r1cs))?;
        if r.n_public() != prover.zkey().header.n_public {
            return Err(format!(
                "{r1cs}: {} public signals, the zkey has {}",
                r.n_public(),
                prover.zkey().header.n_public
            ));
        }
        r.check_witness(&witness)
            .map_err(|e| format!("{wtns}: {e} ({r1cs})"))?;
    }
    let out = match a.test_seed {
        None => prover.prove(&witness, &mut rand::rngs::OsRng),
        Some(seed) => {
            use rand::SeedableRng;
            prover.prove(&witness, &mut rand_chacha::ChaCha20Rng::seed_from_u64(seed))
        }
    }
    .map_err(|e| e.to_string())?;
    let verify_start = Instant::now();
    if a.self_verify
        && !prover
            .verify(&out.proof, &out.public)
            .map_err(|e| e.to_string())?
    {
        return Err(CircomError::ProofRejected.to_string());
    }
    let verify_time = verify_start.elapsed();
    let t_json = Instant::now();
    write(proof_out, proof_json(&out.proof).as_bytes())?;
    write(public_out, public_json::<E>(&out.public).as_bytes())?;
    let json = t_json.elapsed();
    if a.timings {
        let t = &out.timings;
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        eprintln!(
            "timings (ms): {}load zkey {:.1} | {} {:.1} | witness map {:.1} | msm A {:.1} B1 {:.1} B2 {:.1} L {:.1} H {:.1} | prove {:.1} | self-verify {:.1} | json {:.1} | total {:.1}",
            match (&a.witness, prover.calculator().map(|c| c.from_cache())) {
                (WitnessFrom::Wasm { .. }, Some(true)) => format!("wasm from cache {:.1} | ", ms(compile)),
                (WitnessFrom::Wasm { .. }, _) => format!("compile wasm {:.1} | ", ms(compile)),
                _ => String::new(),
            },
            ms(load),
            match &a.witness {
                WitnessFrom::Wtns(_) => "read wtns",
                WitnessFrom::Wasm { .. } => "witness (wasm)",
                WitnessFrom::Native { .. } => "witness (native)",
            },
            ms(wtns_time),
            ms(t.witness_map),
            ms(t.msm_a),
            ms(t.msm_b_g1),
            ms(t.msm_b_g2),
            ms(t.msm_l),
            ms(t.msm_h),
            ms(t.total),
            ms(verify_time),
            ms(json),
            ms(start.elapsed())
        );
        let key = prover.zkey();
        let unaligned = key.points_unaligned();
        let mut in_place: Vec<String> = key
            .points_in_place()
            .into_iter()
            .map(|q| match unaligned.contains(&q) {
                true => format!("{q} (unaligned)"),
                false => q.to_string(),
            })
            .collect();
        for (name, m) in ["coefficients A", "coefficients B"]
            .iter()
            .zip(&key.matrices)
        {
            if m.is_mapped() {
                in_place.push(name.to_string());
            }
        }
        eprintln!(
            "zkey parts used in place (mapped): {}",
            match in_place.is_empty() {
                true => "none".to_string(),
                false => in_place.join(", "),
            }
        );
        eprintln!("{}", zkaccel_ff::kernel_summary());
    }
    Ok(ExitCode::SUCCESS)
}

fn verify_cmd(vkey: &str, public: &str, proof: &str) -> Res<ExitCode> {
    let vtext = read_text(vkey)?;
    let curve = match json_curve(&vtext) {
        None => Curve::Bn254,
        Some(c) => Curve::from_name(&c).ok_or(format!("{vkey}: unsupported curve {c}"))?,
    };
    match curve {
        Curve::Bn254 => verify_as::<ark_bn254::Bn254>(&vtext, vkey, public, proof),
        Curve::Bls12_381 => verify_as::<ark_bls12_381::Bls12_381>(&vtext, vkey, public, proof),
    }
}

fn verify_as<E: CircomCurve>(vtext: &str, vkey: &str, public: &str, proof: &str) -> Res<ExitCode> {
    let vk = read_vkey_json::<E>(vtext).map_err(at(vkey))?;
    let p = read_public_json::<E>(&read_text(public)?).map_err(at(public))?;
    let pr = read_proof_json::<E>(&read_text(proof)?).map_err(at(proof))?;
    if verify(&vk, &pr, &p).map_err(|e| e.to_string())? {
        say("OK");
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("zkaccel-prover: invalid proof");
        Ok(ExitCode::from(1))
    }
}

/// A benchmark key for a circom r1cs: arkworks' setup from a fixed seed.
fn test_setup(r1cs: &str, dir: &str) -> Res<ExitCode> {
    use rand::SeedableRng;
    let r = read_r1cs::<ark_bn254::Fr>(&read(r1cs)?).map_err(at(r1cs))?;
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(r.constraints.len() as u64);
    let (pk, zkey) = setup_r1cs::<ark_bn254::Bn254, _>(&r, &mut rng).map_err(at(r1cs))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{dir}: {e}"))?;
    let p = |f: &str| Path::new(dir).join(f).display().to_string();
    write(&p("circuit.zkey"), &zkey)?;
    write(&p("vkey.json"), vkey_json(&pk.vk).as_bytes())?;
    eprintln!("zkaccel-prover: wrote {dir}/circuit.zkey, vkey.json (test key from a fixed seed: NOT for production)");
    Ok(ExitCode::SUCCESS)
}

fn export_example(name: &str, size: &str, dir: &str) -> Res<ExitCode> {
    use ark_bn254::{Bn254, Fr};
    use rand::SeedableRng;
    use zkaccel_groth16::circuits::{MimcChain, Sha256Circuit};
    let n: usize = size
        .parse()
        .map_err(|_| format!("size {size:?} is not a number"))?;
    // A fixed seed: the keys are for tests and benchmarks only.
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(n as u64);
    let files = match name {
        "mimc" => export_circuit::<Bn254, _, _>(MimcChain::<Fr>::new(Fr::from(7u64), n), &mut rng),
        "sha256" => export_circuit::<Bn254, _, _>(Sha256Circuit::<Fr>::new(n, 1), &mut rng),
        other => {
            return Err(format!(
                "unknown example {other:?} (mimc: hash rounds, sha256: blocks)"
            ))
        }
    }
    .map_err(|e| e.to_string())?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{dir}: {e}"))?;
    let p = |f: &str| Path::new(dir).join(f).display().to_string();
    write(&p("circuit.zkey"), &files.zkey)?;
    write(&p("witness.wtns"), &files.wtns)?;
    write(&p("vkey.json"), vkey_json(&files.pk.vk).as_bytes())?;
    write(
        &p("public.json"),
        public_json::<Bn254>(&files.public).as_bytes(),
    )?;
    eprintln!("zkaccel-prover: wrote {dir}/circuit.zkey, witness.wtns, vkey.json, public.json (test key from a fixed seed: NOT for production)");
    Ok(ExitCode::SUCCESS)
}
