//! `agon protocols`: every protocol the engine offers.

use agon_cli::engine::Runtime;
use anyhow::Result;

use super::exit;

pub fn protocols() -> Result<u8> {
    let mut runtime = Runtime::load()?;
    for p in runtime.protocols()? {
        println!("{:<22}{}", p.name, p.summary);
        let seats = match p.max_seats {
            Some(max) if max == p.min_seats => format!("{max} seats"),
            Some(max) => format!("{} to {max} seats", p.min_seats),
            None => format!("{} or more seats", p.min_seats),
        };
        let sides = if p.sides.is_empty() { String::new() } else { format!(" ({})", p.sides.join(", ")) };
        let rounds = if p.max_rounds == 1 {
            format!("one pass ({})", p.round_unit)
        } else {
            format!("rounds: {} by default, at most {} (a round: {})", p.default_rounds, p.max_rounds, p.round_unit)
        };
        println!("{:<22}{seats}{sides} · {rounds}", "");
        for o in &p.options {
            let default = if o.default.is_empty() { "required".to_string() } else { format!("default {}", o.default) };
            println!("{:<22}protocol.{} ({default}): {}", "", o.name, o.help);
        }
    }
    Ok(exit::OK)
}
