//! `zkaccel-prover serve`: the proving service over HTTP (docs/service.md).
//! Keys are mapped and decoded once, wasm calculators compiled once (through
//! the module cache), then zkaccel-service answers requests until SIGTERM.
//! With `--redis` the front end loads no key and enqueues in Redis, and
//! `zkaccel-prover worker` proves from there.

use crate::{at, backend, calculator_with, say, Res};
use std::sync::Arc;
use std::time::Duration;
use zkaccel_circom::service::{self, Circuit, Circuits, Config, RedisConfig};
use zkaccel_circom::{
    zkey_curve, CircomCurve, CircomProver, Curve, ServedCircuit, ZkeyMap, ZkeyOptions,
};
use zkaccel_groth16::Backend;

pub(crate) const USAGE: &str =
    "  zkaccel-prover serve --circuit NAME=circuit.zkey[,circuit.wasm] [--circuit ...]
                 [--listen 127.0.0.1:8080] [--workers N] [--threads N] [--queue N] [--deadline SECS]
                 [--max-body BYTES] [--token-file FILE] [--keep-results N] [--backend cpu|cuda|auto]
                 [--witness-bin NAME=circuit_cpp/circuit (circom's C++ generator for NAME's input.json)]
                 (HTTP: POST /v1/prove/NAME, GET /v1/jobs/ID, /health, /metrics; docs/service.md)
  zkaccel-prover serve --redis URL --circuit NAME [--circuit ...] [serve's options]
                 (a front end: jobs go to Redis for the workers; loads no key)
  zkaccel-prover worker --redis URL --circuit NAME=circuit.zkey[,circuit.wasm] [--circuit ...]
                 [--workers N] [--threads N] [--backend ..] [--claim-after SECS] [--max-deliveries N]
                 [--listen ADDRESS:PORT (its /metrics and /health)]
  both with --redis: [--redis-prefix zkaccel] [--keep-for SECS]";

/// One `--circuit NAME=zkey[,wasm]` (a Redis front end's `--circuit NAME`
/// names no files).
struct CircuitArg {
    name: String,
    zkey: Option<String>,
    wasm: Option<String>,
    /// `--witness-bin NAME=PATH`: circom's C++ generator for input.json.
    bin: Option<String>,
}

fn parse_circuit(v: &str) -> Res<CircuitArg> {
    let (name, files) = match v.split_once('=') {
        Some((name, files)) => (name, Some(files)),
        None => (v, None),
    };
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
    let (zkey, wasm) = match files.map(|f| f.split_once(',').unwrap_or((f, ""))) {
        Some((z, w)) => (
            Some(z.to_string()),
            Some(w.to_string()).filter(|w| !w.is_empty()),
        ),
        None => (None, None),
    };
    Ok(CircuitArg {
        name: name.to_string(),
        zkey,
        wasm,
        bin: None,
    })
}

fn number<T: std::str::FromStr>(opt: &str, v: Option<&String>) -> Res<T> {
    v.and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("{opt} takes a number"))
}

/// `serve`'s or `worker`'s options.
struct Opts {
    cfg: Config,
    circuits: Vec<CircuitArg>,
    backend: Backend,
    redis: Option<RedisConfig>,
    /// Whether `--listen` was given (a worker serves its metrics only then).
    listen_given: bool,
}

fn seconds(opt: &str, v: Option<&String>) -> Res<Duration> {
    // Down to a microsecond (what the tests use to see a deadline pass
    // before any proof starts); at most a day.
    let secs: f64 = number(opt, v)?;
    if !(1e-6..=86_400.0).contains(&secs) {
        return Err(format!("{opt} {secs}: from 0.000001 to 86400 seconds"));
    }
    Ok(Duration::from_secs_f64(secs))
}

fn parse(args: &[String]) -> Res<Opts> {
    let mut cfg = Config::default();
    let mut circuits = Vec::new();
    let mut chosen = Backend::Cpu;
    let mut redis: Option<RedisConfig> = None;
    // Redis options may come before --redis: applied after the loop.
    let mut redis_opts: Vec<(String, String)> = Vec::new();
    let mut listen_given = false;
    let mut bins: Vec<(String, String)> = Vec::new();
    let mut it = args.iter();
    while let Some(opt) = it.next() {
        match opt.as_str() {
            "--circuit" => circuits.push(parse_circuit(
                it.next().ok_or("--circuit takes NAME=zkey[,wasm]")?,
            )?),
            "--witness-bin" => {
                let v = it.next().ok_or("--witness-bin takes NAME=PATH")?;
                let (name, path) = v.split_once('=').ok_or_else(|| {
                    format!("--witness-bin {v}: expected NAME=circuit_cpp/circuit")
                })?;
                bins.push((name.to_string(), path.to_string()));
            }
            "--listen" => {
                let v = it.next().ok_or("--listen takes ADDRESS:PORT")?;
                cfg.listen = v.parse().map_err(|e| format!("--listen {v}: {e}"))?;
                listen_given = true;
            }
            "--workers" => cfg.workers = number(opt, it.next())?,
            "--threads" => cfg.threads = number(opt, it.next())?,
            "--queue" => cfg.queue = number(opt, it.next())?,
            "--deadline" => cfg.deadline = seconds(opt, it.next())?,
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
            "--redis" => {
                redis = Some(RedisConfig::new(
                    it.next().ok_or("--redis takes a URL (redis://host:port)")?,
                ))
            }
            "--redis-prefix" | "--claim-after" | "--keep-for" | "--max-deliveries" => {
                let v = it.next().ok_or_else(|| format!("{opt} takes a value"))?;
                redis_opts.push((opt.clone(), v.clone()));
            }
            other => {
                return Err(format!(
                    "unknown option {other} (see zkaccel-prover --help)"
                ))
            }
        }
    }
    if let Some((opt, _)) = redis_opts.first().filter(|_| redis.is_none()) {
        return Err(format!("{opt} applies with --redis only"));
    }
    if let Some(r) = &mut redis {
        for (opt, v) in &redis_opts {
            match opt.as_str() {
                "--redis-prefix" => r.prefix = v.clone(),
                "--claim-after" => r.claim_after = seconds(opt, Some(v))?,
                "--keep-for" => r.keep = seconds(opt, Some(v))?,
                _ => r.max_deliveries = number(opt, Some(v))?,
            }
        }
    }
    if circuits.is_empty() {
        return Err("at least one --circuit is needed".into());
    }
    for (i, c) in circuits.iter().enumerate() {
        if circuits[..i].iter().any(|d| d.name == c.name) {
            return Err(format!("--circuit {}: the name is given twice", c.name));
        }
    }
    for (name, path) in bins {
        let c = circuits
            .iter_mut()
            .find(|c| c.name == name)
            .ok_or_else(|| format!("--witness-bin {name}=..: no --circuit {name}"))?;
        c.bin = Some(path);
    }
    cfg.check()?;
    Ok(Opts {
        cfg,
        circuits,
        backend: chosen,
        redis,
        listen_given,
    })
}

/// Loads one circuit: the zkey mapped and decoded, the wasm compiled (with
/// the request deadline as the witness's time limit).
fn load(c: &CircuitArg, backend: Backend, deadline: Duration) -> Res<Arc<dyn Circuit>> {
    let path = c.zkey.as_deref().ok_or_else(|| {
        format!(
            "--circuit {}: expected NAME=circuit.zkey[,circuit.wasm]",
            c.name
        )
    })?;
    let file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    let map = ZkeyMap::new(&file).map_err(|e| format!("{path}: {e}"))?;
    match zkey_curve(map.bytes()).map_err(at(path))? {
        Curve::Bn254 => load_on::<ark_bn254::Bn254>(c, path, &map, backend, deadline),
        Curve::Bls12_381 => load_on::<ark_bls12_381::Bls12_381>(c, path, &map, backend, deadline),
    }
}

fn load_on<E: CircomCurve>(
    c: &CircuitArg,
    zkey: &str,
    map: &ZkeyMap,
    backend: Backend,
    deadline: Duration,
) -> Res<Arc<dyn Circuit>> {
    let mut prover =
        CircomProver::<E>::from_zkey_map(map, backend, ZkeyOptions::default()).map_err(at(zkey))?;
    if let Some(wasm) = &c.wasm {
        let calc = calculator_with(wasm, Some(deadline))?;
        prover = prover
            .with_calculator(calc)
            .map_err(|e| format!("{wasm}: {e} ({zkey})"))?;
    }
    let mut served = ServedCircuit::new(c.name.clone(), prover);
    if let Some(bin) = &c.bin {
        // Checked now: a missing generator would otherwise fail every request.
        let meta = std::fs::metadata(bin).map_err(|e| format!("--witness-bin {bin}: {e}"))?;
        if !meta.is_file() {
            return Err(format!("--witness-bin {bin}: not a file"));
        }
        served = served.with_witness_bin(bin);
    }
    Ok(Arc::new(served))
}

/// Loads every `--circuit`'s key (and wasm).
fn load_all(o: &Opts) -> Res<Circuits> {
    let mut circuits = Circuits::new();
    for c in &o.circuits {
        let t = std::time::Instant::now();
        circuits.insert(c.name.clone(), load(c, o.backend, o.cfg.deadline)?);
        log::info!(
            "{}: loaded {} in {:.2} s",
            c.name,
            c.zkey.as_deref().unwrap_or_default(),
            t.elapsed().as_secs_f64()
        );
    }
    Ok(circuits)
}

pub(crate) fn serve_cmd(args: &[String]) -> Res<std::process::ExitCode> {
    let o = parse(args).map_err(|e| format!("serve: {e}"))?;
    let (workers, threads) = (o.cfg.workers, o.cfg.threads);
    let served = match o.redis {
        // stdout is line-buffered: the line is out before the first request.
        None => service::run(o.cfg.clone(), load_all(&o)?, |addr| {
            say(&format!(
                "zkaccel-prover: listening on http://{addr} ({workers} worker(s), {threads} thread(s))"
            ))
        }),
        Some(redis) => {
            if let Some(c) = o.circuits.iter().find(|c| c.zkey.is_some()) {
                return Err(format!(
                    "serve --redis: --circuit {}: a front end loads no key; give the name only (the workers load the files)",
                    c.name
                ));
            }
            let names = o.circuits.iter().map(|c| c.name.clone()).collect();
            let url = redis.url.clone();
            service::run_front(o.cfg, redis, names, |addr| {
                say(&format!(
                    "zkaccel-prover: listening on http://{addr} (jobs to the workers on {url})"
                ))
            })
        }
    };
    served.map_err(|e| format!("serve: {e}"))?;
    Ok(std::process::ExitCode::SUCCESS)
}

pub(crate) fn worker_cmd(args: &[String]) -> Res<std::process::ExitCode> {
    let o = parse(args).map_err(|e| format!("worker: {e}"))?;
    let redis = o.redis.clone().ok_or("worker: --redis URL is needed")?;
    let circuits = load_all(&o)?;
    let (workers, url, prefix) = (o.cfg.workers, redis.url.clone(), redis.prefix.clone());
    let metrics_at = o.listen_given.then_some(o.cfg.listen);
    service::run_worker(o.cfg, redis, circuits, metrics_at, |at| {
        let metrics = at.map_or(String::new(), |a| {
            format!("; metrics on http://{a}/metrics")
        });
        say(&format!(
            "zkaccel-prover: worker consuming {prefix}:jobs on {url} ({workers} worker(s){metrics})"
        ))
    })
    .map_err(|e| format!("worker: {e}"))?;
    Ok(std::process::ExitCode::SUCCESS)
}
