//! A provider's base URL: parsed once with the `url` crate, joined path
//! first (a base's own query, such as `?api-version=…`, stays at the end),
//! every path segment percent-encoded, and shown with its query values
//! redacted, so a token in the URL never reaches a message or a file.
//!
//! A user name or password in the URL is refused: no provider agon speaks to
//! takes Basic auth, and sending it elsewhere would leak it. The key belongs
//! in the provider's key variable.

use url::Url;

/// A usable base URL.
#[derive(Debug, Clone)]
pub struct BaseUrl {
    url: Url,
}

/// One request's URL, and the same URL as messages show it.
#[derive(Debug, Clone)]
pub struct Target {
    pub url: Url,
    pub shown: String,
}

impl BaseUrl {
    /// `raw`, from the variable (or agon.toml key) `source`; errors never echo it.
    pub fn parse(raw: &str, source: &str, key_var: Option<&str>) -> Result<BaseUrl, String> {
        let mut url = Url::parse(raw.trim()).map_err(|e| format!("{source} is not a URL ({e})"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("{source} must be an http:// or https:// URL, not {}:", url.scheme()));
        }
        if !url.username().is_empty() || url.password().is_some() {
            let _ = url.set_username("***");
            let _ = url.set_password(None);
            let instead = match key_var {
                Some(var) => format!("put the key in {var} (or name another variable with key_env)"),
                None => "this provider takes no key".to_string(),
            };
            return Err(format!(
                "{source} has a user name or password in it ({}): agon never sends those; {instead}",
                shown(&url)
            ));
        }
        url.set_fragment(None);
        // `/v1/` and `/v1` are the same base: segments are added after the last one.
        if let Ok(mut segments) = url.path_segments_mut() {
            segments.pop_if_empty();
        }
        Ok(BaseUrl { url })
    }

    /// The base with `segments` added to its path, each encoded as one
    /// segment (`/`, `?`, `#` and `%` included), then `query` after the base's own.
    pub fn join(&self, segments: &[&str], query: &[(&str, &str)]) -> Target {
        let mut url = self.url.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.extend(segments);
        }
        if !query.is_empty() {
            url.query_pairs_mut().extend_pairs(query);
        }
        let shown = shown(&url);
        Target { url, shown }
    }

    /// The base as messages show it.
    pub fn shown(&self) -> String {
        shown(&self.url)
    }

    /// Where to connect: host and port.
    pub fn host_and_port(&self) -> Option<(String, u16)> {
        Some((self.url.host_str()?.to_string(), self.url.port_or_known_default()?))
    }

    /// The query's values, as written and decoded: a server may echo them.
    pub fn secrets(&self) -> Vec<String> {
        let raw = self.url.query().unwrap_or_default().split('&').filter_map(|p| p.split_once('=').map(|(_, v)| v));
        let decoded = self.url.query_pairs().map(|(_, v)| v.into_owned()).collect::<Vec<_>>();
        raw.map(str::to_string).chain(decoded).filter(|v| v.len() >= 4).collect()
    }
}

/// `url` with its user info gone and every query value but `alt` (agon's own) as `***`.
fn shown(url: &Url) -> String {
    let mut url = url.clone();
    if url.query().is_some() {
        let pairs: Vec<(String, String)> = url
            .query_pairs()
            .map(|(k, v)| {
                let value = if k == "alt" { v.into_owned() } else { "***".to_string() };
                (k.into_owned(), value)
            })
            .collect();
        url.query_pairs_mut().clear().extend_pairs(pairs);
    }
    url.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base(raw: &str) -> BaseUrl {
        BaseUrl::parse(raw, "OPENAI_BASE_URL", Some("OPENAI_API_KEY")).unwrap()
    }

    #[test]
    fn paths_join_before_the_query_and_the_query_is_never_shown() {
        let b = base("http://127.0.0.1:9/v1/?api-version=2024&token=s3cr3t-token");
        let t = b.join(&["chat", "completions"], &[]);
        assert_eq!(t.url.as_str(), "http://127.0.0.1:9/v1/chat/completions?api-version=2024&token=s3cr3t-token");
        assert_eq!(t.shown, "http://127.0.0.1:9/v1/chat/completions?api-version=***&token=***");
        assert!(b.secrets().contains(&"s3cr3t-token".to_string()));
        let g = base("https://g.example/v1beta").join(&["models", "m:streamGenerateContent"], &[("alt", "sse")]);
        assert_eq!(g.shown, "https://g.example/v1beta/models/m:streamGenerateContent?alt=sse");
    }

    #[test]
    fn a_model_name_is_one_encoded_segment() {
        let b = base("https://g.example/v1beta");
        assert_eq!(
            b.join(&["models", "../../admin:generateContent"], &[]).url.as_str(),
            "https://g.example/v1beta/models/..%2F..%2Fadmin:generateContent"
        );
        assert_eq!(
            b.join(&["models", "x#frag?q:generateContent"], &[]).url.as_str(),
            "https://g.example/v1beta/models/x%23frag%3Fq:generateContent"
        );
    }

    #[test]
    fn user_info_is_refused_without_echoing_it() {
        let e = BaseUrl::parse("http://user:hunter22@h/v1", "OPENAI_BASE_URL", Some("OPENAI_API_KEY")).unwrap_err();
        assert!(!e.contains("hunter22") && !e.contains("user:"), "{e}");
        assert!(e.contains("OPENAI_BASE_URL") && e.contains("OPENAI_API_KEY"), "{e}");
        let e = BaseUrl::parse("not a url hunter22", "X_BASE_URL", None).unwrap_err();
        assert!(!e.contains("hunter22") && e.contains("X_BASE_URL"), "{e}");
        assert!(BaseUrl::parse("ftp://h/", "X", None).unwrap_err().contains("http"));
    }
}
