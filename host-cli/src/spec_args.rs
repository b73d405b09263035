//! From command-line flags to a DebateSpec (JSON). The engine validates it.

use serde_json::{Value, json};

use crate::cli::SpecArgs;
use crate::provider::ModelRef;

/// Build the spec JSON for these flags. Model references are checked here
/// (the engine treats them as opaque); everything else the engine checks.
pub fn build(args: &SpecArgs, warn: &mut dyn FnMut(&str)) -> Result<Value, String> {
    if args.panel.iter().all(|m| m.trim().is_empty()) {
        return Err("the panel is empty: give --panel provider/model,provider/model,...".into());
    }
    let models: Vec<String> = args.panel.iter().map(|m| m.trim().to_string()).collect();
    for m in &models {
        ModelRef::parse(m)?;
    }
    let ids = seat_ids(&models);
    let panel: Vec<Value> = ids.iter().zip(&models).map(|(id, model)| json!({"id": id, "model": model})).collect();

    let judge_model = match (&args.judge, args.no_judge) {
        (_, true) => None,
        (Some(j), false) => Some(j.trim().to_string()),
        (None, false) => Some(models[0].clone()),
    };
    if let Some(j) = &judge_model {
        ModelRef::parse(j)?;
    }

    let mut challenger = args.challenger.clone();
    if let Some(n) = args.advocate {
        warn("warning: --advocate is deprecated; use --challenger instead");
        if challenger.is_none() {
            let mapped = n.checked_sub(1).and_then(|i| ids.get(i as usize)).cloned().unwrap_or_else(|| n.to_string());
            warn(&format!("  mapping --advocate {n} to --challenger {mapped}"));
            challenger = Some(mapped);
        }
    }
    let protocol = match args.protocol.as_str() {
        "rotating-challenger" => match challenger {
            Some(c) => json!({"name": "rotating-challenger", "challenger": c}),
            None => json!({"name": "rotating-challenger"}),
        },
        other => {
            if challenger.is_some() {
                return Err(format!("--challenger only applies to rotating-challenger, not {other}"));
            }
            json!({"name": other})
        }
    };

    let mut spec = json!({
        "question": args.question,
        "panel": panel,
        "judge": judge_model.map(|m| json!({"id": "judge", "model": m})),
        "protocol": protocol,
        "rounds": args.rounds,
        "seed": args.seed,
        "limits": {
            "max_tokens": args.max_tokens,
            "judge_max_tokens": args.judge_max_tokens.unwrap_or(args.max_tokens.saturating_mul(2)),
            "temperature": args.temperature,
        },
    });
    if let Some(c) = &args.context {
        spec["context"] = json!(c);
    }
    Ok(spec)
}

/// A seat's id is its model name after the provider; a model that sits twice
/// gets `-2`, `-3`, … so every id is unique (`openai/gpt-4o` → `gpt-4o`).
pub fn seat_ids(models: &[String]) -> Vec<String> {
    let base: Vec<String> = models
        .iter()
        .map(|m| {
            let name = m.split_once('/').map(|(_, n)| n).unwrap_or(m);
            name.chars().map(|c| if c.is_whitespace() { '-' } else { c }).collect()
        })
        .collect();
    let mut ids: Vec<String> = Vec::with_capacity(base.len());
    for (i, b) in base.iter().enumerate() {
        let earlier = base[..i].iter().filter(|x| *x == b).count();
        let mut id = if earlier == 0 { b.clone() } else { format!("{b}-{}", earlier + 1) };
        // "x-2" might itself be a model name further up; keep counting until free.
        let mut k = earlier + 2;
        while ids.contains(&id) {
            id = format!("{b}-{k}");
            k += 1;
        }
        ids.push(id);
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_come_from_model_names_and_repeat_with_suffixes() {
        let models: Vec<String> = ["openai/gpt-4o", "ollama/llama3", "openai/gpt-4o", "openai/gpt-4o"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(seat_ids(&models), ["gpt-4o", "llama3", "gpt-4o-2", "gpt-4o-3"]);
    }

    #[test]
    fn advocate_maps_to_challenger_with_a_warning() {
        use clap::Parser;
        let cli = crate::cli::Cli::parse_from([
            "agon",
            "spec",
            "q",
            "--protocol",
            "rotating-challenger",
            "--panel",
            "openai/a,openai/b",
            "--advocate",
            "2",
        ]);
        let crate::cli::Command::Spec(args) = cli.command else { panic!() };
        let mut warnings = Vec::new();
        let spec = build(&args, &mut |w| warnings.push(w.to_string())).unwrap();
        assert_eq!(spec["protocol"]["challenger"], "b");
        assert!(warnings[0].contains("deprecated"));
    }
}
