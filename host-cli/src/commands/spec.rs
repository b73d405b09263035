//! `agon spec`: the DebateSpec JSON that `run` would use with the same flags.

use agon_cli::config::Config;
use agon_cli::engine::Runtime;
use agon_cli::output;
use agon_cli::request::DebateRequest;
use agon_cli::runner::spec::{history_key, spec_json};
use anyhow::Result;

use super::exit;

pub fn spec(request: DebateRequest, config: &Config) -> Result<u8> {
    let mut runtime = Runtime::load()?;
    let key = history_key(&request, &mut runtime)?;
    let json = spec_json(&request, &mut runtime, config, key.as_ref())?;
    let pretty: serde_json::Value = serde_json::from_str(&json)?;
    println!("{}", output::json_text(&serde_json::to_string_pretty(&pretty)?));
    Ok(exit::OK)
}
