//! A proving service's transport: an HTTP API over a bounded queue of
//! proofs, worker threads that each own a share of the cores, Prometheus
//! metrics and a drain on SIGTERM. What a proof *is* comes from outside:
//! a [`Circuit`] turns a request body (circom's `input.json`, or a `.wtns`
//! file) into snarkjs' `{proof, publicSignals}` JSON, verified. zkaccel-circom
//! implements it for its `CircomProver` and runs this service as
//! `zkaccel-prover serve` (docs/service.md).
//!
//! ```text
//! POST /v1/prove/{name}          body: input.json, or a .wtns file (by its magic "wtns")
//!      ?async or Prefer: respond-async   -> 202 {"id": ..}, Location: /v1/jobs/{id}
//!                                -> 200 {"proof": .., "publicSignals": ..}
//! GET  /v1/jobs/{id}             -> {"id", "state": queued|running|done|failed, "result" | "error"}
//! GET  /health                   -> 200 {"status": "ok", ..}; 503 while draining
//! GET  /metrics                  -> Prometheus text format
//! ```
//! Errors are JSON `{"error": "<reason>"}` with 400 (bad input), 401 (no or
//! wrong bearer token), 404 (unknown circuit or job), 413 (body over the
//! limit), 422 (a witness that does not satisfy the circuit), 503 with
//! `Retry-After` (queue full, or draining), 504 (deadline passed), 500 (a
//! failure of the prover itself).
//!
//! The crate knows nothing of curves or keys, so its own tests drive it with
//! a circuit of their own; it pulls in the async stack (tokio, axum), which
//! is why it is a crate of its own that library users never build.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod http;
mod jobs;
mod metrics;
mod pool;
#[cfg(feature = "redis")]
mod redis;
mod signals;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

pub use jobs::{Body, ErrorKind, JobError, Proved};
#[cfg(feature = "redis")]
pub use redis::{run_worker, RedisConfig};

/// One configured circuit: proves a request body.
pub trait Circuit: Send + Sync + 'static {
    /// Proves `body` and verifies the proof before returning it. Runs on a
    /// worker thread inside that worker's rayon pool, so `rayon`'s parallel
    /// iterators use the worker's share of the cores.
    fn prove(&self, body: &Body) -> Result<Proved, JobError>;

    /// Whether the circuit computes witnesses from `input.json` (it has a
    /// witness calculator); without one only `.wtns` bodies are accepted.
    fn takes_inputs(&self) -> bool;
}

/// The service's settings (`zkaccel-prover serve`'s options).
#[derive(Clone, Debug)]
pub struct Config {
    /// Where to listen; port 0 picks a free port (the bound address is
    /// given to `run`'s `ready`).
    pub listen: SocketAddr,
    /// How many proofs run at once (default 2, or 1 on a one-core machine:
    /// a witness computation is single-threaded and a proof has serial
    /// stretches, so two proofs on half the cores each finished 1.10-1.41x
    /// more proofs per second than one on all of them on 2 cores;
    /// docs/service.md).
    pub workers: usize,
    /// Threads for all workers together, split evenly (default: the
    /// machine's cores).
    pub threads: usize,
    /// Proofs that may wait in the queue; one more is answered 503.
    pub queue: usize,
    /// A request's deadline from its arrival: a proof not started by then is
    /// dropped, and a synchronous request answered 504.
    pub deadline: Duration,
    /// The largest request body accepted, in bytes (checked before parsing).
    pub max_body: usize,
    /// A bearer token that `/v1/*` and `/metrics` require, if set.
    pub token: Option<String>,
    /// Finished asynchronous jobs kept for `GET /v1/jobs/{id}`; older ones
    /// are forgotten first.
    pub keep_results: usize,
}

impl Default for Config {
    fn default() -> Self {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            workers: threads.min(2),
            threads,
            queue: 64,
            deadline: Duration::from_secs(120),
            max_body: 64 << 20,
            token: None,
            keep_results: 10_000,
        }
    }
}

impl Config {
    /// Checks the settings `run` needs: at least one worker, one thread and
    /// one queue place. `run` checks them too; a command line checks them
    /// first to fail before it loads any key.
    pub fn check(&self) -> Result<(), String> {
        match self.workers == 0 || self.threads == 0 || self.queue == 0 {
            true => Err("workers, threads and queue must be at least 1".into()),
            false => Ok(()),
        }
    }

    /// Each worker's share of the threads (at least one).
    pub(crate) fn threads_per_worker(&self) -> usize {
        (self.threads / self.workers.max(1)).max(1)
    }

    /// The HTTP layer's runtime, once the settings are checked.
    fn runtime(&self) -> std::io::Result<tokio::runtime::Runtime> {
        self.check()
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("zkaccel-http")
            .enable_all()
            .build()
    }
}

/// The configured circuits by name (the only names a request may use).
pub type Circuits = std::collections::BTreeMap<String, Arc<dyn Circuit>>;

/// Runs the service until SIGTERM or SIGINT, then drains: new proofs are
/// refused (503), queued and running ones finish and their answers are sent,
/// and the call returns. `ready` is called with the bound address once the
/// socket listens.
pub fn run(
    config: Config,
    circuits: Circuits,
    ready: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    config
        .runtime()?
        .block_on(http::serve(config, circuits, ready))
}

/// Runs a front end that proves nothing itself: requests for the circuits
/// `names` are enqueued in Redis for [`run_worker`]s on any machine, and
/// answered from the results they store. The HTTP API is [`run`]'s; the
/// queue bound (`config.queue`) counts the stream's unfinished jobs.
/// SIGTERM stops admitting, and the requests waiting here get their answers
/// before the call returns (the jobs stay in Redis for the workers).
#[cfg(feature = "redis")]
pub fn run_front(
    config: Config,
    redis: RedisConfig,
    names: Vec<String>,
    ready: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    let rt = config.runtime()?;
    let front = redis::Front::connect(redis, config.queue, names).map_err(std::io::Error::other)?;
    rt.block_on(http::serve_engine(
        config,
        http::Engine::Redis(Arc::new(front)),
        ready,
    ))
}
