//! `zkaccel-load`: a bounded load generator for a proving service on this
//! machine (`zkaccel-prover serve`, or rapidsnark's `proverServer` through
//! scripts/bench-service.sh), loopback addresses only.
//!
//! ```text
//! zkaccel-load --url http://127.0.0.1:8080/v1/prove/NAME --body input.json --vkey vkey.json
//!              [--clients 64] [--requests 100] [--duration 60] [--rate R] [--token-file F] [--json]
//! ```
//! `--clients` threads send `--body` until `--requests` have been sent or
//! `--duration` seconds have passed, whichever comes first. Without
//! `--rate` each client sends its next request when its last is answered
//! (closed loop: the service's capacity); with `--rate R` requests are due
//! at R per second and latency counts from when each was due, not from when
//! a client was free to send it (open loop, no coordinated omission).
//! Every 200's proof is verified against `--vkey` after the run (outside the
//! timed region). Prints throughput, p50/p90/p99 latency, 503s and errors;
//! exits 1 if any proof is invalid or any answer is neither 200 nor 503.

use std::io::Read;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use zkaccel_circom::{
    json_curve, read_proof_json, read_public_json, read_vkey_json, verify, CircomCurve, Curve,
};

const USAGE: &str =
    "usage: zkaccel-load --url http://127.0.0.1:PORT/PATH --body FILE --vkey vkey.json
              [--clients 64] [--requests 100] [--duration 60] [--rate R] [--token-file F] [--json]";

struct Args {
    url: String,
    body: Vec<u8>,
    vkey: String,
    clients: usize,
    requests: usize,
    duration: Duration,
    rate: Option<f64>,
    token: Option<String>,
    json: bool,
}

/// Only loopback targets: `http://127.x.y.z`, `http://[::1]` or
/// `http://localhost`.
fn loopback(url: &str) -> bool {
    let Some(rest) = url.strip_prefix("http://") else {
        return false;
    };
    let host = rest.split('/').next().unwrap_or("");
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(h, _)| h),
    };
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut a = Args {
        url: String::new(),
        body: Vec::new(),
        vkey: String::new(),
        clients: 64,
        requests: 100,
        duration: Duration::from_secs(60),
        rate: None,
        token: None,
        json: false,
    };
    let mut it = args.iter();
    let num = |v: Option<&String>, opt: &str| -> Result<f64, String> {
        v.and_then(|s| s.parse::<f64>().ok())
            .filter(|x| x.is_finite() && *x > 0.0)
            .ok_or_else(|| format!("{opt} takes a positive number"))
    };
    while let Some(opt) = it.next() {
        match opt.as_str() {
            "--url" => a.url = it.next().ok_or("--url takes a URL")?.clone(),
            "--body" => {
                let p = it.next().ok_or("--body takes a file")?;
                a.body = std::fs::read(p).map_err(|e| format!("{p}: {e}"))?;
            }
            "--vkey" => {
                let p = it.next().ok_or("--vkey takes a file")?;
                a.vkey = std::fs::read_to_string(p).map_err(|e| format!("{p}: {e}"))?;
            }
            "--clients" => a.clients = num(it.next(), opt)? as usize,
            "--requests" => a.requests = num(it.next(), opt)? as usize,
            "--duration" => a.duration = Duration::from_secs_f64(num(it.next(), opt)?),
            "--rate" => a.rate = Some(num(it.next(), opt)?),
            "--token-file" => {
                let p = it.next().ok_or("--token-file takes a file")?;
                let t = std::fs::read_to_string(p).map_err(|e| format!("{p}: {e}"))?;
                a.token = Some(t.trim().to_string());
            }
            "--json" => a.json = true,
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown option {other}\n{USAGE}")),
        }
    }
    if a.url.is_empty() || a.vkey.is_empty() {
        return Err(format!("--url, --body and --vkey are required\n{USAGE}"));
    }
    if !loopback(&a.url) {
        return Err(format!(
            "{}: zkaccel-load drives loopback addresses only (http://127.0.0.1:PORT/...)",
            a.url
        ));
    }
    a.clients = a.clients.clamp(1, 1024);
    Ok(a)
}

/// What one request came back with.
struct Answer {
    status: u16,
    latency: Duration,
    body: String,
}

fn send(agent: &ureq::Agent, a: &Args) -> Result<(u16, String), String> {
    let mut req = agent.post(&a.url);
    if let Some(t) = &a.token {
        req = req.header("Authorization", &format!("Bearer {t}"));
    }
    let mut resp = req.send(&a.body[..]).map_err(|e| e.to_string())?;
    let status = resp.status().as_u16();
    let mut body = String::new();
    resp.body_mut()
        .as_reader()
        .read_to_string(&mut body)
        .map_err(|e| e.to_string())?;
    Ok((status, body))
}

/// The run: clients take request numbers from a shared counter.
fn drive(a: &Args) -> (Vec<Answer>, Vec<String>, Duration) {
    let next = AtomicUsize::new(0);
    let answers = Mutex::new(Vec::with_capacity(a.requests));
    let failures = Mutex::new(Vec::new());
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..a.clients {
            s.spawn(|| {
                let agent: ureq::Agent = ureq::Agent::config_builder()
                    .http_status_as_error(false)
                    .timeout_global(Some(a.duration + Duration::from_secs(60)))
                    .build()
                    .into();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= a.requests || start.elapsed() >= a.duration {
                        return;
                    }
                    let due = match a.rate {
                        Some(r) => start + Duration::from_secs_f64(i as f64 / r),
                        None => Instant::now(),
                    };
                    if due >= start + a.duration {
                        return;
                    }
                    std::thread::sleep(due.saturating_duration_since(Instant::now()));
                    match send(&agent, a) {
                        Ok((status, body)) => answers.lock().unwrap().push(Answer {
                            status,
                            latency: due.elapsed(),
                            body,
                        }),
                        Err(e) => failures.lock().unwrap().push(e),
                    }
                }
            });
        }
    });
    let elapsed = start.elapsed();
    (
        answers.into_inner().unwrap(),
        failures.into_inner().unwrap(),
        elapsed,
    )
}

/// How many of the 200 answers hold a proof that `vkey` accepts.
fn check<E: CircomCurve>(vkey: &str, answers: &[&Answer]) -> Result<usize, String> {
    let vk = read_vkey_json::<E>(vkey).map_err(|e| format!("--vkey: {e}"))?;
    let mut valid = 0;
    for a in answers {
        let ok = (|| -> Option<bool> {
            let v: serde_json::Value = serde_json::from_str(&a.body).ok()?;
            let proof = read_proof_json::<E>(&v.get("proof")?.to_string()).ok()?;
            let public = read_public_json::<E>(&v.get("publicSignals")?.to_string()).ok()?;
            verify(&vk, &proof, &public).ok()
        })();
        valid += usize::from(ok == Some(true));
    }
    Ok(valid)
}

fn percentile(sorted: &[Duration], q: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        n => sorted[((q * n as f64).ceil() as usize).clamp(1, n) - 1].as_secs_f64() * 1e3,
    }
}

fn run(args: &[String]) -> Result<ExitCode, String> {
    let a = parse(args)?;
    // Known before the run, as `zkaccel-prover verify` reads a vkey.json
    // (no curve named is bn128).
    let curve = match json_curve(&a.vkey) {
        None => Curve::Bn254,
        Some(c) => Curve::from_name(&c).ok_or(format!("--vkey: unsupported curve {c}"))?,
    };
    let (answers, failures, elapsed) = drive(&a);
    let ok: Vec<&Answer> = answers.iter().filter(|x| x.status == 200).collect();
    let valid = match curve {
        Curve::Bn254 => check::<ark_bn254::Bn254>(&a.vkey, &ok)?,
        Curve::Bls12_381 => check::<ark_bls12_381::Bls12_381>(&a.vkey, &ok)?,
    };
    let rejected = answers.iter().filter(|x| x.status == 503).count();
    let mut other: std::collections::BTreeMap<u16, usize> = Default::default();
    for x in answers
        .iter()
        .filter(|x| x.status != 200 && x.status != 503)
    {
        *other.entry(x.status).or_default() += 1;
    }
    let mut lat: Vec<Duration> = ok.iter().map(|x| x.latency).collect();
    lat.sort();
    let secs = elapsed.as_secs_f64();
    let report = serde_json::json!({
        "sent": answers.len() + failures.len(),
        "ok": ok.len(),
        "valid": valid,
        "invalid": ok.len() - valid,
        "rejected_503": rejected,
        "other_status": other.iter().map(|(k, v)| (k.to_string(), serde_json::Value::from(*v))).collect::<serde_json::Map<_, _>>(),
        "transport_errors": failures.len(),
        "seconds": secs,
        "proofs_per_second": ok.len() as f64 / secs,
        "p50_ms": percentile(&lat, 0.50),
        "p90_ms": percentile(&lat, 0.90),
        "p99_ms": percentile(&lat, 0.99),
        "max_ms": percentile(&lat, 1.0),
        "clients": a.clients,
        "rate": a.rate,
    });
    match a.json {
        true => println!("{report}"),
        false => {
            println!(
                "{} sent in {secs:.2} s: {} proofs ({valid} valid), {rejected} 503, other {other:?}, {} transport errors",
                answers.len() + failures.len(),
                ok.len(),
                failures.len()
            );
            println!(
                "{:.2} proofs/s; latency p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
                ok.len() as f64 / secs,
                percentile(&lat, 0.5),
                percentile(&lat, 0.9),
                percentile(&lat, 0.99),
                percentile(&lat, 1.0)
            );
        }
    }
    if let Some(e) = failures.first() {
        eprintln!("zkaccel-load: first transport error: {e}");
    }
    let clean = valid == ok.len() && other.is_empty() && failures.is_empty();
    Ok(if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("zkaccel-load: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::loopback;

    #[test]
    fn only_loopback_urls_are_driven() {
        for ok in [
            "http://127.0.0.1:8080/v1/prove/a",
            "http://localhost:1/x",
            "http://[::1]:9/x",
            "http://127.3.4.5/",
        ] {
            assert!(loopback(ok), "{ok}");
        }
        for bad in [
            "http://10.0.0.1:80/",
            "https://127.0.0.1/",
            "http://example.com/",
            "http://127.0.0.1.evil.com/",
            "ftp://127.0.0.1/",
        ] {
            assert!(!loopback(bad), "{bad}");
        }
    }
}
