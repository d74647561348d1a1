//! The HTTP API (axum on tokio) in front of the pool, and the drain.

use crate::jobs::{new_id, no_calculator, State};
use crate::metrics::Metrics;
use crate::pool::{self, Pool, Refused, Reply, Task};
use crate::signals::Signals;
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

/// What the HTTP layer hands its jobs to: the local pool, or Redis' stream
/// for workers elsewhere.
pub(crate) enum Engine {
    Local(Arc<Pool>),
    #[cfg(feature = "redis")]
    Redis(Arc<crate::redis::Front>),
}

impl Engine {
    fn metrics(&self) -> &Metrics {
        match self {
            Engine::Local(p) => &p.metrics,
            #[cfg(feature = "redis")]
            Engine::Redis(f) => &f.metrics,
        }
    }

    fn closed(&self) -> bool {
        match self {
            Engine::Local(p) => p.closed(),
            #[cfg(feature = "redis")]
            Engine::Redis(f) => f.closed(),
        }
    }

    /// Whether `name` is served, and if so whether it takes `input.json`
    /// (behind Redis the workers decide: the front end loads no circuit).
    fn serves(&self, name: &str) -> Option<bool> {
        match self {
            Engine::Local(p) => p.circuits().get(name).map(|c| c.takes_inputs()),
            #[cfg(feature = "redis")]
            Engine::Redis(f) => f.knows(name).then_some(true),
        }
    }

    fn names(&self) -> Vec<String> {
        match self {
            Engine::Local(p) => p.circuits().keys().cloned().collect(),
            #[cfg(feature = "redis")]
            Engine::Redis(f) => f.names().to_vec(),
        }
    }
}

struct App {
    engine: Engine,
    cfg: Config,
}

type Shared = Arc<App>;

/// Serves the local pool: its workers prove here.
pub(crate) async fn serve(
    cfg: Config,
    circuits: Circuits,
    ready: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    let pool = Arc::new(Pool::new(&cfg, circuits));
    let workers = pool::start(&pool, cfg.threads_per_worker())?;
    serve_engine(cfg, Engine::Local(pool), ready).await?;
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

/// Serves `engine` until a signal, then drains.
pub(crate) async fn serve_engine(
    cfg: Config,
    engine: Engine,
    ready: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(cfg.listen).await?;
    let app = Arc::new(App { engine, cfg });
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
        .await
}

/// Resolves once SIGTERM or SIGINT has come and the pool has finished every
/// admitted proof; until then the server keeps answering (new proofs 503).
async fn drain_on_signal(app: Shared, mut signals: Signals) {
    signals.recv().await;
    log::info!("signal: draining (no new proofs; queued and running ones finish)");
    match &app.engine {
        Engine::Local(pool) => {
            pool.close();
            loop {
                let (queued, running) = pool.load();
                if queued == 0 && running == 0 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
        // The jobs are Redis' and its workers': only the requests waiting
        // here are finished (the graceful shutdown waits for them).
        #[cfg(feature = "redis")]
        Engine::Redis(front) => front.close(),
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
    let Some(takes_inputs) = app.engine.serves(&name) else {
        return error(
            StatusCode::NOT_FOUND,
            format!(
                "no circuit named {name:?} (this service has: {})",
                app.engine.names().join(", ")
            ),
        );
    };
    // Refused before the body is read; `submit` refuses a body read while
    // the drain began.
    if app.engine.closed() {
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
    let is_async = wants_async(query.as_deref(), &headers);
    #[cfg_attr(not(feature = "redis"), allow(clippy::infallible_destructuring_match))]
    let pool = match &app.engine {
        Engine::Local(pool) => pool,
        #[cfg(feature = "redis")]
        Engine::Redis(front) => {
            return via_redis(&app, front.clone(), name, bytes.to_vec(), is_async).await
        }
    };
    let body = Body::from_bytes(Vec::from(bytes));
    if matches!(body, Body::Inputs(_)) && !takes_inputs {
        return job_error(&no_calculator(&name));
    }
    let task = |reply| Task {
        circuit: name,
        body,
        arrived,
        deadline: arrived + app.cfg.deadline,
        reply,
    };
    match is_async {
        true => prove_async(&app, pool, task),
        false => prove_sync(&app, pool, task).await,
    }
}

/// Enqueues the request in Redis for the workers; answers 202 at once, or
/// waits for the result until the deadline.
#[cfg(feature = "redis")]
async fn via_redis(
    app: &App,
    front: Arc<crate::redis::Front>,
    name: String,
    body: Vec<u8>,
    is_async: bool,
) -> Response {
    let arrived = std::time::SystemTime::now();
    let limit = app.cfg.deadline;
    let f = front.clone();
    let submitted =
        tokio::task::spawn_blocking(move || f.submit(&name, &body, arrived, arrived + limit)).await;
    let id = match submitted {
        Ok(Ok(id)) => id,
        Ok(Err(why)) => return refused(app, why),
        Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, e),
    };
    if is_async {
        return accepted(&id);
    }
    let waited = tokio::task::spawn_blocking(move || front.wait(&id, limit)).await;
    match waited {
        Ok(Ok(Some(Ok(json)))) => self::json(StatusCode::OK, json),
        Ok(Ok(Some(Err(e)))) => job_error(&e),
        Ok(Ok(None)) => deadline_passed(app),
        Ok(Err(e)) => unavailable(5, &e),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e),
    }
}

/// The answer to a request the pool did not admit.
fn refused(app: &App, why: Refused) -> Response {
    let metrics = app.engine.metrics();
    match why {
        Refused::Full { retry_after } => {
            metrics.rejected("queue_full");
            unavailable(retry_after, "the queue is full; retry later")
        }
        Refused::Draining => {
            metrics.rejected("draining");
            unavailable(5, "the service is draining (shutting down)")
        }
        Refused::Unreachable(why) => {
            metrics.rejected("unreachable");
            unavailable(5, &format!("the queue cannot be reached: {why}"))
        }
    }
}

/// 202 with the job's id and where to ask for it.
fn accepted(id: &str) -> Response {
    let mut r = json(
        StatusCode::ACCEPTED,
        format!(r#"{{"id":"{id}","state":"queued"}}"#),
    );
    if let Ok(loc) = HeaderValue::from_str(&format!("/v1/jobs/{id}")) {
        r.headers_mut().insert(header::LOCATION, loc);
    }
    r
}

fn deadline_passed(app: &App) -> Response {
    job_error(&JobError::new(
        ErrorKind::Deadline,
        format!(
            "no proof within the deadline of {} s",
            app.cfg.deadline.as_secs_f64()
        ),
    ))
}

/// Admits `task` as a job of its own: 202 with its id at once.
fn prove_async(app: &App, pool: &Pool, task: impl FnOnce(Reply) -> Task) -> Response {
    let id = new_id();
    pool.jobs_set(&id, State::Queued);
    if let Err(why) = pool.submit(task(Reply::Store(id.clone()))) {
        pool.jobs_remove(&id);
        return refused(app, why);
    }
    accepted(&id)
}

/// Admits `task` and waits for its proof, until its deadline.
async fn prove_sync(app: &App, pool: &Pool, task: impl FnOnce(Reply) -> Task) -> Response {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let task = task(Reply::Wait(tx));
    let deadline = task.deadline;
    if let Err(why) = pool.submit(task) {
        return refused(app, why);
    }
    match tokio::time::timeout_at(deadline.into(), rx).await {
        Ok(Ok(Ok(p))) => json(StatusCode::OK, p.json),
        Ok(Ok(Err(e))) => job_error(&e),
        Ok(Err(_)) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the worker dropped the request",
        ),
        Err(_) => deadline_passed(app),
    }
}

/// A job's state, wherever it is kept; an unreachable Redis is a 503.
async fn job_state(app: &App, id: &str) -> Result<Option<State>, Response> {
    match &app.engine {
        Engine::Local(pool) => Ok(pool.jobs_get(id)),
        #[cfg(feature = "redis")]
        Engine::Redis(front) => {
            let (front, id) = (front.clone(), id.to_string());
            match tokio::task::spawn_blocking(move || front.state(&id)).await {
                Ok(Ok(state)) => Ok(state),
                Ok(Err(e)) => Err(unavailable(5, &e)),
                Err(e) => Err(error(StatusCode::INTERNAL_SERVER_ERROR, e)),
            }
        }
    }
}

async fn job(AppState(app): AppState<Shared>, Path(id): Path<String>) -> Response {
    let state = match job_state(&app, &id).await {
        Ok(Some(state)) => state,
        Ok(None) => {
            return error(
                StatusCode::NOT_FOUND,
                format!("no job {id:?} (unknown, or forgotten)"),
            )
        }
        Err(r) => return r,
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

/// Queued and running jobs (behind Redis: in the stream, and held by a
/// worker), or why they cannot be counted.
async fn load(app: &App) -> Result<(usize, usize), String> {
    match &app.engine {
        Engine::Local(pool) => Ok(pool.load()),
        #[cfg(feature = "redis")]
        Engine::Redis(front) => {
            let front = front.clone();
            tokio::task::spawn_blocking(move || front.load())
                .await
                .map_err(|e| e.to_string())?
        }
    }
}

async fn health(AppState(app): AppState<Shared>) -> Response {
    let draining = app.engine.closed();
    let (status, load) = match (draining, load(&app).await) {
        (_, Err(e)) => ("unreachable", Err(e)),
        (true, Ok(l)) => ("draining", Ok(l)),
        (false, Ok(l)) => ("ok", Ok(l)),
    };
    let mut body = serde_json::json!({
        "status": status,
        "circuits": app.engine.names(),
        "workers": app.cfg.workers,
    });
    match load {
        Ok((queued, running)) => {
            body["queued"] = queued.into();
            body["running"] = running.into();
        }
        Err(e) => body["error"] = e.into(),
    }
    let status = match status {
        "ok" => StatusCode::OK,
        _ => StatusCode::SERVICE_UNAVAILABLE,
    };
    json(status, body.to_string())
}

async fn metrics(AppState(app): AppState<Shared>) -> Response {
    // Behind Redis the queue is the stream: counted when scraped.
    if !matches!(app.engine, Engine::Local(_)) {
        if let Ok((queued, running)) = load(&app).await {
            app.engine.metrics().queue_depth.set(queued as i64);
            app.engine.metrics().running.set(running as i64);
        }
    }
    app.engine.metrics().response()
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
