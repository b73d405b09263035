//! `agon mcp --http ADDRESS`: the Streamable HTTP transport at `/mcp`.
//!
//! Every request passes, in this order: the `Origin` check (a browser page
//! of another origin gets 403, as the MCP specification requires), the
//! bearer token (401), then rmcp's `Host` check, which stops DNS rebinding on
//! loopback. New sessions are capped in number, per client address too, and
//! closed when idle ([`super::session_cap`]).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use axum::extract::{ConnectInfo, Request};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::origin::Origins;
use super::server::Agon;
use super::session_cap::{BoundedSessions, CLIENT, Client, Limits};
use super::token::{TOKEN_VAR, Token};

/// What `agon mcp --http` was started with.
pub struct Options {
    pub address: SocketAddr,
    pub limits: Limits,
    pub allow_origins: Vec<String>,
    pub no_auth: bool,
}

pub async fn serve(agon: Agon, o: Options) -> Result<()> {
    let loopback = o.address.ip().is_loopback();
    let token = if o.no_auth {
        if !loopback {
            bail!("--no-auth: only on a loopback address; on {} every client must send a token", o.address);
        }
        eprintln!(
            "agon mcp: --no-auth: UNSAFE, any local user or program can spend your keys and read your transcripts"
        );
        None
    } else {
        Some(Token::from_env_or_new()?)
    };
    let listener = tokio::net::TcpListener::bind(o.address).await.with_context(|| format!("binding {}", o.address))?;
    let bound = listener.local_addr()?;
    let origins = Origins::new(bound, &o.allow_origins)?;

    let mut config = StreamableHttpServerConfig::default();
    if !loopback {
        // The token guards it; the Host check only knows loopback names.
        config = config.disable_allowed_hosts();
    }
    let sessions = BoundedSessions::start(o.limits);
    let service = StreamableHttpService::new(move || Ok(agon.clone()), sessions, config);
    let mut router = axum::Router::new().nest_service("/mcp", service).layer(middleware::from_fn(capped));
    if let Some(token) = &token {
        let expected: Arc<str> = Arc::from(token.secret());
        router = router.layer(middleware::from_fn(move |request: Request, next: Next| {
            let expected = expected.clone();
            async move { super::token::require(&expected, request, next).await }
        }));
    }
    let origins = Arc::new(origins);
    router = router.layer(middleware::from_fn(move |request: Request, next: Next| {
        let origins = origins.clone();
        async move { origins.check(request, next).await }
    }));

    if let Some(Token::Generated(secret)) = &token {
        // Once, on stderr, which only the person who started the server reads.
        eprintln!(
            "agon mcp: no {TOKEN_VAR} set, so this run's token is {secret}\n  clients send it as `Authorization: Bearer {secret}` (set {TOKEN_VAR} to choose your own, 32 bytes or more)"
        );
    }
    // Tests and scripts read this line to learn the port of `--http 127.0.0.1:0`.
    eprintln!("agon mcp: serving Streamable HTTP at http://{bound}/mcp");
    axum::serve(listener, router.into_make_service_with_connect_info::<SocketAddr>()).await.context("serving HTTP")
}

/// Serves the request knowing its client, and turns a refused session into a
/// 503 that says why (rmcp itself would answer 500).
async fn capped(ConnectInfo(peer): ConnectInfo<SocketAddr>, request: Request, next: Next) -> Response {
    let client = Arc::new(Client { address: peer.ip(), refused: Mutex::new(None) });
    let response = CLIENT.scope(client.clone(), next.run(request)).await;
    let refused = client.refused.lock().map(|mut r| r.take()).unwrap_or_default();
    match refused {
        Some(why) => {
            let mut response = (StatusCode::SERVICE_UNAVAILABLE, why).into_response();
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER.as_secs()));
            response
        }
        None => response,
    }
}

/// A hint to a refused client: a place frees when a session is closed or expires, which agon cannot foretell.
const RETRY_AFTER: Duration = Duration::from_secs(5);
