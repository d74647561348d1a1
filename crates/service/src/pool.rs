//! The bounded queue and the worker threads that prove from it. Each worker
//! owns a rayon pool of its share of the threads, so `workers` proofs run at
//! once without fighting over the same cores. A full queue refuses a task
//! at once (the HTTP layer answers 503); nothing already admitted is ever
//! aborted for a newer request.

use crate::jobs::{no_calculator, JobStore, State};
use crate::metrics::Metrics;
use crate::{Body, Circuits, ErrorKind, JobError, Proved};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// Where a finished task's outcome goes.
pub(crate) enum Reply {
    /// A synchronous request waiting on the other end.
    Wait(oneshot::Sender<Result<Proved, JobError>>),
    /// An asynchronous job: into the job store under this id.
    Store(String),
}

/// One admitted proof.
pub(crate) struct Task {
    pub(crate) circuit: String,
    pub(crate) body: Body,
    pub(crate) arrived: Instant,
    pub(crate) deadline: Instant,
    pub(crate) reply: Reply,
}

/// Why a task was not admitted.
pub(crate) enum Refused {
    /// The queue holds `queue` tasks; retry after about this many seconds.
    Full { retry_after: u64 },
    /// The service is draining.
    Draining,
    /// The queue cannot be reached (Redis is down): why.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    Unreachable(String),
}

struct Queue {
    tasks: VecDeque<Task>,
    running: usize,
    closed: bool,
}

pub(crate) struct Pool {
    queue: Mutex<Queue>,
    wake: Condvar,
    cap: usize,
    workers: usize,
    circuits: Circuits,
    jobs: Mutex<JobStore>,
    pub(crate) metrics: Metrics,
    /// A moving average of one proof's time, in microseconds (for
    /// Retry-After).
    service_us: AtomicU64,
}

/// A lock that a panicking holder did not poison for good: the data behind
/// these locks (a queue, a map) stays consistent between statements.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Pool {
    pub(crate) fn new(cfg: &crate::Config, circuits: Circuits) -> Self {
        let metrics = Metrics::new(circuits.len());
        Pool {
            queue: Mutex::new(Queue {
                tasks: VecDeque::new(),
                running: 0,
                closed: false,
            }),
            wake: Condvar::new(),
            cap: cfg.queue,
            workers: cfg.workers,
            circuits,
            jobs: Mutex::new(JobStore::new(cfg.keep_results)),
            metrics,
            service_us: AtomicU64::new(0),
        }
    }

    pub(crate) fn jobs_set(&self, id: &str, state: State) {
        lock(&self.jobs).set(id, state);
    }

    pub(crate) fn jobs_get(&self, id: &str) -> Option<State> {
        lock(&self.jobs).get(id)
    }

    pub(crate) fn jobs_remove(&self, id: &str) {
        lock(&self.jobs).remove(id);
    }

    pub(crate) fn circuits(&self) -> &Circuits {
        &self.circuits
    }

    /// Admits `task`, or says why not.
    pub(crate) fn submit(&self, task: Task) -> Result<(), Refused> {
        let mut q = lock(&self.queue);
        if q.closed {
            return Err(Refused::Draining);
        }
        if q.tasks.len() >= self.cap {
            let ahead = (q.tasks.len() + q.running) as u64;
            let per = self.service_us.load(Ordering::Relaxed).max(1);
            let secs = (ahead * per).div_ceil(self.workers as u64 * 1_000_000);
            return Err(Refused::Full {
                retry_after: secs.clamp(1, 3600),
            });
        }
        q.tasks.push_back(task);
        self.metrics.queue_depth.set(q.tasks.len() as i64);
        drop(q);
        self.wake.notify_one();
        Ok(())
    }

    /// Admits nothing more; the workers finish the queue, then stop.
    pub(crate) fn close(&self) {
        lock(&self.queue).closed = true;
        self.wake.notify_all();
    }

    /// Whether the pool admits nothing more (the service is draining).
    pub(crate) fn closed(&self) -> bool {
        lock(&self.queue).closed
    }

    /// Queued and running tasks.
    pub(crate) fn load(&self) -> (usize, usize) {
        let q = lock(&self.queue);
        (q.tasks.len(), q.running)
    }

    /// The next task, or `None` once the pool is closed and empty.
    fn next(&self) -> Option<Task> {
        let mut q = lock(&self.queue);
        loop {
            if let Some(t) = q.tasks.pop_front() {
                q.running += 1;
                self.metrics.queue_depth.set(q.tasks.len() as i64);
                self.metrics.running.set(q.running as i64);
                return Some(t);
            }
            if q.closed {
                return None;
            }
            q = self.wake.wait(q).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn done(&self) {
        let mut q = lock(&self.queue);
        q.running -= 1;
        self.metrics.running.set(q.running as i64);
    }

    /// One task, from the queue to its reply.
    fn run(&self, task: Task) {
        let Task {
            circuit,
            body,
            arrived,
            deadline,
            reply,
        } = task;
        if let Reply::Wait(tx) = &reply {
            if tx.is_closed() {
                log::debug!(
                    "a {circuit} request was dropped by its client before its proof started"
                );
                return;
            }
        }
        let start = Instant::now();
        let outcome = attempt(
            &self.circuits,
            &self.metrics,
            &circuit,
            &body,
            start - arrived,
            start > deadline,
            || {
                if let Reply::Store(id) = &reply {
                    self.jobs_set(id, State::Running);
                }
            },
        );
        if outcome.is_ok() {
            self.note_service_time(start.elapsed());
        }
        match reply {
            // A client that has gone is no error of ours.
            Reply::Wait(tx) => drop(tx.send(outcome)),
            Reply::Store(id) => {
                let state = match outcome {
                    Ok(p) => State::Done(p.json),
                    Err(e) => State::Failed(e),
                };
                self.jobs_set(&id, state);
            }
        }
    }

    fn note_service_time(&self, d: Duration) {
        let us = d.as_micros().min(u64::MAX as u128) as u64;
        let old = self.service_us.load(Ordering::Relaxed);
        let new = match old {
            0 => us,
            _ => (old * 7 + us) / 8,
        };
        self.service_us.store(new, Ordering::Relaxed);
    }
}

/// One proof attempt, wherever the job came from (the local queue or Redis):
/// a job past its deadline fails without proving; otherwise `started` is
/// called and the circuit proves. The queue wait and the outcome are counted
/// in `metrics`.
pub(crate) fn attempt(
    circuits: &Circuits,
    metrics: &Metrics,
    circuit: &str,
    body: &Body,
    waited: Duration,
    late: bool,
    started: impl FnOnce(),
) -> Result<Proved, JobError> {
    metrics.queue_wait(circuit, waited);
    let outcome = if late {
        Err(JobError::new(
            ErrorKind::Deadline,
            format!(
                "the deadline passed before the proof started ({:.1} s in the queue)",
                waited.as_secs_f64()
            ),
        ))
    } else {
        started();
        prove(circuits, circuit, body)
    };
    match &outcome {
        Ok(p) => metrics.proved(circuit, p),
        Err(e) => {
            log::info!("{circuit}: {} ({})", e.msg, e.kind.cause());
            metrics.failed(circuit, e.kind);
        }
    }
    outcome
}

/// The circuit's proof; a panic inside it is a 500, not a dead worker.
fn prove(circuits: &Circuits, circuit: &str, body: &Body) -> Result<Proved, JobError> {
    let c = circuits.get(circuit).ok_or_else(|| {
        JobError::new(
            ErrorKind::BadRequest,
            format!("no circuit named {circuit:?} is served here"),
        )
    })?;
    if matches!(body, Body::Inputs(_)) && !c.takes_inputs() {
        return Err(no_calculator(circuit));
    }
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| c.prove(body))).unwrap_or_else(|_| {
        Err(JobError::new(
            ErrorKind::Internal,
            "the prover panicked (a bug: please report it with the request)",
        ))
    })
}

/// Worker `i`'s rayon pool of `threads` threads.
pub(crate) fn rayon_pool(i: usize, threads: usize) -> std::io::Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(move |t| format!("zkaccel-w{i}-{t}"))
        .build()
        .map_err(std::io::Error::other)
}

/// Starts `workers` threads, each with a rayon pool of `per` threads.
pub(crate) fn start(pool: &Arc<Pool>, per: usize) -> std::io::Result<Vec<JoinHandle<()>>> {
    (0..pool.workers)
        .map(|i| {
            let rayon = rayon_pool(i, per)?;
            let pool = Arc::clone(pool);
            std::thread::Builder::new()
                .name(format!("zkaccel-worker-{i}"))
                .spawn(move || {
                    while let Some(task) = pool.next() {
                        rayon.install(|| pool.run(task));
                        pool.done();
                    }
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Circuit, Config};
    use std::sync::atomic::AtomicUsize;

    /// Counts its proofs; panics on the body `panic`; answers with the body.
    struct Echo(AtomicUsize);

    impl Circuit for Echo {
        fn prove(&self, body: &Body) -> Result<Proved, JobError> {
            self.0.fetch_add(1, Ordering::SeqCst);
            let Body::Inputs(b) = body else {
                return Err(JobError::new(ErrorKind::BadRequest, "wtns"));
            };
            if b == b"panic" {
                panic!("a prover bug");
            }
            Ok(Proved {
                json: String::from_utf8(b.clone()).unwrap(),
                witness: None,
                prove: Duration::from_millis(1),
                verify: Duration::ZERO,
            })
        }

        fn takes_inputs(&self) -> bool {
            true
        }
    }

    fn pool(queue: usize) -> (Arc<Pool>, Arc<Echo>) {
        let echo = Arc::new(Echo(AtomicUsize::new(0)));
        let mut circuits = Circuits::new();
        circuits.insert("e".into(), echo.clone() as Arc<dyn Circuit>);
        let cfg = Config {
            queue,
            ..Config::default()
        };
        (Arc::new(Pool::new(&cfg, circuits)), echo)
    }

    fn task(
        body: &[u8],
        deadline_in: Duration,
    ) -> (Task, oneshot::Receiver<Result<Proved, JobError>>) {
        let (tx, rx) = oneshot::channel();
        let now = Instant::now();
        let t = Task {
            circuit: "e".into(),
            body: Body::Inputs(body.to_vec()),
            arrived: now,
            deadline: now + deadline_in,
            reply: Reply::Wait(tx),
        };
        (t, rx)
    }

    #[test]
    fn a_panicking_prover_is_a_500_and_its_worker_proves_on() {
        let (p, echo) = pool(4);
        let workers = start(&p, 1).unwrap();
        let (t, rx) = task(b"panic", Duration::from_secs(60));
        assert!(p.submit(t).is_ok());
        let e = rx.blocking_recv().unwrap().unwrap_err();
        assert_eq!(e.kind, ErrorKind::Internal);
        let (t, rx) = task(b"after", Duration::from_secs(60));
        assert!(p.submit(t).is_ok());
        assert_eq!(rx.blocking_recv().unwrap().unwrap().json, "after");
        assert_eq!(echo.0.load(Ordering::SeqCst), 2);
        p.close();
        for w in workers {
            w.join().unwrap();
        }
    }

    #[test]
    fn the_queue_refuses_past_its_bound_then_refuses_everything_once_closed() {
        let (p, _) = pool(2);
        // No workers: nothing leaves the queue.
        let mut rxs = Vec::new();
        for _ in 0..2 {
            let (t, rx) = task(b"x", Duration::from_secs(60));
            assert!(p.submit(t).is_ok());
            rxs.push(rx);
        }
        let (t, _rx) = task(b"x", Duration::from_secs(60));
        match p.submit(t) {
            Err(Refused::Full { retry_after }) => assert!((1..=3600).contains(&retry_after)),
            _ => panic!("a third task into a queue of 2 was admitted"),
        }
        assert_eq!(p.load(), (2, 0));
        p.close();
        let (t, _rx) = task(b"x", Duration::from_secs(60));
        assert!(matches!(p.submit(t), Err(Refused::Draining)));
        // Closed, the workers still finish what was admitted.
        let workers = start(&p, 1).unwrap();
        for w in workers {
            w.join().unwrap();
        }
        for rx in rxs {
            assert_eq!(rx.blocking_recv().unwrap().unwrap().json, "x");
        }
    }

    #[test]
    fn a_task_past_its_deadline_is_answered_without_a_proof() {
        let (p, echo) = pool(4);
        let (t, rx) = task(b"late", Duration::ZERO);
        std::thread::sleep(Duration::from_millis(2));
        assert!(p.submit(t).is_ok());
        p.close();
        for w in start(&p, 1).unwrap() {
            w.join().unwrap();
        }
        assert_eq!(
            rx.blocking_recv().unwrap().unwrap_err().kind,
            ErrorKind::Deadline
        );
        assert_eq!(echo.0.load(Ordering::SeqCst), 0, "nothing proved");
    }
}
