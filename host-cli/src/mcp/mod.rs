//! `agon mcp`: the council as tools an MCP client calls (Claude Code, Claude
//! Desktop, Cursor, Codex, …), over stdio or Streamable HTTP, on rmcp, the
//! official Rust SDK. stdout carries the protocol alone; logs go to stderr.

mod debate;
mod http;
mod progress;
mod schema;
mod server;
mod sessions;

use std::time::Duration;

use agon_cli::cli::McpArgs;
use agon_cli::config::Config;
use agon_cli::provider::gate::CallGate;
use agon_cli::provider::{CallOptions, DEFAULT_MAX_REPLY};
use anyhow::{Context, Result};
use rmcp::ServiceExt;

use crate::commands::exit;

pub fn serve(args: McpArgs, config: Config) -> Result<u8> {
    let from_file = config.defaults.max_reply.as_ref().and_then(|s| s.bytes().ok());
    let timeout = config.defaults.timeout.unwrap_or(args.timeout);
    let shared = debate::Shared {
        calls: CallOptions {
            timeout: Duration::from_secs(timeout),
            stream: true,
            max_reply: args.max_reply.or(from_file).unwrap_or(DEFAULT_MAX_REPLY),
        },
        retries: args.retries,
        gate: std::sync::Arc::new(CallGate::new(Some(args.max_in_flight), &Default::default())),
        config,
    };
    let agon = server::Agon::new(shared, args.concurrency);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async move {
        match args.http {
            Some(address) => http::serve(agon, address).await,
            None => {
                eprintln!("agon mcp: serving on stdio");
                let running = agon.serve(rmcp::transport::stdio()).await.context("starting the MCP session")?;
                running.waiting().await.context("the MCP session")?;
                Ok(())
            }
        }
    })?;
    Ok(exit::OK)
}
