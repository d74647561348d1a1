//! `zkaccel-prover serve`: the proving service over HTTP (docs/service.md).
//! Keys are mapped and decoded once, wasm calculators compiled once (through
//! the module cache), then zkaccel-service answers requests until SIGTERM.

use crate::{at, backend, calculator_with, say, Res};
use std::sync::Arc;
use std::time::Duration;
use zkaccel_circom::service::{self, Circuit, Circuits, Config};
use zkaccel_circom::{
    zkey_curve, CircomCurve, CircomProver, Curve, ServedCircuit, ZkeyMap, ZkeyOptions,
};
use zkaccel_groth16::Backend;

pub(crate) const USAGE: &str =
    "  zkaccel-prover serve --circuit NAME=circuit.zkey[,circuit.wasm] [--circuit ...]
                 [--listen 127.0.0.1:8080] [--workers N] [--threads N] [--queue N] [--deadline SECS]
                 [--max-body BYTES] [--token-file FILE] [--keep-results N] [--backend cpu|cuda|auto]
                 (HTTP: POST /v1/prove/NAME, GET /v1/jobs/ID, /health, /metrics; docs/service.md)";

/// One `--circuit NAME=zkey[,wasm]`.
struct CircuitArg {
    name: String,
    zkey: String,
    wasm: Option<String>,
}

fn parse_circuit(v: &str) -> Res<CircuitArg> {
    let (name, files) = v
        .split_once('=')
        .ok_or_else(|| format!("--circuit {v}: expected NAME=circuit.zkey[,circuit.wasm]"))?;
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_');
    if !ok {
        return Err(format!(
            "--circuit {v}: a name is 1-64 letters, digits, '-' or '_' (it appears in URLs)"
        ));
    }
    let (zkey, wasm) = match files.split_once(',') {
        Some((z, w)) => (z.to_string(), Some(w.to_string())),
        None => (files.to_string(), None),
    };
    Ok(CircuitArg {
        name: name.to_string(),
        zkey,
        wasm,
    })
}

fn number<T: std::str::FromStr>(opt: &str, v: Option<&String>) -> Res<T> {
    v.and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("{opt} takes a number"))
}

fn parse(args: &[String]) -> Res<(Config, Vec<CircuitArg>, Backend)> {
    let mut cfg = Config::default();
    let mut circuits = Vec::new();
    let mut chosen = Backend::Cpu;
    let mut it = args.iter();
    while let Some(opt) = it.next() {
        match opt.as_str() {
            "--circuit" => circuits.push(parse_circuit(
                it.next().ok_or("--circuit takes NAME=zkey[,wasm]")?,
            )?),
            "--listen" => {
                let v = it.next().ok_or("--listen takes ADDRESS:PORT")?;
                cfg.listen = v.parse().map_err(|e| format!("--listen {v}: {e}"))?;
            }
            "--workers" => cfg.workers = number(opt, it.next())?,
            "--threads" => cfg.threads = number(opt, it.next())?,
            "--queue" => cfg.queue = number(opt, it.next())?,
            "--deadline" => {
                // Down to a microsecond (what the tests use to see a deadline
                // pass before any proof starts); at most a day.
                let secs: f64 = number(opt, it.next())?;
                if !(1e-6..=86_400.0).contains(&secs) {
                    return Err(format!("--deadline {secs}: from 0.000001 to 86400 seconds"));
                }
                cfg.deadline = Duration::from_secs_f64(secs)
            }
            "--max-body" => cfg.max_body = number(opt, it.next())?,
            "--keep-results" => cfg.keep_results = number(opt, it.next())?,
            "--token-file" => {
                let path = it.next().ok_or("--token-file takes a file")?;
                let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
                let token = text.trim();
                if token.is_empty() {
                    return Err(format!("{path}: the token file is empty"));
                }
                cfg.token = Some(token.to_string());
            }
            "--backend" => chosen = backend(it.next())?,
            other => {
                return Err(format!(
                    "serve: unknown option {other} (see zkaccel-prover --help)"
                ))
            }
        }
    }
    if circuits.is_empty() {
        return Err("serve needs at least one --circuit NAME=circuit.zkey[,circuit.wasm]".into());
    }
    for (i, c) in circuits.iter().enumerate() {
        if circuits[..i].iter().any(|d| d.name == c.name) {
            return Err(format!("--circuit {}: the name is given twice", c.name));
        }
    }
    cfg.check().map_err(|e| format!("serve: {e}"))?;
    Ok((cfg, circuits, chosen))
}

/// Loads one circuit: the zkey mapped and decoded, the wasm compiled (with
/// the request deadline as the witness's time limit).
fn load(c: &CircuitArg, backend: Backend, deadline: Duration) -> Res<Arc<dyn Circuit>> {
    let path = &c.zkey;
    let file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    let map = ZkeyMap::new(&file).map_err(|e| format!("{path}: {e}"))?;
    match zkey_curve(map.bytes()).map_err(at(path))? {
        Curve::Bn254 => load_on::<ark_bn254::Bn254>(c, &map, backend, deadline),
        Curve::Bls12_381 => load_on::<ark_bls12_381::Bls12_381>(c, &map, backend, deadline),
    }
}

fn load_on<E: CircomCurve>(
    c: &CircuitArg,
    map: &ZkeyMap,
    backend: Backend,
    deadline: Duration,
) -> Res<Arc<dyn Circuit>> {
    let mut prover = CircomProver::<E>::from_zkey_map(map, backend, ZkeyOptions::default())
        .map_err(at(&c.zkey))?;
    if let Some(wasm) = &c.wasm {
        let calc = calculator_with(wasm, Some(deadline))?;
        prover = prover
            .with_calculator(calc)
            .map_err(|e| format!("{wasm}: {e} ({})", c.zkey))?;
    }
    Ok(Arc::new(ServedCircuit::new(c.name.clone(), prover)))
}

pub(crate) fn serve_cmd(args: &[String]) -> Res<std::process::ExitCode> {
    let (cfg, args, backend) = parse(args)?;
    let mut circuits = Circuits::new();
    for c in &args {
        let t = std::time::Instant::now();
        circuits.insert(c.name.clone(), load(c, backend, cfg.deadline)?);
        log::info!(
            "{}: loaded {} in {:.2} s",
            c.name,
            c.zkey,
            t.elapsed().as_secs_f64()
        );
    }
    let (workers, threads) = (cfg.workers, cfg.threads);
    // stdout is line-buffered: the line is out before the first request.
    service::run(cfg, circuits, |addr| {
        say(&format!(
            "zkaccel-prover: listening on http://{addr} ({workers} worker(s), {threads} thread(s))"
        ))
    })
    .map_err(|e| format!("serve: {e}"))?;
    Ok(std::process::ExitCode::SUCCESS)
}
