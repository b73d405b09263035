//! Addresses for the HTTP agent: an IP address in the URL is used as it is.
//!
//! ureq's own resolver runs every lookup on a thread of its own when a
//! timeout applies, so that a slow DNS server cannot outlast it; it does so
//! even for `127.0.0.1`, where there is nothing to look up. agon's most common
//! endpoint is a local server at such an address (the embedded model): that
//! thread was one more step before the first request, and one more thread for
//! each connection `agon batch` opens (BENCHMARKS.md has both effects). Host
//! names still go through ureq's resolver, timeout and all.

use std::net::SocketAddr;

use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

#[derive(Debug, Default)]
pub struct LiteralFirst {
    names: DefaultResolver,
}

impl Resolver for LiteralFirst {
    fn resolve(&self, uri: &Uri, config: &Config, timeout: NextTimeout) -> Result<ResolvedSocketAddrs, ureq::Error> {
        match literal_address(uri) {
            Some(address) => {
                let mut addresses = self.empty();
                addresses.push(address);
                Ok(addresses)
            }
            None => self.names.resolve(uri, config, timeout),
        }
    }
}

/// The socket address of a URL whose host is an IP address (IPv6 in
/// brackets), with the scheme's port when it names none, as ureq writes it.
fn literal_address(uri: &Uri) -> Option<SocketAddr> {
    DefaultResolver::host_and_port(uri.scheme()?, uri.authority()?)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A timeout, so that ureq's resolver takes its threaded path, as in a call.
    fn five_seconds() -> NextTimeout {
        NextTimeout {
            after: std::time::Duration::from_secs(5).into(),
            reason: ureq::Timeout::Global,
            per_read: None,
            per_write: None,
        }
    }

    fn address(url: &str) -> Option<String> {
        literal_address(&url.parse().unwrap()).map(|a| a.to_string())
    }

    #[test]
    fn an_ip_address_is_its_own_socket_address() {
        assert_eq!(address("http://127.0.0.1:8080/v1").as_deref(), Some("127.0.0.1:8080"));
        assert_eq!(address("http://[::1]:11434/api").as_deref(), Some("[::1]:11434"));
        assert_eq!(address("https://10.1.2.3/v1").as_deref(), Some("10.1.2.3:443"));
        assert_eq!(address("http://192.168.0.9/").as_deref(), Some("192.168.0.9:80"));
    }

    #[test]
    fn a_host_name_is_left_to_the_lookup() {
        assert_eq!(address("http://localhost:8080/v1"), None);
        assert_eq!(address("https://api.openai.com/v1"), None);
        // Not an address, though it starts like one.
        assert_eq!(address("http://127.0.0.1.example.com/"), None);
    }

    #[test]
    fn a_name_still_resolves_through_ureq() {
        let uri: Uri = "http://localhost:9/".parse().unwrap();
        let found =
            LiteralFirst::default().resolve(&uri, &Config::default(), five_seconds()).expect("localhost resolves");
        assert!(found.iter().all(|a| a.ip().is_loopback() && a.port() == 9), "{found:?}");
    }

    #[test]
    fn an_address_gives_one_socket_address() {
        let uri: Uri = "http://127.0.0.1:18080/v1/chat/completions".parse().unwrap();
        let found = LiteralFirst::default().resolve(&uri, &Config::default(), five_seconds()).unwrap();
        assert_eq!(found.iter().map(|a| a.to_string()).collect::<Vec<_>>(), ["127.0.0.1:18080"]);
    }
}
