//! `agon mcp`: the council as tools an MCP client calls (Claude Code, Claude
//! Desktop, Cursor, Codex, …), over stdio or Streamable HTTP, on rmcp, the
//! official Rust SDK. stdout carries the protocol alone; logs go to stderr.

mod background;
mod debate;
mod fit;
mod http;
mod input_required;
mod origin;
mod progress;
mod resources;
mod review;
mod sampling;
mod sampling_message;
mod schema;
mod server;
mod session_cap;
mod sessions;
mod stdio;
mod token;

use std::time::Duration;

use agon_cli::cli::McpArgs;
use agon_cli::config::Config;
use agon_cli::exit;
use agon_cli::provider::gate::CallGate;
use anyhow::{Context, Result};

pub fn serve(args: McpArgs, config: Config) -> Result<u8> {
    let timeout = config.defaults.timeout.unwrap_or(args.calls.timeout);
    let shared = debate::Shared {
        calls: args.calls.call_options(&config, timeout, true),
        call_flags: args.calls.clone(),
        gate: std::sync::Arc::new(CallGate::new(Some(args.max_in_flight), &Default::default())),
        allow_programs: args.allow_programs,
        max_result_tokens: usize::try_from(args.max_result_tokens).unwrap_or(usize::MAX),
        roots: agon_cli::context_files::roots(&args.roots).map_err(agon_cli::bad)?,
        config,
    };
    eprintln!("{}", agon_cli::sanitize::terminal(&agon_cli::context_files::roots_line(&shared.roots)));
    if args.allow_programs {
        eprintln!("agon mcp: --allow-programs: tool calls may seat cmd/ models, which run programs on this machine");
    }
    let agon = server::Agon::new(shared, args.concurrency);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async move {
        match args.http {
            Some(address) => {
                let limits = session_cap::Limits {
                    total: args.max_sessions,
                    per_client: args.max_sessions_per_client.min(args.max_sessions),
                    idle: Duration::from_secs(args.idle_timeout),
                };
                let options =
                    http::Options { address, limits, allow_origins: args.allow_origin, no_auth: args.no_auth };
                http::serve(agon, options).await
            }
            None => {
                eprintln!("agon mcp: serving on stdio");
                stdio::serve(agon).await
            }
        }
    })?;
    Ok(exit::OK)
}
