//! Role files (seed 003): markdown with YAML frontmatter.
//!
//! ```text
//! ---
//! role_name: "Devil's Advocate"
//! role_id: "devils_advocate"
//! model: "llama3.2:3b"
//! participates_in_stage1: true
//! participates_in_stage2: false
//! participates_in_stage3: false
//! ---
//! # Stage 1 Instructions
//! …
//! # Stage 3 Instructions
//! …
//! ```
//!
//! The frontmatter of a role file is flat `key: scalar` pairs, so this reads
//! exactly that subset of YAML (quoted or bare strings, booleans, comments)
//! rather than shipping a full YAML parser in every host's wasm. Anything
//! else is an error naming the line.

use serde::{Deserialize, Serialize};

use crate::Error;

/// One role: a seat (stage 1 debaters) or the judge (stage 3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CouncilRole {
    pub role_id: String,
    pub role_name: String,
    pub model: String,
    pub participates_in_stage1: bool,
    pub participates_in_stage2: bool,
    pub participates_in_stage3: bool,
    pub stage1_instructions: String,
    pub stage2_instructions: String,
    pub stage3_instructions: String,
    /// The role's field of expertise (`domain:`), its seat's domain.
    pub domain: Option<String>,
}

fn bad(line: usize, reason: impl Into<String>) -> Error {
    Error::InvalidRole { line, reason: reason.into() }
}

/// Parse one role file.
pub fn parse_role(text: &str) -> Result<CouncilRole, Error> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    match lines.next() {
        Some((_, first)) if first.trim() == "---" => {}
        _ => return Err(bad(1, "a role file starts with a '---' line opening its frontmatter")),
    }
    let (mut id, mut name, mut model, mut domain) = (None, None, None, None);
    let mut stages = [false; 3];
    let mut closed = None;
    for (n, line) in lines.by_ref() {
        let t = line.trim();
        if t == "---" {
            closed = Some(n);
            break;
        }
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let Some((key, raw)) = t.split_once(':') else {
            return Err(bad(n, format!("expected 'key: value', found '{t}'")));
        };
        let value = scalar(raw.trim()).map_err(|r| bad(n, r))?;
        match key.trim() {
            "role_id" => id = Some(value),
            "role_name" => name = Some(value),
            "model" => model = Some(value),
            "domain" => {
                crate::spec::check_domain(&value, "domain").map_err(|e| bad(n, e.to_string()))?;
                domain = Some(value);
            }
            k @ ("participates_in_stage1" | "participates_in_stage2" | "participates_in_stage3") => {
                let b = match value.as_str() {
                    "true" | "True" | "yes" => true,
                    "false" | "False" | "no" => false,
                    other => return Err(bad(n, format!("{k} must be true or false, not '{other}'"))),
                };
                stages[k.as_bytes()[k.len() - 1] as usize - b'1' as usize] = b;
            }
            other => return Err(bad(n, format!("unknown key '{other}'"))),
        }
    }
    let Some(end) = closed else { return Err(bad(1, "the frontmatter is never closed with '---'")) };
    let role_id = id.filter(|s| !s.is_empty()).ok_or_else(|| bad(end, "role_id is missing"))?;
    if role_id.chars().any(char::is_whitespace) {
        return Err(bad(end, format!("role_id '{role_id}' must not contain spaces")));
    }
    let role_name = name.filter(|s| !s.is_empty()).unwrap_or_else(|| role_id.clone());
    let model = model.filter(|s| !s.is_empty()).ok_or_else(|| bad(end, "model is missing"))?;
    let mut sections = [String::new(), String::new(), String::new()];
    let mut current = 0usize;
    for (_, line) in lines {
        if let Some(stage) = stage_heading(line) {
            current = stage;
            continue;
        }
        sections[current].push_str(line);
        sections[current].push('\n');
    }
    let [s1, s2, s3] = sections.map(|s| s.trim().to_string());
    Ok(CouncilRole {
        role_id,
        role_name,
        model,
        participates_in_stage1: stages[0],
        participates_in_stage2: stages[1],
        participates_in_stage3: stages[2],
        stage1_instructions: s1,
        stage2_instructions: s2,
        stage3_instructions: s3,
        domain,
    })
}

/// `# Stage N Instructions` → N−1.
fn stage_heading(line: &str) -> Option<usize> {
    let t = line.trim().strip_prefix('#')?.trim().to_ascii_lowercase();
    let rest = t.strip_prefix("stage")?.trim();
    let (n, tail) = rest.split_once(' ').unwrap_or((rest, ""));
    if !tail.trim().starts_with("instructions") {
        return None;
    }
    match n {
        "1" => Some(0),
        "2" => Some(1),
        "3" => Some(2),
        _ => None,
    }
}

/// A YAML scalar as role files use them: "double", 'single', or bare.
fn scalar(raw: &str) -> Result<String, String> {
    let raw = raw.trim();
    if let Some(inner) = raw.strip_prefix('"') {
        let inner = inner.strip_suffix('"').ok_or("unterminated double-quoted string")?;
        return Ok(inner.replace("\\\"", "\"").replace("\\\\", "\\"));
    }
    if let Some(inner) = raw.strip_prefix('\'') {
        let inner = inner.strip_suffix('\'').ok_or("unterminated single-quoted string")?;
        return Ok(inner.replace("''", "'"));
    }
    // A bare value ends at a comment.
    Ok(raw.split(" #").next().unwrap_or(raw).trim().to_string())
}

/// The four debating roles and the judge of seed 003, in our own words.
pub const BUILTIN_ROLE_FILES: &[&str] = &[
    r#"---
role_name: "Devil's Advocate"
role_id: "devils_advocate"
model: "llama3.2:3b"
participates_in_stage1: true
participates_in_stage2: false
participates_in_stage3: false
---
# Stage 1 Instructions
You look for what could go wrong. Name the flaws, risks and downsides of each proposal,
question the assumptions behind it, and describe the worst plausible outcome. Criticize
to improve the decision, not to win.
"#,
    r#"---
role_name: "Optimist"
role_id: "optimist"
model: "mistral:7b"
participates_in_stage1: true
participates_in_stage2: false
participates_in_stage3: false
---
# Stage 1 Instructions
You look for what could go right. Name the opportunities and benefits, argue for the
ambitious option when it is justified, and keep your optimism realistic: say what must
hold for the upside to happen.
"#,
    r#"---
role_name: "Regulator"
role_id: "regulator"
model: "qwen2.5:7b"
participates_in_stage1: true
participates_in_stage2: false
participates_in_stage3: false
---
# Stage 1 Instructions
You weigh the legal, regulatory and ethical side: which rules apply, what compliance
would require, who could be harmed, and how the decision should be governed.
"#,
    r#"---
role_name: "CFO"
role_id: "cfo"
model: "gemma2:9b"
participates_in_stage1: true
participates_in_stage2: false
participates_in_stage3: false
---
# Stage 1 Instructions
You weigh the money: budget impact, return on investment, financial risk, and whether
the resources would do more good elsewhere. Put numbers on things where you can.
"#,
    r#"---
role_name: "Judge"
role_id: "judge"
model: "llama3.1:8b"
participates_in_stage1: false
participates_in_stage2: false
participates_in_stage3: true
---
# Stage 3 Instructions
You did not debate. Read the whole debate, weigh every perspective fairly, say where the
roles agree and where they do not, and give a clear, actionable recommendation.
"#,
];

/// The built-in roles, parsed.
pub fn builtin_roles() -> Vec<CouncilRole> {
    BUILTIN_ROLE_FILES.iter().map(|f| parse_role(f).expect("built-in roles parse")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_seed_format() {
        let role = parse_role(
            "---\nrole_name: \"Devil's Advocate\"\nrole_id: 'devils_advocate'\nmodel: llama3.2:3b  # small\nparticipates_in_stage1: true\nparticipates_in_stage3: false\n---\n\n# Stage 1 Instructions\nFind flaws.\n\n# Stage 2 Instructions\n(unused)\n# Stage 3 Instructions\n",
        )
        .unwrap();
        assert_eq!(role.role_name, "Devil's Advocate");
        assert_eq!(role.role_id, "devils_advocate");
        assert_eq!(role.model, "llama3.2:3b");
        assert!(role.participates_in_stage1 && !role.participates_in_stage3);
        assert_eq!(role.stage1_instructions, "Find flaws.");
        assert_eq!(role.stage2_instructions, "(unused)");
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse_role("---\nrole_id: x\nmodel: m\nparticipates_in_stage1: maybe\n---\n").unwrap_err();
        assert_eq!(
            e,
            Error::InvalidRole { line: 4, reason: "participates_in_stage1 must be true or false, not 'maybe'".into() }
        );
        assert!(matches!(parse_role("no frontmatter"), Err(Error::InvalidRole { line: 1, .. })));
        assert!(matches!(parse_role("---\nrole_id: x\n"), Err(Error::InvalidRole { .. })));
        assert!(matches!(parse_role("---\nrole_id: x\ncolour: red\n---\n"), Err(Error::InvalidRole { line: 3, .. })));
    }

    #[test]
    fn the_builtin_council_has_four_debaters_and_a_judge() {
        let roles = builtin_roles();
        assert_eq!(roles.iter().filter(|r| r.participates_in_stage1).count(), 4);
        assert_eq!(roles.iter().filter(|r| r.participates_in_stage3).count(), 1);
    }
}
