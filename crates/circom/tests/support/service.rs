//! The proving service's test helpers: its processes (`zkaccel-prover
//! serve` and `worker`) started on loopback and killed when dropped, an
//! HTTP client, and the check of a returned proof.

use super::{fixture, read};
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_zkaccel-prover");

/// A running `zkaccel-prover serve` or `worker`, killed when dropped.
pub struct Server {
    pub child: Child,
    /// `http://address:port` for `serve`, and for a worker with `--listen`
    /// (its metrics); otherwise empty.
    pub url: String,
}

impl Server {
    /// Starts the service on a free loopback port with `args`.
    pub fn start(args: &[&str]) -> Server {
        let mut all = vec!["--listen", "127.0.0.1:0"];
        all.extend_from_slice(args);
        Server::spawn("serve", &all)
    }

    /// Starts `zkaccel-prover worker` with `args`, once it says it consumes.
    pub fn worker(args: &[&str]) -> Server {
        Server::spawn("worker", args)
    }

    /// Runs `zkaccel-prover sub args` and waits for its first line: the
    /// address it listens on, or a worker's "consuming".
    fn spawn(sub: &str, args: &[&str]) -> Server {
        let mut child = Command::new(BIN)
            .arg(sub)
            .args(args)
            .env("ZKACCEL_WASM_CACHE", "off")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("start zkaccel-prover {sub}: {e}"));
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        // serve: "listening on http://ADDR (..."; a worker with --listen:
        // "... metrics on http://ADDR/metrics)".
        let addr = ["listening on ", "metrics on "].iter().find_map(|m| {
            let rest = line.split(m).nth(1)?.split_whitespace().next()?;
            Some(rest.trim_end_matches(')').trim_end_matches("/metrics"))
        });
        if addr.is_none() && !line.contains("worker consuming") {
            let mut err = String::new();
            let _ = child.stderr.take().unwrap().read_to_string(&mut err);
            panic!("zkaccel-prover {sub} did not start: {line:?} {err}");
        }
        Server {
            child,
            url: addr.unwrap_or_default().to_string(),
        }
    }

    pub fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .args([sig, &self.child.id().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill {sig}");
    }

    /// Waits up to `limit` for the process to exit; its status.
    pub fn wait_exit(&mut self, limit: Duration) -> std::process::ExitStatus {
        let t = Instant::now();
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s;
            }
            assert!(
                t.elapsed() < limit,
                "the service did not exit within {limit:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An answer: status, Retry-After and Location headers, body.
pub struct Reply {
    pub status: u16,
    pub retry_after: Option<String>,
    pub location: Option<String>,
    pub body: String,
}

pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into()
}

pub fn reply(r: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Reply {
    let mut r = r.expect("an HTTP answer");
    let header = |n: &str| r.headers().get(n).map(|v| v.to_str().unwrap().to_string());
    let (retry_after, location) = (header("retry-after"), header("location"));
    let mut body = String::new();
    r.body_mut().as_reader().read_to_string(&mut body).unwrap();
    Reply {
        status: r.status().as_u16(),
        retry_after,
        location,
        body,
    }
}

pub fn post(url: &str, path: &str, body: &[u8]) -> Reply {
    reply(agent().post(&format!("{url}{path}")).send(body))
}

pub fn get(url: &str, path: &str) -> Reply {
    reply(agent().get(&format!("{url}{path}")).call())
}

pub fn scratch(name: &str) -> PathBuf {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("serve-{name}"));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Checks a `{proof, publicSignals}` answer: `zkaccel-prover verify`
/// accepts it under the fixture's vkey.json, and its public signals are the
/// fixture's public.json (snarkjs').
pub fn assert_valid(fixture_name: &str, answer: &str, tag: &str) {
    let v: serde_json::Value =
        serde_json::from_str(answer).unwrap_or_else(|e| panic!("{tag}: {e}: {answer}"));
    let d = scratch(&format!("{fixture_name}-{tag}"));
    let (proof, public) = (d.join("proof.json"), d.join("public.json"));
    std::fs::write(&proof, v["proof"].to_string()).unwrap();
    std::fs::write(&public, v["publicSignals"].to_string()).unwrap();
    let out = Command::new(BIN)
        .arg("verify")
        .arg(fixture(fixture_name, "vkey.json"))
        .arg(&public)
        .arg(&proof)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{tag}: zkaccel-prover verify refused the proof: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected: serde_json::Value =
        serde_json::from_slice(&read(fixture_name, "public.json")).unwrap();
    assert_eq!(v["publicSignals"], expected, "{tag}: public signals");
}

/// The id in a 202 answer.
pub fn job_id(r: &Reply) -> String {
    let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    v["id"].as_str().unwrap().to_string()
}

/// Polls a job until it is finished; its final JSON.
pub fn await_job(url: &str, id: &str) -> serde_json::Value {
    let t = Instant::now();
    loop {
        let r = get(url, &format!("/v1/jobs/{id}"));
        assert_eq!(r.status, 200, "job {id}: {}", r.body);
        let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
        match v["state"].as_str() {
            Some("done") | Some("failed") => return v,
            Some("queued") | Some("running") => {}
            other => panic!("job {id}: state {other:?}"),
        }
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "job {id} did not finish"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

pub fn spec(name: &str, fixture_name: &str, wasm: bool) -> String {
    let zkey = fixture(fixture_name, "circuit.zkey");
    match wasm {
        true => format!(
            "{name}={},{}",
            zkey.display(),
            fixture(fixture_name, "circuit.wasm").display()
        ),
        false => format!("{name}={}", zkey.display()),
    }
}

/// A metric's value in the text format (`name{labels} value`).
pub fn metric(url: &str, series: &str) -> f64 {
    let text = get(url, "/metrics").body;
    text.lines()
        .find_map(|l| l.strip_prefix(series).and_then(|v| v.strip_prefix(' ')))
        .map_or(0.0, |v| v.trim().parse().unwrap())
}
