//! The bearer token `agon mcp --http` requires of every request: the one in
//! `AGON_MCP_TOKEN`, or one made at start from the system's random source.

use anyhow::{Context, Result, bail};
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

/// The variable that holds the bearer token.
pub const TOKEN_VAR: &str = "AGON_MCP_TOKEN";

/// Shorter tokens can be guessed or were never meant as secrets.
pub const MIN_BYTES: usize = 32;

/// Where this run's token came from.
pub enum Token {
    FromEnv(String),
    Generated(String),
}

impl Token {
    /// `AGON_MCP_TOKEN` when set (and long enough), else a new one.
    pub fn from_env_or_new() -> Result<Token> {
        match std::env::var(TOKEN_VAR) {
            Ok(t) if !t.trim().is_empty() => {
                let t = t.trim().to_string();
                if t.len() < MIN_BYTES {
                    bail!(
                        "{TOKEN_VAR} is {} bytes long: give at least {MIN_BYTES} random bytes (e.g. `openssl rand -hex 32`), or unset it and agon makes one",
                        t.len()
                    );
                }
                Ok(Token::FromEnv(t))
            }
            _ => Ok(Token::Generated(generate()?)),
        }
    }

    pub fn secret(&self) -> &str {
        match self {
            Token::FromEnv(t) | Token::Generated(t) => t,
        }
    }
}

/// 32 random bytes as 64 hex digits: safe in a header and in a shell.
fn generate() -> Result<String> {
    let mut bytes = [0u8; MIN_BYTES];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("{e}")).context("reading the system's random source")?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Refuses (401) a request without `Authorization: Bearer <token>`.
pub async fn require(expected: &str, request: Request, next: Next) -> Response {
    let given = request.headers().get(header::AUTHORIZATION).map(|v| v.as_bytes()).unwrap_or_default();
    let given = given.strip_prefix(b"Bearer ").unwrap_or_default();
    // Digests first: equal lengths, so not even the token's length shows in the timing.
    if constant_time_eq(&Sha256::digest(given), &Sha256::digest(expected.as_bytes())) {
        next.run(request).await
    } else {
        let why =
            format!("agon mcp: send `Authorization: Bearer <token>` ({TOKEN_VAR}, or the token printed at start)");
        // The body is left unread, so the connection cannot serve another request.
        let headers = [(header::WWW_AUTHENTICATE, "Bearer"), (header::CONNECTION, "close")];
        (StatusCode::UNAUTHORIZED, headers, why).into_response()
    }
}

/// Compares every byte whatever differs first, so timing does not tell the token.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_whole() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abd", b"abc"));
        assert!(!constant_time_eq(b"ab", b"abc"));
        assert!(!constant_time_eq(b"", b"abc"));
    }

    #[test]
    fn generated_tokens_are_long_and_differ() {
        let (a, b) = (generate().unwrap(), generate().unwrap());
        assert_eq!(a.len(), 2 * MIN_BYTES);
        assert_ne!(a, b);
    }
}
