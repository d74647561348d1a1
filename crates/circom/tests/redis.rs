//! The proving service scaled out over Redis Streams, as running processes:
//! a real `redis-server` on a free loopback port (the one on PATH, or
//! `ZKACCEL_REDIS_SERVER`; scripts/redis-server.sh installs Debian's; a
//! loud SKIP without one), `zkaccel-prover serve --redis` as the front end
//! and `zkaccel-prover worker --redis` processes proving from the stream.
//! Every proof is checked by `zkaccel-prover verify` against the fixture's
//! snarkjs vkey.json and its public signals against snarkjs' public.json.
//! Checked: synchronous and asynchronous proofs through two workers, 4xx
//! for malformed requests while the service keeps serving, the workers'
//! metrics; a full stream answered 503; a worker killed
//! with SIGKILL while it holds a job loses nothing (another claims the job,
//! every job gets one result, the stream ends empty); a result stored by a
//! worker that died before acknowledging is not proved again; a job that
//! every taker died on fails after `--max-deliveries`; SIGTERM stops a
//! worker cleanly.

mod support;

use redis::Value;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use support::service::*;
use support::{read, skip};

/// A `redis-server` on a free loopback port, without persistence; killed
/// when dropped.
struct Redis {
    child: Child,
    url: String,
}

impl Redis {
    /// Starts one, or says SKIP and gives `None` when none is installed.
    fn start(test: &str) -> Option<Redis> {
        let bin = std::env::var("ZKACCEL_REDIS_SERVER").unwrap_or_else(|_| "redis-server".into());
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let child = Command::new(&bin)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let Ok(child) = child else {
            skip(&format!(
                "{test}: no {bin} (scripts/redis-server.sh installs Debian's redis-server)"
            ));
            return None;
        };
        let r = Redis {
            child,
            url: format!("redis://127.0.0.1:{port}/"),
        };
        let t = Instant::now();
        while r.con().is_err() {
            assert!(
                t.elapsed() < Duration::from_secs(10),
                "{bin} did not answer on port {port}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(r)
    }

    fn con(&self) -> redis::RedisResult<redis::Connection> {
        redis::Client::open(self.url.as_str())?.get_connection()
    }

    /// One command's reply.
    fn cmd(&self, args: &[&str]) -> Value {
        let mut c = redis::cmd(args[0]);
        for a in &args[1..] {
            c.arg(*a);
        }
        c.query(&mut self.con().unwrap())
            .unwrap_or_else(|e| panic!("{args:?}: {e}"))
    }

    fn int(&self, args: &[&str]) -> i64 {
        match self.cmd(args) {
            Value::Int(i) => i,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    fn text(&self, args: &[&str]) -> Option<String> {
        match self.cmd(args) {
            Value::Nil => None,
            Value::BulkString(b) => Some(String::from_utf8(b).unwrap()),
            other => panic!("{args:?}: {other:?}"),
        }
    }

    /// The pending entries: (stream id, consumer).
    fn pending(&self) -> Vec<(String, String)> {
        let Value::Array(rows) = self.cmd(&[
            "XPENDING",
            "zkaccel:jobs",
            "zkaccel:workers",
            "-",
            "+",
            "100",
        ]) else {
            return Vec::new();
        };
        rows.iter()
            .filter_map(|r| match r {
                Value::Array(f) => match (&f[0], &f[1]) {
                    (Value::BulkString(id), Value::BulkString(c)) => Some((
                        String::from_utf8(id.clone()).unwrap(),
                        String::from_utf8(c.clone()).unwrap(),
                    )),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }

    /// The job id in stream entry `entry`, if it is in the stream.
    fn job_of(&self, entry: &str) -> Option<String> {
        let Value::Array(es) = self.cmd(&["XRANGE", "zkaccel:jobs", entry, entry]) else {
            return None;
        };
        let Value::Array(pair) = es.first()? else {
            return None;
        };
        let Value::Array(fields) = pair.get(1)? else {
            return None;
        };
        fields.chunks(2).find_map(|kv| match kv {
            [Value::BulkString(k), Value::BulkString(v)] if k == b"id" => {
                Some(String::from_utf8(v.clone()).unwrap())
            }
            _ => None,
        })
    }

    /// The stored result of job `id`, parsed.
    fn result(&self, id: &str) -> Option<serde_json::Value> {
        self.text(&["GET", &format!("zkaccel:result:{id}")])
            .map(|t| serde_json::from_str(&t).unwrap())
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The worker's options for the two fixtures every test serves.
fn worker_args<'a>(redis: &'a Redis, specs: &'a [String], extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["--redis", &redis.url, "--workers", "1", "--threads", "1"];
    for s in specs {
        a.extend(["--circuit", s.as_str()]);
    }
    a.extend_from_slice(extra);
    a
}

fn specs() -> Vec<String> {
    vec![
        spec("poseidon", "poseidon", true),
        spec("merkle", "merkle", false),
    ]
}

fn front(redis: &Redis, extra: &[&str]) -> Server {
    let mut a = vec![
        "--redis",
        &redis.url,
        "--circuit",
        "poseidon",
        "--circuit",
        "merkle",
    ];
    a.extend_from_slice(extra);
    Server::start(&a)
}

/// `n` asynchronous jobs of `body` for `circuit`, each admitted (202): their ids.
fn enqueue(front: &Server, n: usize, circuit: &str, body: &[u8]) -> Vec<String> {
    (0..n)
        .map(|_| {
            let r = post(&front.url, &format!("/v1/prove/{circuit}?async"), body);
            assert_eq!(r.status, 202, "{}", r.body);
            job_id(&r)
        })
        .collect()
}

/// Waits until `cond` holds (up to a minute).
fn until(what: &str, mut cond: impl FnMut() -> bool) {
    let t = Instant::now();
    while !cond() {
        assert!(t.elapsed() < Duration::from_secs(60), "{what}: timed out");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_front_end_and_two_workers_prove_through_redis() {
    let Some(redis) = Redis::start("a_front_end_and_two_workers_prove_through_redis") else {
        return;
    };
    let specs = specs();
    let listen = ["--listen", "127.0.0.1:0"];
    let w1 = Server::worker(&worker_args(&redis, &specs, &listen));
    let w2 = Server::worker(&worker_args(&redis, &specs, &listen));
    let f = front(&redis, &[]);
    let u = &f.url;

    let r = post(u, "/v1/prove/poseidon", &read("poseidon", "input.json"));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_valid("poseidon", &r.body, "redis-sync-input");
    let r = post(u, "/v1/prove/merkle?async", &read("merkle", "witness.wtns"));
    assert_eq!(r.status, 202, "{}", r.body);
    let done = await_job(u, &job_id(&r));
    assert_eq!(done["state"], "done", "{done}");
    assert_valid("merkle", &done["result"].to_string(), "redis-async-wtns");

    // Malformed requests: the workers' reasons reach the client.
    let mut violating = read("poseidon", "witness.wtns");
    violating[76 + 32 * 2] ^= 1;
    let cases: Vec<(&str, Vec<u8>, u16, &str)> = vec![
        ("bad json", b"{\"a\": [1, ".to_vec(), 400, "input"),
        ("no wasm", b"{\"leaf\": \"1\"}".to_vec(), 400, ".wtns"),
        ("violates a constraint", violating, 422, "does not verify"),
    ];
    for (what, body, status, says) in &cases {
        let path = match *what {
            "no wasm" => "/v1/prove/merkle",
            _ => "/v1/prove/poseidon",
        };
        let r = post(u, path, body);
        assert_eq!(r.status, *status, "{what}: {}", r.body);
        assert!(r.body.contains(says), "{what}: {}", r.body);
    }
    assert_eq!(post(u, "/v1/prove/other", b"{}").status, 404);
    assert_eq!(get(u, "/v1/jobs/0123").status, 404);

    // Sixteen clients at once: every answer a valid proof.
    let input = read("poseidon", "input.json");
    let answers: Vec<Reply> = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..16)
            .map(|_| sc.spawn(|| post(u, "/v1/prove/poseidon", &input)))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (i, r) in answers.iter().enumerate() {
        assert_eq!(r.status, 200, "client {i}: {}", r.body);
        assert_valid("poseidon", &r.body, &format!("redis-client-{i}"));
    }
    let h = get(u, "/health");
    assert_eq!(h.status, 200, "{}", h.body);
    assert_eq!(redis.int(&["XLEN", "zkaccel:jobs"]), 0, "entries left");
    assert!(redis.pending().is_empty(), "entries left pending");
    // Each worker counts what it proved: together, every request.
    let both = |series: &str| metric(&w1.url, series) + metric(&w2.url, series);
    assert_eq!(both(r#"zkaccel_proofs_total{circuit="poseidon"}"#), 17.0);
    assert_eq!(both(r#"zkaccel_proofs_total{circuit="merkle"}"#), 1.0);
    let failed = |c: &str, cause: &str| {
        both(&format!(
            r#"zkaccel_failures_total{{circuit="{c}",cause="{cause}"}}"#
        ))
    };
    assert_eq!(failed("poseidon", "bad_request"), 1.0);
    assert_eq!(failed("merkle", "bad_request"), 1.0);
    assert_eq!(failed("poseidon", "unsatisfied"), 1.0);
    assert_eq!(metric(u, "zkaccel_queue_depth"), 0.0);
}

#[test]
fn a_full_stream_answers_503_and_its_jobs_wait_for_a_worker() {
    let Some(redis) = Redis::start("a_full_stream_answers_503") else {
        return;
    };
    let f = front(&redis, &["--queue", "2"]);
    let wtns = read("merkle", "witness.wtns");
    let ids = enqueue(&f, 2, "merkle", &wtns);
    for id in &ids {
        let r = get(&f.url, &format!("/v1/jobs/{id}"));
        assert!(r.body.contains("\"queued\""), "{}", r.body);
    }
    let r = post(&f.url, "/v1/prove/merkle?async", &wtns);
    assert_eq!(r.status, 503, "{}", r.body);
    assert!(r.retry_after.is_some(), "503 without Retry-After");
    assert_eq!(metric(&f.url, "zkaccel_queue_depth"), 2.0);
    let _w = Server::worker(&worker_args(&redis, &specs(), &[]));
    for id in &ids {
        let done = await_job(&f.url, id);
        assert_valid("merkle", &done["result"].to_string(), "after-full");
    }
}

#[test]
fn a_worker_killed_while_holding_a_job_loses_nothing() {
    let Some(redis) = Redis::start("a_worker_killed_while_holding_a_job_loses_nothing") else {
        return;
    };
    let specs = specs();
    let mut a = Server::worker(&worker_args(&redis, &specs, &[]));
    let a_name = format!("-{}-0", a.child.id());
    let f = front(&redis, &[]);
    let input = read("poseidon", "input.json");
    let ids = enqueue(&f, 24, "poseidon", &input);
    // Stop worker A while it holds a job (read, not yet acknowledged), and
    // kill it there; if it acknowledged before the stop took, try again.
    let mut held = None;
    for _ in 0..200 {
        let mine =
            |p: &Vec<(String, String)>| p.iter().find(|(_, c)| c.ends_with(&a_name)).cloned();
        let mut seen = None;
        until("worker A holds a job", || {
            seen = mine(&redis.pending());
            seen.is_some() || redis.int(&["XLEN", "zkaccel:jobs"]) == 0
        });
        if seen.is_none() {
            break;
        }
        a.signal("-STOP");
        if let Some(entry) = mine(&redis.pending()) {
            held = Some(entry.0);
            a.signal("-KILL");
            break;
        }
        a.signal("-CONT");
    }
    let Some(held) = held else {
        panic!("worker A finished all 24 jobs before it could be caught holding one");
    };
    a.wait_exit(Duration::from_secs(10));
    let held_id = redis
        .job_of(&held)
        .unwrap_or_else(|| panic!("the held entry {held} left the stream"));
    assert!(ids.contains(&held_id), "the held entry is one of ours");
    let stored_before = redis.result(&held_id);

    // Worker B claims what A held once it has been idle for 0.3 s.
    let b = Server::worker(&worker_args(&redis, &specs, &["--claim-after", "0.3"]));
    for (i, id) in ids.iter().enumerate() {
        let done = await_job(&f.url, id);
        assert_eq!(done["state"], "done", "job {i}: {done}");
        assert_valid(
            "poseidon",
            &done["result"].to_string(),
            &format!("killed-{i}"),
        );
    }
    until("the stream is empty", || {
        redis.int(&["XLEN", "zkaccel:jobs"]) == 0 && redis.pending().is_empty()
    });
    let keys = match redis.cmd(&["KEYS", "zkaccel:result:*"]) {
        Value::Array(k) => k.len(),
        other => panic!("{other:?}"),
    };
    assert_eq!(keys, ids.len(), "one result per job");
    let result = redis.result(&held_id).unwrap();
    let b_name = format!("-{}-0", b.child.id());
    match stored_before {
        // A was killed before it stored: B proved the job again.
        None => {
            assert!(
                result["worker"].as_str().unwrap().ends_with(&b_name),
                "{result}"
            );
            assert_eq!(result["deliveries"], 2, "{result}");
            eprintln!("killed before storing: worker B proved the job (2nd delivery)");
        }
        // A stored, then died before acknowledging: B only acknowledged.
        Some(before) => {
            assert_eq!(result, before, "a stored result was replaced");
            eprintln!("killed after storing: worker B acknowledged A's result");
        }
    }
}

#[test]
fn stored_results_are_not_proved_again_and_a_job_that_kills_its_workers_fails() {
    let Some(redis) = Redis::start("stored_results_are_not_proved_again") else {
        return;
    };
    redis.cmd(&[
        "XGROUP",
        "CREATE",
        "zkaccel:jobs",
        "zkaccel:workers",
        "0",
        "MKSTREAM",
    ]);
    let input = String::from_utf8(read("poseidon", "input.json")).unwrap();
    let far = "99999999999999";
    for id in ["stored", "poison"] {
        redis.cmd(&[
            "XADD",
            "zkaccel:jobs",
            "*",
            "id",
            id,
            "circuit",
            "poseidon",
            "body",
            &input,
            "arrived",
            "0",
            "deadline",
            far,
        ]);
    }
    // A consumer that then "dies" reads both: they are pending under it,
    // delivered once.
    redis.cmd(&[
        "XREADGROUP",
        "GROUP",
        "zkaccel:workers",
        "dead",
        "COUNT",
        "2",
        "STREAMS",
        "zkaccel:jobs",
        ">",
    ]);
    // "poison" was taken twice more by workers that died with it.
    let poison_entry = match redis.cmd(&["XRANGE", "zkaccel:jobs", "-", "+"]) {
        Value::Array(es) => match &es[1] {
            Value::Array(pair) => match &pair[0] {
                Value::BulkString(id) => String::from_utf8(id.clone()).unwrap(),
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    };
    for dead in ["dead2", "dead3"] {
        redis.cmd(&[
            "XCLAIM",
            "zkaccel:jobs",
            "zkaccel:workers",
            dead,
            "0",
            &poison_entry,
        ]);
    }
    // "stored" had its result written before its worker died.
    let planted = r#"{"status":200,"worker":"dead","deliveries":1,"result":{"planted":true}}"#;
    redis.cmd(&["SET", "zkaccel:result:stored", planted]);
    let specs = specs();
    let _w = Server::worker(&worker_args(
        &redis,
        &specs,
        &["--claim-after", "0.2", "--max-deliveries", "3"],
    ));
    until("both entries are acknowledged", || {
        redis.pending().is_empty() && redis.int(&["XLEN", "zkaccel:jobs"]) == 0
    });
    assert_eq!(
        redis.text(&["GET", "zkaccel:result:stored"]).as_deref(),
        Some(planted),
        "a stored result was replaced"
    );
    // A proof would have marked the job running first.
    assert_eq!(
        redis.text(&["GET", "zkaccel:state:stored"]),
        None,
        "a job with a stored result was proved again"
    );
    assert_eq!(redis.text(&["GET", "zkaccel:state:poison"]), None);
    let poison = redis.result("poison").expect("a result for the poison job");
    assert_eq!(poison["status"], 500, "{poison}");
    assert_eq!(poison["deliveries"], 4, "{poison}");
    assert!(
        poison["error"]
            .as_str()
            .unwrap()
            .contains("delivered 4 times"),
        "{poison}"
    );
}

#[test]
fn sigterm_stops_a_worker_after_its_job_and_a_front_end_needs_redis() {
    let Some(redis) = Redis::start("sigterm_stops_a_worker") else {
        return;
    };
    let specs = specs();
    let mut w = Server::worker(&worker_args(&redis, &specs, &[]));
    let f = front(&redis, &[]);
    let ids = enqueue(&f, 6, "merkle", &read("merkle", "witness.wtns"));
    until("the worker holds a job", || {
        !redis.pending().is_empty() || redis.int(&["XLEN", "zkaccel:jobs"]) == 0
    });
    w.signal("-TERM");
    let status = w.wait_exit(Duration::from_secs(30));
    assert!(status.success(), "the worker exited with {status}");
    assert!(redis.pending().is_empty(), "the worker left a job pending");
    // Its consumer is gone from the group.
    let consumers = redis.cmd(&["XINFO", "CONSUMERS", "zkaccel:jobs", "zkaccel:workers"]);
    assert_eq!(consumers, Value::Array(Vec::new()), "consumers left");
    // The jobs it did not take wait for the next worker.
    let _w2 = Server::worker(&worker_args(&redis, &specs, &[]));
    for id in &ids {
        let done = await_job(&f.url, id);
        assert_valid("merkle", &done["result"].to_string(), "after-sigterm");
    }

    // A front end whose Redis is gone answers 503, not a hang or a 500.
    drop(_w2);
    drop(redis);
    let r = post(&f.url, "/v1/prove/merkle", &read("merkle", "witness.wtns"));
    assert_eq!(r.status, 503, "{}", r.body);
    assert!(r.body.contains("cannot be reached"), "{}", r.body);
    assert_eq!(get(&f.url, "/health").status, 503);
    let out = Command::new(BIN)
        .args(["serve", "--redis", "redis://127.0.0.1:1/", "--circuit", "p"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("redis://127.0.0.1:1/"), "{err}");
}
