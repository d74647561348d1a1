//! The HTTP API (axum on tokio) in front of the pool, and the drain.

use crate::jobs::{new_id, State};
use crate::pool::{self, Pool, Refused, Reply, Task};
use crate::{Body, Circuits, Config, ErrorKind, JobError};
use axum::body::Body as HttpBody;
use axum::extract::{Path, RawQuery, Request, State as AppState};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

struct App {
    pool: Arc<Pool>,
    cfg: Config,
}

type Shared = Arc<App>;

pub(crate) async fn serve(
    cfg: Config,
    circuits: Circuits,
    ready: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(cfg.listen).await?;
    let pool = Arc::new(Pool::new(&cfg, circuits));
    let workers = pool::start(&pool, cfg.threads)?;
    let app = Arc::new(App { pool, cfg });
    let router = Router::new()
        .route("/v1/prove/{name}", post(prove))
        .route("/v1/jobs/{id}", get(job))
        .route("/metrics", get(metrics))
        .route_layer(middleware::from_fn_with_state(app.clone(), auth))
        .route("/health", get(health))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such route (see docs/service.md)") })
        .with_state(app.clone());
    let signals = Signals::catch()?;
    ready(listener.local_addr()?);
    let stopped = drain_on_signal(app.clone(), signals);
    axum::serve(listener, router)
        .with_graceful_shutdown(stopped)
        .await?;
    // The pool is closed and idle: the workers have returned or are about to.
    tokio::task::spawn_blocking(move || {
        for w in workers {
            let _ = w.join();
        }
    })
    .await
    .map_err(std::io::Error::other)?;
    log::info!("drained; exiting");
    Ok(())
}

/// Resolves once SIGTERM or SIGINT has come and the pool has finished every
/// admitted proof; until then the server keeps answering (new proofs 503).
async fn drain_on_signal(app: Shared, mut signals: Signals) {
    signals.recv().await;
    log::info!("signal: draining (no new proofs; queued and running ones finish)");
    app.pool.close();
    loop {
        let (queued, running) = app.pool.load();
        if queued == 0 && running == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// SIGTERM and SIGINT, caught from here on (installed before the service
/// says it listens, so a signal sent right after that line drains instead
/// of killing the process).
struct Signals {
    term: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
}

impl Signals {
    fn catch() -> std::io::Result<Self> {
        use tokio::signal::unix::{signal, SignalKind};
        Ok(Signals {
            term: signal(SignalKind::terminate())?,
            int: signal(SignalKind::interrupt())?,
        })
    }

    async fn recv(&mut self) {
        tokio::select! {
            _ = self.term.recv() => {}
            _ = self.int.recv() => {}
        }
    }
}

fn json(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn error(status: StatusCode, msg: impl std::fmt::Display) -> Response {
    json(
        status,
        serde_json::json!({ "error": msg.to_string() }).to_string(),
    )
}

fn job_error(e: &JobError) -> Response {
    let status = StatusCode::from_u16(e.kind.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    error(status, &e.msg)
}

fn unavailable(retry_after: u64, msg: &str) -> Response {
    let mut r = error(StatusCode::SERVICE_UNAVAILABLE, msg);
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(retry_after));
    r
}

/// `Authorization: Bearer <token>` on `/v1/*` and `/metrics` when a token
/// is configured (compared in constant time).
async fn auth(AppState(app): AppState<Shared>, req: Request, next: Next) -> Response {
    if let Some(token) = &app.cfg.token {
        use subtle::ConstantTimeEq;
        let given = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("");
        if !bool::from(given.as_bytes().ct_eq(token.as_bytes())) {
            let mut r = error(
                StatusCode::UNAUTHORIZED,
                "a bearer token is required (Authorization: Bearer ...)",
            );
            r.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return r;
        }
    }
    next.run(req).await
}

/// Whether the client asked for the asynchronous form.
fn wants_async(query: Option<&str>, headers: &HeaderMap) -> bool {
    let by_query = query.is_some_and(|q| {
        q.split('&')
            .any(|kv| kv == "async" || kv == "async=1" || kv == "async=true")
    });
    let by_header = headers
        .get_all("prefer")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| {
            v.split(',')
                .any(|p| p.trim().eq_ignore_ascii_case("respond-async"))
        });
    by_query || by_header
}

async fn prove(
    AppState(app): AppState<Shared>,
    Path(name): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: HttpBody,
) -> Response {
    let arrived = Instant::now();
    let Some(circuit) = app.pool.circuits().get(&name) else {
        let known: Vec<&str> = app.pool.circuits().keys().map(String::as_str).collect();
        return error(
            StatusCode::NOT_FOUND,
            format!(
                "no circuit named {name:?} (this service has: {})",
                known.join(", ")
            ),
        );
    };
    // Refused before the body is read; `submit` refuses a body read while
    // the drain began.
    if app.pool.closed() {
        return refused(&app, Refused::Draining);
    }
    let bytes = match axum::body::to_bytes(body, app.cfg.max_body).await {
        Ok(b) => b,
        Err(_) => {
            return error(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "the body is over the limit of {} bytes, or was cut off",
                    app.cfg.max_body
                ),
            )
        }
    };
    let body = Body::from_bytes(Vec::from(bytes));
    if matches!(body, Body::Inputs(_)) && !circuit.takes_inputs() {
        return error(
            StatusCode::BAD_REQUEST,
            format!("circuit {name:?} has no witness calculator (served without a .wasm): send a .wtns body"),
        );
    }
    let task = |reply| Task {
        circuit: name,
        body,
        arrived,
        deadline: arrived + app.cfg.deadline,
        reply,
    };
    match wants_async(query.as_deref(), &headers) {
        true => prove_async(&app, task),
        false => prove_sync(&app, task).await,
    }
}

/// The answer to a request the pool did not admit.
fn refused(app: &App, why: Refused) -> Response {
    match why {
        Refused::Full { retry_after } => {
            app.pool.metrics.rejected("queue_full");
            unavailable(retry_after, "the queue is full; retry later")
        }
        Refused::Draining => {
            app.pool.metrics.rejected("draining");
            unavailable(5, "the service is draining (shutting down)")
        }
    }
}

/// Admits `task` as a job of its own: 202 with its id at once.
fn prove_async(app: &App, task: impl FnOnce(Reply) -> Task) -> Response {
    let id = new_id();
    app.pool.jobs_set(&id, State::Queued);
    if let Err(why) = app.pool.submit(task(Reply::Store(id.clone()))) {
        app.pool.jobs_remove(&id);
        return refused(app, why);
    }
    let mut r = json(
        StatusCode::ACCEPTED,
        format!(r#"{{"id":"{id}","state":"queued"}}"#),
    );
    if let Ok(loc) = HeaderValue::from_str(&format!("/v1/jobs/{id}")) {
        r.headers_mut().insert(header::LOCATION, loc);
    }
    r
}

/// Admits `task` and waits for its proof, until its deadline.
async fn prove_sync(app: &App, task: impl FnOnce(Reply) -> Task) -> Response {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let task = task(Reply::Wait(tx));
    let deadline = task.deadline;
    if let Err(why) = app.pool.submit(task) {
        return refused(app, why);
    }
    match tokio::time::timeout_at(deadline.into(), rx).await {
        Ok(Ok(Ok(p))) => json(StatusCode::OK, p.json),
        Ok(Ok(Err(e))) => job_error(&e),
        Ok(Err(_)) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the worker dropped the request",
        ),
        Err(_) => job_error(&JobError::new(
            ErrorKind::Deadline,
            format!(
                "no proof within the deadline of {} s",
                app.cfg.deadline.as_secs_f64()
            ),
        )),
    }
}

async fn job(AppState(app): AppState<Shared>, Path(id): Path<String>) -> Response {
    let Some(state) = app.pool.jobs_get(&id) else {
        return error(
            StatusCode::NOT_FOUND,
            format!("no job {id:?} (unknown, or forgotten)"),
        );
    };
    let id = serde_json::Value::String(id).to_string();
    let body = match state {
        State::Queued => format!(r#"{{"id":{id},"state":"queued"}}"#),
        State::Running => format!(r#"{{"id":{id},"state":"running"}}"#),
        State::Done(result) => format!(r#"{{"id":{id},"state":"done","result":{result}}}"#),
        State::Failed(e) => {
            let err = serde_json::json!({ "status": e.kind.status(), "message": e.msg });
            format!(r#"{{"id":{id},"state":"failed","error":{err}}}"#)
        }
    };
    json(StatusCode::OK, body)
}

async fn health(AppState(app): AppState<Shared>) -> Response {
    let (queued, running) = app.pool.load();
    let draining = app.pool.closed();
    let circuits: Vec<&String> = app.pool.circuits().keys().collect();
    let body = serde_json::json!({
        "status": if draining { "draining" } else { "ok" },
        "circuits": circuits,
        "queued": queued,
        "running": running,
        "workers": app.cfg.workers,
    });
    let status = match draining {
        true => StatusCode::SERVICE_UNAVAILABLE,
        false => StatusCode::OK,
    };
    json(status, body.to_string())
}

async fn metrics(AppState(app): AppState<Shared>) -> Response {
    (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        app.pool.metrics.render(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_async_form_is_asked_for_by_query_or_prefer_header() {
        let none = HeaderMap::new();
        assert!(wants_async(Some("async"), &none));
        assert!(wants_async(Some("x=1&async=true"), &none));
        assert!(!wants_async(Some("asynchronous"), &none));
        assert!(!wants_async(None, &none));
        let mut h = HeaderMap::new();
        h.insert("prefer", HeaderValue::from_static("wait=5, respond-async"));
        assert!(wants_async(None, &h));
    }
}
