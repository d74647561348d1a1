//! The proving service as a running process: `zkaccel-prover serve` on a
//! loopback port (port 0, the bound address read from its first line),
//! driven over HTTP. Every returned proof is checked by `zkaccel-prover
//! verify` against the fixture's snarkjs `vkey.json`, and its public signals
//! against the fixture's `public.json` (snarkjs' own output). Checked: the
//! synchronous and asynchronous forms with `input.json` and `.wtns` bodies;
//! every malformed request answered 4xx while the service keeps serving; a
//! full queue answered 503 with Retry-After and no admitted job lost; 64
//! concurrent clients (zkaccel-load) given only valid proofs or 503s;
//! SIGTERM drains; the bearer token; the deadline; the metrics' counts.

mod support;

use std::process::Command;
use std::time::{Duration, Instant};
use support::service::*;
use support::{fixture, read};

const LOAD: &str = env!("CARGO_BIN_EXE_zkaccel-load");

#[test]
fn proves_inputs_and_witnesses_synchronously_and_asynchronously() {
    let s = Server::start(&[
        "--circuit",
        &spec("poseidon", "poseidon", true),
        "--circuit",
        &spec("merkle", "merkle", false),
        "--circuit",
        &spec("bls", "poseidon_bls", true),
    ]);
    let u = &s.url;
    let input = read("poseidon", "input.json");
    let r = post(u, "/v1/prove/poseidon", &input);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_valid("poseidon", &r.body, "sync-input");

    let r = post(u, "/v1/prove/poseidon", &read("poseidon", "witness.wtns"));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_valid("poseidon", &r.body, "sync-wtns");

    let r = post(u, "/v1/prove/bls", &read("poseidon_bls", "input.json"));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_valid("poseidon_bls", &r.body, "sync-bls");

    let merkle_wtns = read("merkle", "witness.wtns");
    let r = post(u, "/v1/prove/merkle?async", &merkle_wtns);
    assert_eq!(r.status, 202, "{}", r.body);
    let id = job_id(&r);
    assert_eq!(
        r.location.as_deref(),
        Some(format!("/v1/jobs/{id}").as_str())
    );
    let done = await_job(u, &id);
    assert_eq!(done["state"], "done", "{done}");
    assert_valid("merkle", &done["result"].to_string(), "async-wtns");

    // The Prefer header asks for the same.
    let r = reply(
        agent()
            .post(&format!("{u}/v1/prove/poseidon"))
            .header("Prefer", "respond-async")
            .send(&input[..]),
    );
    assert_eq!(r.status, 202, "{}", r.body);
    let id = job_id(&r);
    assert_valid(
        "poseidon",
        &await_job(u, &id)["result"].to_string(),
        "async-input",
    );

    // merkle was served without its wasm: input.json is refused, by name.
    let r = post(u, "/v1/prove/merkle", b"{\"leaf\": \"1\"}");
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.body.contains(".wtns"), "{}", r.body);

    let h = get(u, "/health");
    assert_eq!(h.status, 200);
    let h: serde_json::Value = serde_json::from_str(&h.body).unwrap();
    assert_eq!(
        h["circuits"],
        serde_json::json!(["bls", "merkle", "poseidon"])
    );
    assert_eq!(
        metric(u, r#"zkaccel_proofs_total{circuit="poseidon"}"#),
        3.0
    );
    assert_eq!(metric(u, r#"zkaccel_proofs_total{circuit="merkle"}"#), 1.0);
    assert_eq!(
        metric(u, r#"zkaccel_witness_seconds_count{circuit="poseidon"}"#),
        2.0
    );
    assert_eq!(
        metric(u, r#"zkaccel_verify_seconds_count{circuit="bls"}"#),
        1.0
    );
    assert_eq!(metric(u, "zkaccel_keys_loaded"), 3.0);
}

#[test]
fn malformed_requests_get_a_4xx_and_the_service_keeps_serving() {
    let s = Server::start(&[
        "--circuit",
        &spec("poseidon", "poseidon", true),
        "--max-body",
        "20000",
    ]);
    let u = &s.url;
    let wtns = read("poseidon", "witness.wtns");
    // Wire 2's value plus or minus one (a .wtns is 12 bytes of file header,
    // 12 + 40 of section 1, 12 of section 2's header, then 32 bytes a
    // wire): the witness no longer satisfies the constraints, the proof
    // cannot verify, and the service says so instead of returning it.
    let mut violating = wtns.clone();
    violating[76 + 32 * 2] ^= 1;
    let other = read("arrays", "witness.wtns");
    let cases: Vec<(&str, Vec<u8>, u16, &str)> = vec![
        ("bad json", b"{\"a\": [1, ".to_vec(), 400, "input"),
        ("unknown signal", b"{\"nope\": \"1\"}".to_vec(), 400, "nope"),
        (
            "not a number",
            b"{\"a\": \"x\", \"b\": \"2\"}".to_vec(),
            400,
            "`a`",
        ),
        ("oversize", vec![b' '; 20001], 413, "20000"),
        (
            "truncated wtns",
            wtns[..wtns.len() - 7].to_vec(),
            400,
            "wtns",
        ),
        ("wrong witness length", other, 400, "signals"),
        ("violates a constraint", violating, 422, "does not verify"),
    ];
    for (what, body, status, says) in &cases {
        let r = post(u, "/v1/prove/poseidon", body);
        assert_eq!(r.status, *status, "{what}: {}", r.body);
        let v: serde_json::Value =
            serde_json::from_str(&r.body).unwrap_or_else(|e| panic!("{what}: {e}: {}", r.body));
        let msg = v["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{what}: {}", r.body));
        assert!(
            msg.contains(says),
            "{what}: {msg:?} does not mention {says:?}"
        );
    }
    assert_eq!(post(u, "/v1/prove/other", b"{}").status, 404);
    assert_eq!(post(u, "/v1/prove/..%2fcircuit", b"{}").status, 404);
    assert_eq!(get(u, "/v1/jobs/0123").status, 404);
    assert_eq!(get(u, "/v1/nothing").status, 404);
    // Still serving, and every failure counted by its cause.
    let r = post(u, "/v1/prove/poseidon", &wtns);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_valid("poseidon", &r.body, "after-errors");
    assert_eq!(
        metric(
            u,
            r#"zkaccel_failures_total{circuit="poseidon",cause="bad_request"}"#
        ),
        5.0
    );
    assert_eq!(
        metric(
            u,
            r#"zkaccel_failures_total{circuit="poseidon",cause="unsatisfied"}"#
        ),
        1.0
    );
}

#[test]
fn a_full_queue_answers_503_and_every_admitted_job_gets_one_valid_proof() {
    let s = Server::start(&[
        "--circuit",
        &spec("merkle", "merkle", false),
        "--queue",
        "2",
        "--workers",
        "1",
    ]);
    let u = s.url.clone();
    let wtns = read("merkle", "witness.wtns");
    let replies: Vec<Reply> = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..24)
            .map(|_| sc.spawn(|| post(&u, "/v1/prove/merkle?async", &wtns)))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let ids: Vec<String> = replies
        .iter()
        .filter(|r| r.status == 202)
        .map(job_id)
        .collect();
    let full: Vec<&Reply> = replies.iter().filter(|r| r.status == 503).collect();
    assert_eq!(ids.len() + full.len(), 24, "only 202 or 503");
    assert!(
        !full.is_empty(),
        "24 jobs at once into a queue of 2 must overflow"
    );
    for r in &full {
        let secs: u64 = r
            .retry_after
            .as_deref()
            .expect("Retry-After")
            .parse()
            .unwrap();
        assert!((1..=3600).contains(&secs));
    }
    let unique: std::collections::BTreeSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "job ids are distinct");
    for (i, id) in ids.iter().enumerate() {
        let v = await_job(&u, id);
        assert_eq!(v["state"], "done", "{v}");
        assert_valid("merkle", &v["result"].to_string(), &format!("queued-{i}"));
    }
    assert_eq!(
        metric(&u, r#"zkaccel_proofs_total{circuit="merkle"}"#),
        ids.len() as f64
    );
    assert_eq!(
        metric(&u, r#"zkaccel_rejected_total{reason="queue_full"}"#),
        full.len() as f64
    );
}

#[test]
fn sixty_four_clients_get_only_valid_proofs_or_503s() {
    let s = Server::start(&[
        "--circuit",
        &spec("poseidon", "poseidon", true),
        "--queue",
        "8",
    ]);
    let out = Command::new(LOAD)
        .args(["--url", &format!("{}/v1/prove/poseidon", s.url)])
        .arg("--body")
        .arg(fixture("poseidon", "input.json"))
        .arg("--vkey")
        .arg(fixture("poseidon", "vkey.json"))
        .args([
            "--clients",
            "64",
            "--requests",
            "192",
            "--duration",
            "60",
            "--json",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "zkaccel-load: {text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(v["sent"], 192, "{v}");
    assert_eq!(v["invalid"], 0, "{v}");
    assert_eq!(v["transport_errors"], 0, "{v}");
    assert_eq!(v["other_status"], serde_json::json!({}), "{v}");
    let (ok, rejected) = (
        v["ok"].as_u64().unwrap(),
        v["rejected_503"].as_u64().unwrap(),
    );
    assert_eq!(ok + rejected, 192, "{v}");
    assert!(ok >= 9, "at least the first queue's worth proved: {v}");
    assert_eq!(
        metric(&s.url, r#"zkaccel_proofs_total{circuit="poseidon"}"#),
        ok as f64
    );
}

#[test]
fn sigterm_drains_queued_and_running_proofs_then_exits() {
    let mut s = Server::start(&[
        "--circuit",
        &spec("merkle", "merkle", false),
        "--queue",
        "16",
    ]);
    let u = s.url.clone();
    let wtns = read("merkle", "witness.wtns");
    let ids: Vec<String> = (0..8)
        .map(|_| {
            let r = post(&u, "/v1/prove/merkle?async", &wtns);
            assert_eq!(r.status, 202, "{}", r.body);
            job_id(&r)
        })
        .collect();
    std::thread::scope(|sc| {
        // A synchronous request behind the eight: admitted before the signal.
        let sync = sc.spawn(|| post(&u, "/v1/prove/merkle", &wtns));
        let t = Instant::now();
        while metric(&u, "zkaccel_queue_depth") + metric(&u, "zkaccel_proofs_running") < 9.0 {
            assert!(
                t.elapsed() < Duration::from_secs(30),
                "the sync request was not admitted"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        s.signal("-TERM");
        // Draining: new work refused, state still readable.
        let t = Instant::now();
        let mut refused = false;
        while !refused && t.elapsed() < Duration::from_secs(5) {
            let r = post(&u, "/v1/prove/merkle", &wtns);
            assert!(
                r.status == 503 || r.status == 200,
                "{}: {}",
                r.status,
                r.body
            );
            refused = r.status == 503;
        }
        assert!(refused, "no 503 while draining");
        let r = sync.join().unwrap();
        assert_eq!(r.status, 200, "the admitted sync request: {}", r.body);
        assert_valid("merkle", &r.body, "drained-sync");
    });
    let status = s.wait_exit(Duration::from_secs(60));
    assert!(status.success(), "exit status {status}");
    // The queued jobs all ran: their proofs were counted before the exit
    // (the store goes with the process; a client that needs results across
    // restarts polls before the drain ends, or uses the Redis workers).
    let _ = ids;
}

#[test]
fn the_bearer_token_guards_the_api_and_the_deadline_is_kept() {
    let d = scratch("token");
    let token = d.join("token");
    std::fs::write(&token, "s3cret-token\n").unwrap();
    let s = Server::start(&[
        "--circuit",
        &spec("poseidon", "poseidon", true),
        "--token-file",
        token.to_str().unwrap(),
        "--deadline",
        "0.000001",
    ]);
    let u = &s.url;
    let input = read("poseidon", "input.json");
    assert_eq!(post(u, "/v1/prove/poseidon", &input).status, 401);
    assert_eq!(get(u, "/metrics").status, 401);
    assert_eq!(get(u, "/health").status, 200, "health is open");
    let with = |t: &str| {
        reply(
            agent()
                .post(&format!("{u}/v1/prove/poseidon"))
                .header("Authorization", &format!("Bearer {t}"))
                .send(&input[..]),
        )
    };
    assert_eq!(with("s3cret-tokeX").status, 401);
    // The right token gets through to the deadline, which a microsecond
    // cannot meet: 504, and nothing proved.
    let r = with("s3cret-token");
    assert_eq!(r.status, 504, "{}", r.body);
    let m = reply(
        agent()
            .get(&format!("{u}/metrics"))
            .header("Authorization", "Bearer s3cret-token")
            .call(),
    );
    assert_eq!(m.status, 200);
    assert!(!m.body.contains("zkaccel_proofs_total{"), "{}", m.body);
}

/// A stand-in for circom's C++ generator (`circuit input.json out.wtns`):
/// a shell script doing `body`.
fn generator(name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let f = scratch("generators").join(name);
    std::fs::write(&f, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).unwrap();
    f.display().to_string()
}

/// `--witness-bin`: input.json bodies go through circom's C++ generator (the
/// real one when ZKACCEL_CIRCOM_CPP names them, else a stand-in that writes
/// snarkjs' witness); its failure is a 422 in its own words, bad JSON a 400
/// before it runs.
#[test]
fn witness_bin_computes_input_json_witnesses_with_circoms_generator() {
    let real = std::env::var_os("ZKACCEL_CIRCOM_CPP")
        .filter(|s| !s.is_empty())
        .map(|r| {
            std::path::PathBuf::from(r)
                .join("poseidon")
                .join("poseidon")
        });
    let bin = match &real {
        Some(b) => b.display().to_string(),
        None => {
            support::skip("serve --witness-bin with circom's real generator: ZKACCEL_CIRCOM_CPP is not set (scripts/circom-fixtures.sh --cpp); a stand-in writing snarkjs' witness is used");
            let wtns = fixture("poseidon", "witness.wtns");
            generator("copy", &format!("cp '{}' \"$2\"", wtns.display()))
        }
    };
    let failing = generator("fails", "echo 'Error: Assert Failed. line 7' ; exit 1");
    let s = Server::start(&[
        "--circuit",
        &spec("poseidon", "poseidon", false),
        "--witness-bin",
        &format!("poseidon={bin}"),
        "--circuit",
        &spec("broken", "poseidon", false),
        "--witness-bin",
        &format!("broken={failing}"),
    ]);
    let input = read("poseidon", "input.json");
    let r = post(&s.url, "/v1/prove/poseidon", &input);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_valid("poseidon", &r.body, "witness-bin");
    let r = post(&s.url, "/v1/prove/broken", &input);
    assert_eq!(r.status, 422, "{}", r.body);
    assert!(r.body.contains("Assert Failed"), "{}", r.body);
    let r = post(&s.url, "/v1/prove/poseidon", b"{\"a\": [1, ");
    assert_eq!(r.status, 400, "{}", r.body);
    // A generator that is not there is refused at start-up.
    let out = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--circuit"])
        .arg(spec("poseidon", "poseidon", false))
        .args(["--witness-bin", "poseidon=/nonexistent/circuit"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("/nonexistent/circuit"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
