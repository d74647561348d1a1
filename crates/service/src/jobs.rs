//! What a job carries in and out, and the store of asynchronous jobs.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

/// A request body, told apart by its first bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    /// circom's `input.json` (any body that is not a `.wtns` file).
    Inputs(Vec<u8>),
    /// A snarkjs `.wtns` file (it starts with the magic `wtns`).
    Wtns(Vec<u8>),
}

impl Body {
    /// Classifies a request body.
    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        match bytes.starts_with(b"wtns") {
            true => Body::Wtns(bytes),
            false => Body::Inputs(bytes),
        }
    }
}

/// A verified proof, and where its time went.
#[derive(Clone, Debug)]
pub struct Proved {
    /// snarkjs' answer: `{"proof": {..}, "publicSignals": [..]}`.
    pub json: String,
    /// Computing the witness (`None` for a `.wtns` body).
    pub witness: Option<Duration>,
    /// The proof itself.
    pub prove: Duration,
    /// Verifying it against the key.
    pub verify: Duration,
}

/// Why a job failed; decides the HTTP status and the metrics' `cause`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The request is malformed (bad JSON, unknown signal, wrong witness
    /// length, a `.wtns` that does not parse): 400.
    BadRequest,
    /// The witness does not satisfy the circuit (an assertion in the
    /// circuit failed, or the proof did not verify): 422.
    Unsatisfied,
    /// The deadline passed before the proof started: 504.
    Deadline,
    /// The prover failed for a reason of its own: 500.
    Internal,
}

impl ErrorKind {
    /// The HTTP status this kind is answered with.
    pub fn status(self) -> u16 {
        match self {
            ErrorKind::BadRequest => 400,
            ErrorKind::Unsatisfied => 422,
            ErrorKind::Deadline => 504,
            ErrorKind::Internal => 500,
        }
    }

    /// The kind answered with HTTP `status` (a result stored in Redis
    /// carries its status); an unknown status is an internal failure.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(crate) fn from_status(status: u16) -> Self {
        match status {
            400 => ErrorKind::BadRequest,
            422 => ErrorKind::Unsatisfied,
            504 => ErrorKind::Deadline,
            _ => ErrorKind::Internal,
        }
    }

    /// The `cause` label of `zkaccel_failures_total`.
    pub fn cause(self) -> &'static str {
        match self {
            ErrorKind::BadRequest => "bad_request",
            ErrorKind::Unsatisfied => "unsatisfied",
            ErrorKind::Deadline => "deadline",
            ErrorKind::Internal => "internal",
        }
    }
}

/// A failed job: its kind and a message naming what was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobError {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// The reason, for the client.
    pub msg: String,
}

impl JobError {
    /// A failure of `kind` for the reason `msg`.
    pub fn new(kind: ErrorKind, msg: impl Into<String>) -> Self {
        JobError {
            kind,
            msg: msg.into(),
        }
    }
}

/// The refusal of an `input.json` body for a circuit served without a
/// witness calculator.
pub(crate) fn no_calculator(circuit: &str) -> JobError {
    JobError::new(
        ErrorKind::BadRequest,
        format!("circuit {circuit:?} has no witness calculator (served without a .wasm): send a .wtns body"),
    )
}

impl std::fmt::Display for JobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.msg)
    }
}

impl std::error::Error for JobError {}

/// Where an asynchronous job stands.
#[derive(Clone, Debug)]
pub(crate) enum State {
    Queued,
    Running,
    Done(String),
    Failed(JobError),
}

impl State {
    fn finished(&self) -> bool {
        matches!(self, State::Done(_) | State::Failed(_))
    }
}

/// The asynchronous jobs by id; at most `keep` finished ones are kept, the
/// oldest forgotten first (unfinished jobs are bounded by the queue).
pub(crate) struct JobStore {
    jobs: HashMap<String, State>,
    finished: VecDeque<String>,
    keep: usize,
}

impl JobStore {
    pub(crate) fn new(keep: usize) -> Self {
        JobStore {
            jobs: HashMap::new(),
            finished: VecDeque::new(),
            keep,
        }
    }

    pub(crate) fn get(&self, id: &str) -> Option<State> {
        self.jobs.get(id).cloned()
    }

    pub(crate) fn set(&mut self, id: &str, state: State) {
        let done = state.finished();
        let was_done = self
            .jobs
            .insert(id.to_string(), state)
            .is_some_and(|s| s.finished());
        if done && !was_done {
            self.finished.push_back(id.to_string());
            while self.finished.len() > self.keep {
                if let Some(old) = self.finished.pop_front() {
                    self.jobs.remove(&old);
                }
            }
        }
    }

    pub(crate) fn remove(&mut self, id: &str) {
        self.jobs.remove(id);
    }
}

/// A fresh job id: 128 random bits in hex.
pub(crate) fn new_id() -> String {
    use rand::RngCore;
    let mut b = [0u8; 16];
    rand::rngs::OsRng.fill_bytes(&mut b);
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_told_apart_by_the_wtns_magic() {
        assert!(matches!(
            Body::from_bytes(b"wtns\x02\0\0\0".to_vec()),
            Body::Wtns(_)
        ));
        assert!(matches!(
            Body::from_bytes(b"{\"a\": 1}".to_vec()),
            Body::Inputs(_)
        ));
        assert!(matches!(Body::from_bytes(vec![]), Body::Inputs(_)));
    }

    #[test]
    fn the_store_forgets_the_oldest_finished_jobs_only() {
        let mut s = JobStore::new(2);
        s.set("q", State::Queued);
        for id in ["a", "b", "c"] {
            s.set(id, State::Running);
            s.set(id, State::Done(id.into()));
        }
        assert!(s.get("a").is_none(), "the oldest finished job is forgotten");
        assert!(matches!(s.get("b"), Some(State::Done(x)) if x == "b"));
        assert!(matches!(s.get("c"), Some(State::Done(_))));
        assert!(
            matches!(s.get("q"), Some(State::Queued)),
            "an unfinished job stays"
        );
    }

    #[test]
    fn ids_are_32_hex_digits_and_differ() {
        let (a, b) = (new_id(), new_id());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
