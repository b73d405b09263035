//! The checks before anything is spent: keys, endpoints, programs.

use std::collections::BTreeSet;
use std::net::{TcpStream, ToSocketAddrs};
use std::path::Path;
use std::time::Duration;

use crate::provider::{self, Environment, ModelRef};

/// Before spending anything: every provider the spec names must have its
/// key (hosted ones) and accept a connection, and every command model must be
/// installed. Errors name the URL, the program, and the variable to set.
pub fn preflight(models: &[String], env: &Environment) -> Result<(), String> {
    let mut checked = BTreeSet::new();
    let mut probes = Vec::new();
    for chain in models {
        for model in ModelRef::parse_chain(chain)? {
            let key = if model.provider == "cmd" { model.reference() } else { model.provider.clone() };
            if !checked.insert(key) || model.provider == crate::provider::human::PROVIDER {
                continue; // a person needs no key, endpoint nor program
            }
            if model.provider == provider::client_model::PROVIDER {
                if env.client.is_none() {
                    return Err(provider::client_model::NOT_HERE.to_string());
                }
                continue; // the client is already connected: it called
            }
            if model.provider == "cmd" {
                let Some(cmd) = env.commands.get(&model.model) else {
                    return Err(format!(
                        "no command model '{}': define [commands.{}] in agon.toml (built in: {})",
                        model.model,
                        model.model,
                        env.commands.keys().cloned().collect::<Vec<_>>().join(", ")
                    ));
                };
                if !on_path(&cmd.program) {
                    return Err(format!(
                        "cmd/{}: the program '{}' is not on PATH: install it{}, or set [commands.{}] program in agon.toml",
                        model.model,
                        cmd.program,
                        cmd.install.map(|i| format!(" ({i})")).unwrap_or_default(),
                        model.model
                    ));
                }
                continue;
            }
            let endpoint =
                env.endpoint(&model.provider).ok_or_else(|| format!("unknown provider '{}'", model.provider))?;
            if endpoint.key_required && endpoint.api_key.is_none() {
                let var = endpoint.key_var.as_deref().unwrap_or("its key variable");
                return Err(if endpoint.provider == "openai" {
                    format!(
                        "OPENAI_API_KEY is not set, and {} needs it; set it, or set OPENAI_BASE_URL to another OpenAI-compatible endpoint",
                        endpoint.base_url
                    )
                } else {
                    format!("{var} is not set, and {} ({}/…) needs it; set it", endpoint.base_url, endpoint.provider)
                });
            }
            probes.push((endpoint, endpoint.base()?));
        }
    }
    // Each endpoint is a connection away (a round trip to a hosted one): all
    // are probed at once, so a panel of three providers waits for the
    // slowest, not for the sum. The first failure in the spec's order is told.
    let verdicts: Vec<Result<(), String>> = match probes.as_slice() {
        [(_, base)] => vec![reachable(base)],
        _ => std::thread::scope(|scope| {
            let running: Vec<_> = probes.iter().map(|(_, base)| scope.spawn(|| reachable(base))).collect();
            running.into_iter().map(|probe| probe.join().unwrap_or_else(|_| Err("the probe failed".into()))).collect()
        }),
    };
    for ((endpoint, _), verdict) in probes.iter().zip(verdicts) {
        verdict.map_err(|why| {
            format!(
                "cannot reach {} ({why}): is the endpoint running? Set {} to one that is",
                endpoint.base_url, endpoint.url_var
            )
        })?;
    }
    Ok(())
}

/// Whether `program` can be started: a path that exists, or a name found on PATH.
fn on_path(program: &str) -> bool {
    let path = Path::new(program);
    if path.components().count() > 1 {
        return path.is_file();
    }
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
        .unwrap_or(false)
}

fn reachable(base: &provider::BaseUrl) -> Result<(), String> {
    let (host, port) = base.host_and_port().ok_or("no host in the URL")?;
    let addrs: Vec<_> = (host.as_str(), port).to_socket_addrs().map_err(|e| format!("cannot resolve: {e}"))?.collect();
    let mut last = String::from("no address");
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, Duration::from_secs(5)) {
            Ok(_) => return Ok(()),
            Err(e) => last = e.to_string(),
        }
    }
    Err(last)
}
