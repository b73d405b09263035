//! The `Origin` check of `agon mcp --http`: the MCP specification (Streamable
//! HTTP, "Security Warning") requires a server to validate `Origin` and answer
//! 403 to an invalid one, so that a web page the user visits cannot drive a
//! local server. A request without `Origin` (every non-browser client) passes;
//! one with an origin passes only when it is this server's own
//! (`http://127.0.0.1:PORT`, `http://localhost:PORT`, `http://[::1]:PORT`, or
//! the bound address) or given with `--allow-origin`. `Origin: null` and
//! every other page's origin get 403.

use std::net::SocketAddr;

use anyhow::{Result, bail};
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// An origin as RFC 6454 compares them: scheme, host, port.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Origin {
    scheme: String,
    host: String,
    port: u16,
}

impl Origin {
    /// `scheme://host[:port]` and nothing more; None for anything else (`null` too).
    fn parse(text: &str) -> Option<Origin> {
        let url = url::Url::parse(text.trim()).ok()?;
        let plain = url.path() == "/" && url.query().is_none() && url.fragment().is_none();
        let scheme = url.scheme();
        if !plain || !matches!(scheme, "http" | "https") || !url.username().is_empty() || url.password().is_some() {
            return None;
        }
        let host = url.host_str()?.to_ascii_lowercase();
        Some(Origin { scheme: scheme.to_string(), host, port: url.port_or_known_default()? })
    }
}

pub struct Origins {
    allowed: Vec<Origin>,
}

impl Origins {
    /// The server's own origins at `bound`, and those given with `--allow-origin`.
    pub fn new(bound: SocketAddr, given: &[String]) -> Result<Origins> {
        let port = bound.port();
        let mut allowed: Vec<Origin> = ["127.0.0.1", "localhost", "[::1]"]
            .iter()
            .map(|host| format!("http://{host}:{port}"))
            .chain([format!("http://{bound}")])
            .filter_map(|o| Origin::parse(&o))
            .collect();
        for text in given {
            match Origin::parse(text) {
                Some(o) => allowed.push(o),
                None => bail!("--allow-origin '{text}': give an origin, scheme://host[:port] (http or https, no path)"),
            }
        }
        Ok(Origins { allowed })
    }

    fn allows(&self, header: Option<&[u8]>) -> bool {
        let Some(value) = header else { return true };
        let origin = std::str::from_utf8(value).ok().and_then(Origin::parse);
        origin.is_some_and(|o| self.allowed.contains(&o))
    }

    pub async fn check(&self, request: Request, next: Next) -> Response {
        if self.allows(request.headers().get(header::ORIGIN).map(|v| v.as_bytes())) {
            next.run(request).await
        } else {
            let why = "agon mcp: this Origin is not allowed (a web page may not drive this server; see --allow-origin)";
            // The body is left unread, so the connection cannot serve another request.
            (StatusCode::FORBIDDEN, [(header::CONNECTION, "close")], why).into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origins(given: &[&str]) -> Origins {
        let given: Vec<String> = given.iter().map(|s| s.to_string()).collect();
        Origins::new("127.0.0.1:8765".parse().unwrap(), &given).unwrap()
    }

    #[test]
    fn own_and_given_origins_pass_and_no_other() {
        let o = origins(&["https://app.example.com"]);
        for ok in [None, Some("http://127.0.0.1:8765"), Some("http://localhost:8765"), Some("http://[::1]:8765")] {
            assert!(o.allows(ok.map(str::as_bytes)), "{ok:?}");
        }
        assert!(o.allows(Some(b"https://app.example.com:443")));
        for bad in [
            "https://evil.example",
            "http://localhost:3000",
            "http://127.0.0.1",
            "https://127.0.0.1:8765",
            "null",
            "",
            "http://localhost:8765/path",
            "https://app.example.com:8443",
        ] {
            assert!(!o.allows(Some(bad.as_bytes())), "{bad}");
        }
        assert!(!o.allows(Some(b"\xff")));
    }

    #[test]
    fn a_given_origin_must_be_one() {
        let given = ["app.example.com".to_string()];
        assert!(Origins::new("127.0.0.1:1".parse().unwrap(), &given).is_err());
    }
}
