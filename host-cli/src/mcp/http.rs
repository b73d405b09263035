//! `agon mcp --http ADDRESS`: the Streamable HTTP transport at `/mcp`.
//!
//! On a loopback address it needs nothing more: rmcp refuses Host headers
//! other than loopback ones, which stops DNS rebinding. On any other address
//! it refuses to start without a bearer token in `AGON_MCP_TOKEN`, and then
//! every request must carry it.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::server::Agon;

/// The variable that holds the bearer token.
pub const TOKEN_VAR: &str = "AGON_MCP_TOKEN";

pub async fn serve(agon: Agon, address: SocketAddr) -> Result<()> {
    let token = std::env::var(TOKEN_VAR).ok().filter(|t| !t.trim().is_empty());
    if !address.ip().is_loopback() && token.is_none() {
        bail!(
            "--http {address} is not a loopback address: set {TOKEN_VAR} to a secret token first, which every client must then send as `Authorization: Bearer …`"
        );
    }
    let mut config = StreamableHttpServerConfig::default();
    if !address.ip().is_loopback() {
        // The token guards it; the Host check only knows loopback names.
        config = config.disable_allowed_hosts();
    }
    let service =
        StreamableHttpService::new(move || Ok(agon.clone()), Arc::new(LocalSessionManager::default()), config);
    let mut router = axum::Router::new().nest_service("/mcp", service);
    if let Some(token) = token {
        let expected: Arc<str> = Arc::from(format!("Bearer {}", token.trim()));
        router = router.layer(middleware::from_fn(move |request: Request, next: Next| {
            let expected = expected.clone();
            async move { bearer(&expected, request, next).await }
        }));
    }
    let listener = tokio::net::TcpListener::bind(address).await.with_context(|| format!("binding {address}"))?;
    let bound = listener.local_addr()?;
    // Tests and scripts read this line to learn the port of `--http 127.0.0.1:0`.
    eprintln!("agon mcp: serving Streamable HTTP at http://{bound}/mcp");
    axum::serve(listener, router).await.context("serving HTTP")
}

async fn bearer(expected: &str, request: Request, next: Next) -> Response {
    let given = request.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).unwrap_or_default();
    if constant_time_eq(given.as_bytes(), expected.as_bytes()) {
        next.run(request).await
    } else {
        (StatusCode::UNAUTHORIZED, [(header::WWW_AUTHENTICATE, "Bearer")], "agon mcp: a bearer token is required")
            .into_response()
    }
}

/// Compares without stopping at the first difference, so timing does not tell the token.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_whole() {
        assert!(constant_time_eq(b"Bearer abc", b"Bearer abc"));
        assert!(!constant_time_eq(b"Bearer abd", b"Bearer abc"));
        assert!(!constant_time_eq(b"Bearer ab", b"Bearer abc"));
    }
}
