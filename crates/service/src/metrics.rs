//! The service's Prometheus metrics (`GET /metrics`, text format).

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use std::time::Duration;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ByCircuit {
    circuit: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ByCause {
    circuit: String,
    cause: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ByReason {
    reason: String,
}

type Times = Family<ByCircuit, Histogram, fn() -> Histogram>;

/// 1 ms to about 65 s, doubling.
fn seconds() -> Histogram {
    Histogram::new(exponential_buckets(0.001, 2.0, 17))
}

pub(crate) struct Metrics {
    registry: Registry,
    queue_wait: Times,
    witness: Times,
    prove: Times,
    verify: Times,
    proofs: Family<ByCircuit, Counter>,
    failures: Family<ByCause, Counter>,
    rejected: Family<ByReason, Counter>,
    pub(crate) queue_depth: Gauge,
    pub(crate) running: Gauge,
}

impl Metrics {
    pub(crate) fn new(keys_loaded: usize) -> Self {
        let mut registry = Registry::default();
        let times = || Times::new_with_constructor(seconds);
        let (queue_wait, witness, prove, verify) = (times(), times(), times(), times());
        let proofs = Family::<ByCircuit, Counter>::default();
        let failures = Family::<ByCause, Counter>::default();
        let rejected = Family::<ByReason, Counter>::default();
        let (queue_depth, running, keys) =
            (Gauge::default(), Gauge::default(), Gauge::<i64>::default());
        keys.set(keys_loaded as i64);
        let r = &mut registry;
        r.register(
            "zkaccel_queue_wait_seconds",
            "Time from a request's arrival to its proof's start",
            queue_wait.clone(),
        );
        r.register(
            "zkaccel_witness_seconds",
            "Witness computation from input.json",
            witness.clone(),
        );
        r.register("zkaccel_prove_seconds", "Proof computation", prove.clone());
        r.register(
            "zkaccel_verify_seconds",
            "Verification of each proof before it is returned",
            verify.clone(),
        );
        r.register(
            "zkaccel_proofs",
            "Proofs returned, verified",
            proofs.clone(),
        );
        r.register(
            "zkaccel_failures",
            "Jobs that failed, by cause (bad_request, unsatisfied, deadline, internal)",
            failures.clone(),
        );
        r.register(
            "zkaccel_rejected",
            "Requests refused at admission, by reason (queue_full, draining)",
            rejected.clone(),
        );
        r.register(
            "zkaccel_queue_depth",
            "Proofs waiting in the queue",
            queue_depth.clone(),
        );
        r.register(
            "zkaccel_proofs_running",
            "Proofs being computed",
            running.clone(),
        );
        r.register(
            "zkaccel_keys_loaded",
            "Circuits whose keys are resident",
            keys,
        );
        Metrics {
            registry,
            queue_wait,
            witness,
            prove,
            verify,
            proofs,
            failures,
            rejected,
            queue_depth,
            running,
        }
    }

    pub(crate) fn queue_wait(&self, circuit: &str, d: Duration) {
        self.queue_wait
            .get_or_create(&by(circuit))
            .observe(d.as_secs_f64());
    }

    pub(crate) fn proved(&self, circuit: &str, p: &crate::Proved) {
        let c = by(circuit);
        if let Some(w) = p.witness {
            self.witness.get_or_create(&c).observe(w.as_secs_f64());
        }
        self.prove.get_or_create(&c).observe(p.prove.as_secs_f64());
        self.verify
            .get_or_create(&c)
            .observe(p.verify.as_secs_f64());
        self.proofs.get_or_create(&c).inc();
    }

    pub(crate) fn failed(&self, circuit: &str, kind: crate::ErrorKind) {
        let label = ByCause {
            circuit: circuit.to_string(),
            cause: kind.cause().to_string(),
        };
        self.failures.get_or_create(&label).inc();
    }

    pub(crate) fn rejected(&self, reason: &str) {
        self.rejected
            .get_or_create(&ByReason {
                reason: reason.to_string(),
            })
            .inc();
    }

    /// `GET /metrics`' answer: the text format with its content type.
    pub(crate) fn response(&self) -> axum::response::Response {
        use axum::http::{header, StatusCode};
        use axum::response::IntoResponse;
        (
            StatusCode::OK,
            [(
                header::CONTENT_TYPE,
                "text/plain; version=0.0.4; charset=utf-8",
            )],
            self.render(),
        )
            .into_response()
    }

    /// The text exposition format.
    pub(crate) fn render(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

fn by(circuit: &str) -> ByCircuit {
    ByCircuit {
        circuit: circuit.to_string(),
    }
}
