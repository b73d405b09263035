//! From command-line flags to a DebateSpec (JSON). The engine validates it.

use serde_json::{Value, json};

use crate::cli::{QualityGateArg, SpecArgs};
use crate::engine::wit::CouncilRole;
use crate::provider::ModelRef;

/// What the flags point at, already read by the caller (files, role definitions).
#[derive(Debug, Default)]
pub struct Inputs {
    /// role-council: the roles, parsed by the engine.
    pub roles: Vec<CouncilRole>,
    /// priority-vote: the items.
    pub items: Vec<String>,
}

/// Build the spec JSON for these flags. Model references are checked here
/// (the engine treats them as opaque); everything else the engine checks.
pub fn build(args: &SpecArgs, question: &str, inputs: &Inputs, warn: &mut dyn FnMut(&str)) -> Result<Value, String> {
    let (name, seat_arg) = match args.protocol.split_once(':') {
        Some((n, s)) => (n, Some(s.to_string())),
        None => (args.protocol.as_str(), None),
    };
    if seat_arg.is_some() && name != "devils-advocate" {
        return Err(format!("'{}': only devils-advocate takes a :SEAT suffix", args.protocol));
    }
    let mut models: Vec<String> = args.panel.iter().map(|m| m.trim().to_string()).filter(|m| !m.is_empty()).collect();
    let (panel, role_judge) = if name == "role-council" {
        role_panel(args, inputs, &models)?
    } else {
        if models.is_empty() {
            return Err("the panel is empty: give --panel provider/model,provider/model,...".into());
        }
        // Two-sided protocols with one model: the same model takes every side.
        let sides = match name {
            "adversarial" | "steelman" | "priority-vote" => 2,
            "comparative" => args.options.len(),
            _ => 0,
        };
        if models.len() == 1 && sides > 1 {
            models = vec![models[0].clone(); sides];
        }
        for m in &models {
            ModelRef::parse_chain(m)?;
        }
        let ids = seat_ids(&models);
        (ids.iter().zip(&models).map(|(id, model)| json!({"id": id, "model": model})).collect::<Vec<_>>(), None)
    };

    let judge_model = match (&args.judge, args.no_judge, &role_judge) {
        (_, true, _) => None,
        (Some(j), false, _) => Some(j.trim().to_string()),
        (None, false, Some(role)) => Some(role["model"].as_str().unwrap_or_default().to_string()),
        (None, false, None) => panel.first().and_then(|p| p["model"].as_str()).map(str::to_string),
    };
    if let Some(j) = &judge_model {
        ModelRef::parse_chain(j)?;
    }
    let judge = judge_model.map(|m| match &role_judge {
        Some(role) => {
            let mut r = role.clone();
            r["model"] = json!(m);
            r
        }
        None => json!({"id": "judge", "model": m}),
    });

    let mut challenger = args.challenger.clone();
    if let Some(n) = args.advocate {
        warn("warning: --advocate is deprecated; use --challenger instead");
        if challenger.is_none() {
            let mapped = n
                .checked_sub(1)
                .and_then(|i| panel.get(i as usize))
                .and_then(|p| p["id"].as_str())
                .map(str::to_string)
                .unwrap_or_else(|| n.to_string());
            warn(&format!("  mapping --advocate {n} to --challenger {mapped}"));
            challenger = Some(mapped);
        }
    }
    if challenger.is_some() && name != "rotating-challenger" {
        return Err(format!("--challenger only applies to rotating-challenger, not {name}"));
    }
    let mut protocol = json!({"name": name});
    let reads_agreement = matches!(name, "rotating-challenger" | "consensus-check");
    if let Some(mode) = args.consensus {
        if !reads_agreement {
            return Err(format!("--consensus only applies to rotating-challenger and consensus-check, not {name}"));
        }
        protocol["consensus"] = json!(mode.as_str());
    }
    match name {
        "rotating-challenger" => {
            if let Some(c) = challenger {
                protocol["challenger"] = json!(c);
            }
        }
        "devils-advocate" => {
            if let Some(s) = seat_arg {
                protocol["adversary"] = json!(s);
            }
        }
        "comparative" => protocol["options"] = json!(args.options),
        "priority-vote" => protocol["items"] = json!(inputs.items),
        "adversarial" => {
            protocol["compete"] = json!(if args.compete {
                "compete"
            } else if args.single {
                "single"
            } else {
                "auto"
            });
            let triggers: Vec<Value> = args
                .triggers
                .iter()
                .map(|t| {
                    let (name, words) = t.split_once('=').ok_or(format!("--trigger '{t}': write NAME=word,word"))?;
                    Ok(json!({"name": name.trim(), "any_of": words.split(',').map(str::trim).collect::<Vec<_>>()}))
                })
                .collect::<Result<_, String>>()?;
            if !triggers.is_empty() {
                protocol["triggers"] = json!(triggers);
            }
        }
        _ => {}
    }
    let flag_for = |flag: &str, used: bool, only: &str| {
        if used && name != only { Err(format!("{flag} only applies to {only}, not {name}")) } else { Ok(()) }
    };
    flag_for("--option", !args.options.is_empty(), "comparative")?;
    flag_for("--items", args.items.is_some(), "priority-vote")?;
    flag_for("--roles", args.roles.is_some(), "role-council")?;
    flag_for("--model", !args.role_models.is_empty(), "role-council")?;
    flag_for("--compete/--single/--trigger", args.compete || args.single || !args.triggers.is_empty(), "adversarial")?;

    let mut limits = json!({
        "max_tokens": args.max_tokens,
        "judge_max_tokens": args.judge_max_tokens.unwrap_or(args.max_tokens.saturating_mul(2)),
        "temperature": args.temperature,
    });
    if let Some(b) = args.context_budget {
        limits["context_budget"] = json!(b);
    }
    limits["quality_gate"] = json!(match args.quality_gate {
        QualityGateArg::Off => "off",
        QualityGateArg::Warn => "warn",
        QualityGateArg::Regenerate => "regenerate",
    });
    let mut spec = json!({
        "question": question,
        "panel": panel,
        "judge": judge,
        "protocol": protocol,
        "seed": args.seed,
        "limits": limits,
    });
    if let Some(r) = args.rounds {
        spec["rounds"] = json!(r);
    }
    if let Some(c) = &args.context {
        spec["context"] = json!(c);
    }
    if let Some(max) = args.max_cost {
        if !(max.is_finite() && max >= 0.0) {
            return Err(format!("--max-cost {max}: give US dollars, zero or more"));
        }
        spec["max_cost"] = json!(max);
    }
    Ok(spec)
}

/// role-council: stage-1 roles become seats (their instructions the persona),
/// the stage-3 role the judge. Models: the role file's (bare names are
/// Ollama's), then --panel in turn, then --model ROLE=MODEL.
fn role_panel(
    args: &SpecArgs,
    inputs: &Inputs,
    panel_models: &[String],
) -> Result<(Vec<Value>, Option<Value>), String> {
    let mut overrides = std::collections::BTreeMap::new();
    for o in &args.role_models {
        let (role, model) = o.split_once('=').ok_or(format!("--model '{o}': write ROLE=provider/model"))?;
        if !inputs.roles.iter().any(|r| r.role_id == role.trim()) {
            let known: Vec<&str> = inputs.roles.iter().map(|r| r.role_id.as_str()).collect();
            return Err(format!("--model '{o}': no role '{}' (roles: {})", role.trim(), known.join(", ")));
        }
        ModelRef::parse(model.trim())?;
        overrides.insert(role.trim().to_string(), model.trim().to_string());
    }
    let model_of = |role: &CouncilRole, k: usize| -> String {
        if let Some(m) = overrides.get(&role.role_id) {
            return m.clone();
        }
        if !panel_models.is_empty() {
            return panel_models[k % panel_models.len()].clone();
        }
        if role.model.contains('/') { role.model.clone() } else { format!("ollama/{}", role.model) }
    };
    let debaters: Vec<&CouncilRole> = inputs.roles.iter().filter(|r| r.participates_in_stage1).collect();
    if debaters.is_empty() {
        return Err("no role participates in stage 1: role-council needs debating roles".into());
    }
    let mut seats = Vec::new();
    for (k, r) in debaters.iter().enumerate() {
        let model = model_of(r, k);
        ModelRef::parse(&model)?;
        seats.push(json!({"id": r.role_id, "name": r.role_name, "model": model, "persona": r.stage1_instructions}));
    }
    let judge = inputs.roles.iter().find(|r| r.participates_in_stage3).map(|r| {
        json!({"id": r.role_id, "name": r.role_name, "model": model_of(r, debaters.len()), "persona": r.stage3_instructions})
    });
    Ok((seats, judge))
}

/// A seat's id is its model name after the provider; a model that sits twice
/// gets `-2`, `-3`, … so every id is unique (`openai/gpt-4o` → `gpt-4o`).
pub fn seat_ids(models: &[String]) -> Vec<String> {
    let base: Vec<String> = models
        .iter()
        .map(|m| {
            // A fallback chain `a/x|b/y` is named after its first model.
            let first = m.split('|').next().unwrap_or(m).trim();
            let name = first.split_once('/').map(|(_, n)| n).unwrap_or(first);
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

/// Items for priority-vote: one per non-empty line, list markers removed.
pub fn read_items(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| {
            let t = l.trim().trim_start_matches(['-', '*', '•']).trim_start();
            let digits = t.chars().take_while(char::is_ascii_digit).count();
            match t[digits..].strip_prefix(['.', ')']) {
                Some(rest) if digits > 0 => rest.trim().to_string(),
                _ => t.to_string(),
            }
        })
        .filter(|l| !l.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn args(extra: &[&str]) -> SpecArgs {
        let mut argv = vec!["agon", "spec", "q"];
        argv.extend_from_slice(extra);
        match crate::cli::Cli::parse_from(argv).command {
            crate::cli::Command::Spec(a) => a.spec,
            _ => unreachable!(),
        }
    }

    #[test]
    fn ids_come_from_model_names_and_repeat_with_suffixes() {
        let models: Vec<String> = ["openai/gpt-4o", "ollama/llama3", "openai/gpt-4o", "openai/gpt-4o"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(seat_ids(&models), ["gpt-4o", "llama3", "gpt-4o-2", "gpt-4o-3"]);
    }

    #[test]
    fn a_fallback_chain_is_named_after_its_first_model() {
        let models = vec!["gemini/gemini-2.5-pro|openrouter/google/gemini-2.5-pro".to_string()];
        assert_eq!(seat_ids(&models), ["gemini-2.5-pro"]);
    }

    #[test]
    fn advocate_maps_to_challenger_with_a_warning() {
        let a = args(&["--protocol", "rotating-challenger", "--panel", "openai/a,openai/b", "--advocate", "2"]);
        let mut warnings = Vec::new();
        let spec = build(&a, "q", &Inputs::default(), &mut |w| warnings.push(w.to_string())).unwrap();
        assert_eq!(spec["protocol"]["challenger"], "b");
        assert!(warnings[0].contains("deprecated"));
    }

    #[test]
    fn protocol_specific_flags_land_in_the_spec() {
        let a = args(&["--protocol", "devils-advocate:b", "--panel", "openai/a,openai/b"]);
        assert_eq!(build(&a, "q", &Inputs::default(), &mut |_| {}).unwrap()["protocol"]["adversary"], "b");
        let a =
            args(&["--protocol", "comparative", "--panel", "openai/m", "--option", "Postgres", "--option", "SQLite"]);
        let spec = build(&a, "q", &Inputs::default(), &mut |_| {}).unwrap();
        assert_eq!(spec["panel"].as_array().unwrap().len(), 2, "one model takes both options");
        assert_eq!(spec["protocol"]["options"][1], "SQLite");
        let a = args(&["--protocol", "adversarial", "--panel", "openai/m", "--trigger", "arch=architecture,infra"]);
        let spec = build(&a, "q", &Inputs::default(), &mut |_| {}).unwrap();
        assert_eq!(spec["protocol"]["triggers"][0]["any_of"][1], "infra");
        let a = args(&["--protocol", "round-robin", "--panel", "openai/m", "--option", "x"]);
        assert!(build(&a, "q", &Inputs::default(), &mut |_| {}).unwrap_err().contains("--option only applies"));
        let a = args(&["--protocol", "consensus-check", "--panel", "openai/a,openai/b", "--consensus", "judge"]);
        assert_eq!(build(&a, "q", &Inputs::default(), &mut |_| {}).unwrap()["protocol"]["consensus"], "judge");
        let a = args(&["--protocol", "ranked", "--panel", "openai/a,openai/b", "--consensus", "read"]);
        assert!(build(&a, "q", &Inputs::default(), &mut |_| {}).unwrap_err().contains("--consensus only applies"));
    }

    #[test]
    fn items_files_lose_their_list_markers() {
        assert_eq!(read_items("- fix CI\n\n2. hire\n* ship 1.0\n"), ["fix CI", "hire", "ship 1.0"]);
    }
}
