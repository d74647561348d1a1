//! Scale-out over Redis Streams (feature `redis`): a front end that enqueues
//! instead of proving ([`run_front`]) and workers on any number of machines
//! that prove from the stream ([`run_worker`]). No coordinator of our own:
//! Redis' consumer group hands each job to one worker, and a job whose
//! worker died is claimed by another after [`RedisConfig::claim_after`].
//!
//! ```text
//! {prefix}:jobs           stream; an entry: id, circuit, body, arrived and deadline (unix ms)
//! {prefix}:workers        its consumer group
//! {prefix}:state:{id}     "queued" | "running"        (expires after `keep`)
//! {prefix}:result:{id}    the outcome, JSON, written once (SET NX; expires after `keep`)
//! {prefix}:done:{id}      a list the front end's synchronous request waits on (BLPOP)
//! ```
//! A worker stores the result, then acknowledges (XACK) and deletes the
//! entry. A worker killed before it stored leaves the entry pending: another
//! claims it (XAUTOCLAIM) and proves it. A worker killed after it stored
//! but before it acknowledged leaves a stored result: the next one to claim
//! the entry finds the result and only acknowledges. Either way a job gets
//! one result. A job delivered [`RedisConfig::max_deliveries`] times without
//! a result (it killed every worker that took it) fails with a 500 instead
//! of killing the next.

use crate::jobs::{new_id, State};
use crate::metrics::Metrics;
use crate::pool::{attempt, rayon_pool, Refused};
use crate::{Body, Circuits, Config, ErrorKind, JobError, Proved};
use redis::{Client, Connection, Value};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Where and how jobs are kept in Redis (`--redis`, `--redis-prefix`,
/// `--claim-after`, `--keep-for`).
#[derive(Clone, Debug)]
pub struct RedisConfig {
    /// The server, e.g. `redis://127.0.0.1:6379/0` (`rediss://` is not
    /// built in).
    pub url: String,
    /// The keys' prefix: front ends and workers of one service share it.
    /// Every worker on a prefix must serve every circuit its front ends
    /// accept (a job for a circuit its worker lacks fails with a 400).
    pub prefix: String,
    /// How long a job may sit with a worker that no longer refreshes it
    /// before another worker claims it. A live worker refreshes its jobs
    /// every third of this, however long the proof takes.
    pub claim_after: Duration,
    /// How long results and job states are kept for `GET /v1/jobs/{id}`.
    pub keep: Duration,
    /// Deliveries of one job before it is failed instead of proved again.
    pub max_deliveries: u32,
}

impl RedisConfig {
    /// The defaults for `url`: prefix `zkaccel`, claims after 30 s, results
    /// kept an hour, three deliveries.
    pub fn new(url: impl Into<String>) -> Self {
        RedisConfig {
            url: url.into(),
            prefix: "zkaccel".into(),
            claim_after: Duration::from_secs(30),
            keep: Duration::from_secs(3600),
            max_deliveries: 3,
        }
    }

    fn key(&self, what: &str) -> String {
        format!("{}:{what}", self.prefix)
    }

    fn job_key(&self, what: &str, id: &str) -> String {
        format!("{}:{what}:{id}", self.prefix)
    }

    fn client(&self) -> Result<Client, String> {
        Client::open(self.url.as_str()).map_err(|e| format!("--redis {}: {e}", self.url))
    }
}

fn unix_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn now_ms() -> u64 {
    unix_ms(SystemTime::now())
}

fn ms(d: Duration) -> u64 {
    d.as_millis().min(u64::MAX as u128) as u64
}

/// A new connection to Redis, given up after five seconds.
fn connect(client: &Client) -> redis::RedisResult<Connection> {
    client.get_connection_with_timeout(Duration::from_secs(5))
}

/// Creates the stream and its group if they are not there (from the
/// stream's start, so jobs enqueued before any worker came are read).
fn ensure_group(con: &mut Connection, cfg: &RedisConfig) -> redis::RedisResult<()> {
    let r: redis::RedisResult<Value> = redis::cmd("XGROUP")
        .arg("CREATE")
        .arg(cfg.key("jobs"))
        .arg(cfg.key("workers"))
        .arg("0")
        .arg("MKSTREAM")
        .query(con);
    match r {
        Err(e) if e.code() == Some("BUSYGROUP") => Ok(()),
        other => other.map(drop),
    }
}

/// Connections kept for reuse (one is taken per call, and put back unless
/// the call failed).
struct Connections {
    client: Client,
    idle: Mutex<Vec<Connection>>,
}

impl Connections {
    fn get(&self) -> redis::RedisResult<Connection> {
        let kept = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        match kept {
            Some(c) => Ok(c),
            None => connect(&self.client),
        }
    }

    /// Runs `f` on a connection; an error drops the connection.
    fn with<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> redis::RedisResult<T>,
    ) -> Result<T, String> {
        let mut con = self.get().map_err(|e| format!("Redis: {e}"))?;
        let out = f(&mut con).map_err(|e| format!("Redis: {e}"))?;
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < 16 {
            idle.push(con);
        }
        Ok(out)
    }
}

/// What a worker stores under `result:{id}`.
fn stored(outcome: &Result<Proved, JobError>, worker: &str, deliveries: u64) -> String {
    match outcome {
        Ok(p) => format!(
            r#"{{"status":200,"worker":{},"deliveries":{deliveries},"result":{}}}"#,
            serde_json::Value::from(worker),
            p.json
        ),
        Err(e) => serde_json::json!({
            "status": e.kind.status(),
            "worker": worker,
            "deliveries": deliveries,
            "error": e.msg,
        })
        .to_string(),
    }
}

/// A stored result read back: the proof's JSON, or the failure.
fn outcome_of(text: &str) -> Result<String, JobError> {
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| JobError::new(ErrorKind::Internal, format!("a stored result: {e}")))?;
    match v["status"].as_u64() {
        Some(200) => Ok(v["result"].to_string()),
        status => Err(JobError::new(
            ErrorKind::from_status(status.unwrap_or(500) as u16),
            v["error"].as_str().unwrap_or("no reason stored"),
        )),
    }
}

/// The front end's side: admits jobs into the stream and reads results.
pub(crate) struct Front {
    cfg: RedisConfig,
    cons: Connections,
    queue: usize,
    names: Vec<String>,
    closed: AtomicBool,
    pub(crate) metrics: Metrics,
}

impl Front {
    /// Connects (failing at once if Redis cannot be reached) and creates
    /// the stream's group.
    pub(crate) fn connect(
        cfg: RedisConfig,
        queue: usize,
        names: Vec<String>,
    ) -> Result<Self, String> {
        let cons = Connections {
            client: cfg.client()?,
            idle: Mutex::new(Vec::new()),
        };
        cons.with(|c| ensure_group(c, &cfg))
            .map_err(|e| format!("--redis {}: {e}", cfg.url))?;
        Ok(Front {
            cfg,
            cons,
            queue,
            metrics: Metrics::new(0),
            names,
            closed: AtomicBool::new(false),
        })
    }

    pub(crate) fn knows(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }

    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
    }

    pub(crate) fn closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Enqueues a job: its id, or why not (the stream holds `queue` jobs
    /// not yet finished, the service is draining, or Redis is down).
    pub(crate) fn submit(
        &self,
        circuit: &str,
        body: &[u8],
        arrived: SystemTime,
        deadline: SystemTime,
    ) -> Result<String, Refused> {
        if self.closed() {
            return Err(Refused::Draining);
        }
        let id = new_id();
        let cfg = &self.cfg;
        let admitted = self.cons.with(|c| {
            let len: usize = redis::cmd("XLEN").arg(cfg.key("jobs")).query(c)?;
            if len >= self.queue {
                return Ok(false);
            }
            redis::pipe()
                .cmd("SET")
                .arg(cfg.job_key("state", &id))
                .arg("queued")
                .arg("PX")
                .arg(ms(cfg.keep))
                .ignore()
                .cmd("XADD")
                .arg(cfg.key("jobs"))
                .arg("*")
                .arg("id")
                .arg(&id)
                .arg("circuit")
                .arg(circuit)
                .arg("body")
                .arg(body)
                .arg("arrived")
                .arg(unix_ms(arrived))
                .arg("deadline")
                .arg(unix_ms(deadline))
                .ignore()
                .query::<()>(c)?;
            Ok(true)
        });
        match admitted {
            Ok(true) => Ok(id),
            // Workers report no service time here: a second is a guess.
            Ok(false) => Err(Refused::Full { retry_after: 1 }),
            Err(e) => Err(Refused::Unreachable(e)),
        }
    }

    /// Waits up to `limit` for job `id`'s result: `None` if none came.
    pub(crate) fn wait(
        &self,
        id: &str,
        limit: Duration,
    ) -> Result<Option<Result<String, JobError>>, String> {
        let cfg = &self.cfg;
        let text: Option<String> = self.cons.with(|c| {
            c.set_read_timeout(Some(limit + Duration::from_secs(5)))?;
            let secs = limit.as_secs_f64().max(0.01);
            let popped: Option<(String, String)> = redis::cmd("BLPOP")
                .arg(cfg.job_key("done", id))
                .arg(format!("{secs:.3}"))
                .query(c)?;
            c.set_read_timeout(None)?;
            match popped {
                None => Ok(None),
                Some(_) => redis::cmd("GET").arg(cfg.job_key("result", id)).query(c),
            }
        })?;
        Ok(text.map(|t| outcome_of(&t)))
    }

    /// Job `id`'s state, or `None` if Redis knows no such job (never
    /// enqueued, or its result expired).
    pub(crate) fn state(&self, id: &str) -> Result<Option<State>, String> {
        let cfg = &self.cfg;
        let (result, state): (Option<String>, Option<String>) = self.cons.with(|c| {
            redis::pipe()
                .cmd("GET")
                .arg(cfg.job_key("result", id))
                .cmd("GET")
                .arg(cfg.job_key("state", id))
                .query(c)
        })?;
        Ok(match (result, state.as_deref()) {
            (Some(r), _) => Some(match outcome_of(&r) {
                Ok(json) => State::Done(json),
                Err(e) => State::Failed(e),
            }),
            (None, Some("running")) => Some(State::Running),
            (None, Some(_)) => Some(State::Queued),
            (None, None) => None,
        })
    }

    /// Jobs in the stream not yet finished, and those a worker holds.
    pub(crate) fn load(&self) -> Result<(usize, usize), String> {
        let cfg = &self.cfg;
        self.cons.with(|c| {
            let len: usize = redis::cmd("XLEN").arg(cfg.key("jobs")).query(c)?;
            let pending: Value = redis::cmd("XPENDING")
                .arg(cfg.key("jobs"))
                .arg(cfg.key("workers"))
                .query(c)?;
            let held = match &pending {
                Value::Array(v) => v.first().and_then(int).unwrap_or(0) as usize,
                _ => 0,
            };
            Ok((len.saturating_sub(held), held))
        })
    }
}

fn int(v: &Value) -> Option<u64> {
    match v {
        Value::Int(i) => u64::try_from(*i).ok(),
        Value::BulkString(b) => std::str::from_utf8(b).ok()?.parse().ok(),
        Value::SimpleString(s) => s.parse().ok(),
        _ => None,
    }
}

fn bytes(v: &Value) -> Option<&[u8]> {
    match v {
        Value::BulkString(b) => Some(b),
        Value::SimpleString(s) => Some(s.as_bytes()),
        _ => None,
    }
}

/// One stream entry: its stream id and its fields.
struct Entry {
    stream_id: String,
    fields: BTreeMap<String, Vec<u8>>,
}

impl Entry {
    /// `[id, [field, value, ...]]`.
    fn parse(v: &Value) -> Option<Entry> {
        let Value::Array(pair) = v else { return None };
        let stream_id = String::from_utf8(bytes(pair.first()?)?.to_vec()).ok()?;
        let Value::Array(flat) = pair.get(1)? else {
            return None;
        };
        let fields = flat
            .chunks(2)
            .filter_map(|kv| {
                let k = String::from_utf8(bytes(kv.first()?)?.to_vec()).ok()?;
                Some((k, bytes(kv.get(1)?)?.to_vec()))
            })
            .collect();
        Some(Entry { stream_id, fields })
    }

    fn text(&self, field: &str) -> Option<String> {
        String::from_utf8(self.fields.get(field)?.clone()).ok()
    }

    fn number(&self, field: &str) -> Option<u64> {
        self.text(field)?.parse().ok()
    }
}

/// The entries a worker holds, by stream id, with the consumer holding
/// each: the heartbeat refreshes them.
type Held = Mutex<BTreeMap<String, String>>;

/// One worker thread's side of the stream.
struct Consumer {
    cfg: RedisConfig,
    name: String,
    con: Option<Connection>,
    client: Client,
    /// Where the next XAUTOCLAIM scan of the pending entries starts (each
    /// scan looks at a few; "0-0" starts over).
    cursor: String,
}

impl Consumer {
    fn con(&mut self) -> redis::RedisResult<&mut Connection> {
        if self.con.is_none() {
            self.con = Some(connect(&self.client)?);
        }
        Ok(self.con.as_mut().expect("just set"))
    }

    /// The next job: first one a dead worker left (idle past
    /// `claim_after`), else a new one (waiting up to a second).
    fn next(&mut self) -> redis::RedisResult<Option<Entry>> {
        let (jobs, group) = (self.cfg.key("jobs"), self.cfg.key("workers"));
        let (name, idle) = (self.name.clone(), ms(self.cfg.claim_after));
        let cursor = self.cursor.clone();
        let claimed: Value = redis::cmd("XAUTOCLAIM")
            .arg(&jobs)
            .arg(&group)
            .arg(&name)
            .arg(idle)
            .arg(&cursor)
            .arg("COUNT")
            .arg(1)
            .query(self.con()?)?;
        if let Value::Array(parts) = &claimed {
            let next = parts.first().and_then(bytes).map(String::from_utf8_lossy);
            self.cursor = next.map_or_else(|| "0-0".into(), |c| c.into_owned());
            if let Some(Value::Array(entries)) = parts.get(1) {
                if let Some(e) = entries.iter().find_map(Entry::parse) {
                    log::info!("{name}: claimed {} from a worker that stopped", e.stream_id);
                    return Ok(Some(e));
                }
            }
        }
        let con = self.con()?;
        con.set_read_timeout(Some(Duration::from_secs(10)))?;
        let read: Value = redis::cmd("XREADGROUP")
            .arg("GROUP")
            .arg(&group)
            .arg(&name)
            .arg("COUNT")
            .arg(1)
            .arg("BLOCK")
            .arg(1000)
            .arg("STREAMS")
            .arg(&jobs)
            .arg(">")
            .query(con)?;
        // [[stream, [entry]]], or nil after the block.
        let entry = match &read {
            Value::Array(streams) => streams.first().and_then(|s| match s {
                Value::Array(kv) => match kv.get(1) {
                    Some(Value::Array(entries)) => entries.first().and_then(Entry::parse),
                    _ => None,
                },
                _ => None,
            }),
            Value::Map(streams) => streams.first().and_then(|(_, es)| match es {
                Value::Array(entries) => entries.first().and_then(Entry::parse),
                _ => None,
            }),
            _ => None,
        };
        Ok(entry)
    }

    /// How many times the entry was delivered (1 on its first reading).
    fn deliveries(&mut self, stream_id: &str) -> redis::RedisResult<u64> {
        let (jobs, group) = (self.cfg.key("jobs"), self.cfg.key("workers"));
        let v: Value = redis::cmd("XPENDING")
            .arg(jobs)
            .arg(group)
            .arg(stream_id)
            .arg(stream_id)
            .arg(1)
            .query(self.con()?)?;
        // [[id, consumer, idle ms, deliveries]]
        Ok(match &v {
            Value::Array(rows) => match rows.first() {
                Some(Value::Array(row)) => row.get(3).and_then(int).unwrap_or(1),
                _ => 1,
            },
            _ => 1,
        })
    }

    fn has_result(&mut self, id: &str) -> redis::RedisResult<bool> {
        let key = self.cfg.job_key("result", id);
        redis::cmd("EXISTS").arg(key).query(self.con()?)
    }

    fn mark_running(&mut self, id: &str) -> redis::RedisResult<()> {
        let (key, keep) = (self.cfg.job_key("state", id), ms(self.cfg.keep));
        redis::cmd("SET")
            .arg(key)
            .arg("running")
            .arg("PX")
            .arg(keep)
            .query(self.con()?)
    }

    /// Stores `text` as job `id`'s result unless one is there: whether
    /// this call stored it.
    fn store(&mut self, id: &str, text: &str) -> redis::RedisResult<bool> {
        let (key, keep) = (self.cfg.job_key("result", id), ms(self.cfg.keep));
        let set: Option<String> = redis::cmd("SET")
            .arg(key)
            .arg(text)
            .arg("NX")
            .arg("PX")
            .arg(keep)
            .query(self.con()?)?;
        Ok(set.is_some())
    }

    /// Wakes a waiting front end, then acknowledges and deletes the entry:
    /// only after the result is stored.
    fn finish(&mut self, id: &str, stream_id: &str) -> redis::RedisResult<()> {
        let (done, keep) = (self.cfg.job_key("done", id), ms(self.cfg.keep));
        let (jobs, group) = (self.cfg.key("jobs"), self.cfg.key("workers"));
        redis::pipe()
            .cmd("RPUSH")
            .arg(&done)
            .arg(1)
            .ignore()
            .cmd("PEXPIRE")
            .arg(&done)
            .arg(keep)
            .ignore()
            .cmd("XACK")
            .arg(&jobs)
            .arg(&group)
            .arg(stream_id)
            .ignore()
            .cmd("XDEL")
            .arg(&jobs)
            .arg(stream_id)
            .ignore()
            .query(self.con()?)
    }
}

/// What one worker thread shares with the others.
struct Shared {
    circuits: Circuits,
    metrics: Metrics,
    held: Held,
    stop: AtomicBool,
}

/// Proves one entry, stores its result once, then acknowledges it.
fn handle(c: &mut Consumer, shared: &Shared, e: &Entry) -> redis::RedisResult<()> {
    let Some(id) = e.text("id") else {
        // Not written by a front end of ours: dropped so it blocks nothing.
        log::warn!("{}: entry {} has no job id; dropped", c.name, e.stream_id);
        return c.finish("none", &e.stream_id);
    };
    if c.has_result(&id)? {
        log::info!(
            "{}: job {id} has a stored result (its worker stopped before acknowledging); acknowledged",
            c.name
        );
        return c.finish(&id, &e.stream_id);
    }
    let deliveries = c.deliveries(&e.stream_id)?;
    let circuit = e.text("circuit").unwrap_or_default();
    let outcome = if deliveries > u64::from(c.cfg.max_deliveries) {
        let e = JobError::new(
            ErrorKind::Internal,
            format!("delivered {deliveries} times: every worker that took it stopped before storing a result"),
        );
        shared.metrics.failed(&circuit, e.kind);
        Err(e)
    } else {
        let body = Body::from_bytes(e.fields.get("body").cloned().unwrap_or_default());
        let arrived = e.number("arrived").unwrap_or(0);
        let (now, deadline) = (now_ms(), e.number("deadline").unwrap_or(u64::MAX));
        let waited = Duration::from_millis(now.saturating_sub(arrived));
        let running = {
            let mut held = lock_held(shared);
            held.insert(e.stream_id.clone(), c.name.clone());
            held.len()
        };
        shared.metrics.running.set(running as i64);
        let started = || {
            if let Err(err) = c.mark_running(&id) {
                log::warn!("{}: job {id}: {err}", c.name);
            }
        };
        attempt(
            &shared.circuits,
            &shared.metrics,
            &circuit,
            &body,
            waited,
            now > deadline,
            started,
        )
    };
    let text = stored(&outcome, &c.name, deliveries);
    if !c.store(&id, &text)? {
        log::info!(
            "{}: job {id} already had a result (another worker claimed it); ours dropped",
            c.name
        );
    }
    c.finish(&id, &e.stream_id)
}

/// One worker thread: jobs from the stream until told to stop.
fn work(mut c: Consumer, shared: &Shared, rayon: rayon::ThreadPool) {
    while !shared.stop.load(Ordering::SeqCst) {
        let step = c.next().and_then(|e| match e {
            Some(e) => {
                let r = rayon.install(|| handle(&mut c, shared, &e));
                // Held or not, it is not refreshed any more: if it was not
                // acknowledged, another worker claims it after `claim_after`.
                let mut held = lock_held(shared);
                held.remove(&e.stream_id);
                shared.metrics.running.set(held.len() as i64);
                r
            }
            None => Ok(()),
        });
        if let Err(e) = step {
            // The entry (if any) stays pending and is claimed again.
            log::warn!("{}: Redis: {e}; reconnecting in 1 s", c.name);
            c.con = None;
            std::thread::sleep(Duration::from_secs(1));
        }
    }
}

/// Refreshes the held entries' idle time every third of `claim_after`, so
/// that a long proof is not claimed away from a live worker.
fn heartbeat(cfg: &RedisConfig, client: &Client, shared: &Shared) {
    let every = (cfg.claim_after / 3).max(Duration::from_millis(10));
    let mut con: Option<Connection> = None;
    let mut last = std::time::Instant::now();
    while !shared.stop.load(Ordering::SeqCst) || !lock_held(shared).is_empty() {
        // Short naps: a stopped worker's process exits soon after its last job.
        std::thread::sleep(Duration::from_millis(50).min(every));
        if last.elapsed() < every {
            continue;
        }
        last = std::time::Instant::now();
        let held: Vec<(String, String)> = lock_held(shared)
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if held.is_empty() {
            continue;
        }
        if con.is_none() {
            con = connect(client).ok();
        }
        let Some(c) = con.as_mut() else { continue };
        for (stream_id, consumer) in held {
            let r: redis::RedisResult<Value> = redis::cmd("XCLAIM")
                .arg(cfg.key("jobs"))
                .arg(cfg.key("workers"))
                .arg(&consumer)
                .arg(0)
                .arg(&stream_id)
                .arg("JUSTID")
                .query(c);
            if let Err(e) = r {
                log::warn!("heartbeat: {e}");
                con = None;
                break;
            }
        }
    }
}

fn lock_held(shared: &Shared) -> std::sync::MutexGuard<'_, BTreeMap<String, String>> {
    shared.held.lock().unwrap_or_else(|e| e.into_inner())
}

/// A worker process's consumer names are this, then `-` and the thread:
/// host and process id.
fn consumer_prefix() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "host".into());
    format!("{host}-{}", std::process::id())
}

/// Runs `config.workers` worker threads that prove jobs from the stream
/// until SIGTERM or SIGINT; then each finishes the job it holds and the call
/// returns. With `metrics_at`, `GET /metrics` (this worker's proof, witness,
/// verify and queue-wait times, proofs and failures) and `GET /health` are
/// served there over HTTP. `ready` is called once Redis answered, the group
/// exists and the metrics listen (with their bound address). Only `workers`
/// and `threads` of `config` apply (each job carries its front end's
/// deadline).
pub fn run_worker(
    config: Config,
    redis: RedisConfig,
    circuits: Circuits,
    metrics_at: Option<std::net::SocketAddr>,
    ready: impl FnOnce(Option<std::net::SocketAddr>),
) -> std::io::Result<()> {
    let invalid = |e: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, e);
    config.check().map_err(invalid)?;
    let client = redis.client().map_err(invalid)?;
    let mut con = connect(&client)
        .map_err(|e| std::io::Error::other(format!("--redis {}: {e}", redis.url)))?;
    ensure_group(&mut con, &redis)
        .map_err(|e| std::io::Error::other(format!("--redis {}: {e}", redis.url)))?;
    let shared = Arc::new(Shared {
        metrics: Metrics::new(circuits.len()),
        circuits,
        held: Mutex::new(BTreeMap::new()),
        stop: AtomicBool::new(false),
    });
    let bound = watch(shared.clone(), metrics_at)?;
    let prefix = consumer_prefix();
    let mut threads = Vec::new();
    let mut names = Vec::new();
    for i in 0..config.workers {
        let rayon = rayon_pool(i, config.threads_per_worker())?;
        let c = Consumer {
            cfg: redis.clone(),
            name: format!("{prefix}-{i}"),
            con: None,
            client: client.clone(),
            cursor: "0-0".into(),
        };
        names.push(c.name.clone());
        let shared = shared.clone();
        threads.push(
            std::thread::Builder::new()
                .name(format!("zkaccel-worker-{i}"))
                .spawn(move || work(c, &shared, rayon))?,
        );
    }
    let beat = {
        let (shared, cfg, client) = (shared.clone(), redis.clone(), client.clone());
        std::thread::Builder::new()
            .name("zkaccel-heartbeat".into())
            .spawn(move || heartbeat(&cfg, &client, &shared))?
    };
    ready(bound);
    for t in threads {
        let _ = t.join();
    }
    let _ = beat.join();
    // The consumers hold nothing now: removed from the group so that it
    // does not grow with every worker ever started.
    for name in names {
        let r: redis::RedisResult<Value> = redis::cmd("XGROUP")
            .arg("DELCONSUMER")
            .arg(redis.key("jobs"))
            .arg(redis.key("workers"))
            .arg(&name)
            .query(&mut con);
        if let Err(e) = r {
            log::warn!("{name}: {e}");
        }
    }
    log::info!("stopped; every job taken was finished");
    Ok(())
}

/// A thread of its own running a small tokio runtime: sets `stop` on
/// SIGTERM or SIGINT, and until then serves the metrics at `metrics_at`
/// (their bound address is returned).
fn watch(
    shared: Arc<Shared>,
    metrics_at: Option<std::net::SocketAddr>,
) -> std::io::Result<Option<std::net::SocketAddr>> {
    use axum::routing::get;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut signals = rt.block_on(async { crate::signals::Signals::catch() })?;
    let listener = match metrics_at {
        Some(at) => Some(rt.block_on(tokio::net::TcpListener::bind(at))?),
        None => None,
    };
    let bound = listener.as_ref().map(|l| l.local_addr()).transpose()?;
    std::thread::Builder::new()
        .name("zkaccel-signals".into())
        .spawn(move || {
            rt.block_on(async {
                let Some(listener) = listener else {
                    return signals.recv().await;
                };
                let s = shared.clone();
                let router = axum::Router::new()
                    .route("/metrics", get(move || async move { s.metrics.response() }))
                    .route("/health", get(|| async { r#"{"status":"ok"}"# }));
                tokio::select! {
                    _ = signals.recv() => {}
                    r = axum::serve(listener, router) => {
                        log::warn!("the metrics server stopped: {r:?}");
                        signals.recv().await
                    }
                }
            });
            log::info!("signal: stopping (each worker finishes the job it holds)");
            shared.stop.store(true, Ordering::SeqCst);
        })?;
    Ok(bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_results_read_back_as_the_proof_or_the_failure() {
        let ok = Ok(Proved {
            json: r#"{"proof":{"a":1},"publicSignals":["2"]}"#.into(),
            witness: None,
            prove: Duration::ZERO,
            verify: Duration::ZERO,
        });
        let text = stored(&ok, "w\"1", 2);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["worker"], "w\"1");
        assert_eq!(v["deliveries"], 2);
        let back: serde_json::Value = serde_json::from_str(&outcome_of(&text).unwrap()).unwrap();
        assert_eq!(back["publicSignals"][0], "2");
        let failed = Err(JobError::new(ErrorKind::Unsatisfied, "does not verify"));
        let e = outcome_of(&stored(&failed, "w", 1)).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Unsatisfied);
        assert_eq!(e.msg, "does not verify");
        assert_eq!(outcome_of("{").unwrap_err().kind, ErrorKind::Internal);
    }

    #[test]
    fn entries_parse_from_redis_replies() {
        let b = |s: &str| Value::BulkString(s.as_bytes().to_vec());
        let v = Value::Array(vec![
            b("1-0"),
            Value::Array(vec![b("id"), b("ab"), b("deadline"), b("12")]),
        ]);
        let e = Entry::parse(&v).unwrap();
        assert_eq!(e.stream_id, "1-0");
        assert_eq!(e.text("id").as_deref(), Some("ab"));
        assert_eq!(e.number("deadline"), Some(12));
        assert_eq!(e.number("arrived"), None);
        assert!(Entry::parse(&Value::Nil).is_none());
        assert!(Entry::parse(&Value::Array(vec![b("1-0")])).is_none());
    }
}
