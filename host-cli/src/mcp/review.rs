//! The `review` tool: a diff reviewed under the review protocol, run as
//! `debate` runs, answered with the verdict the core decided, the findings
//! and the session (the same report `agon review --format json` writes).

use agon_cli::bad;
use agon_cli::review::report::{self, Meta};
use agon_core::review::{Policy, REVIEW_DOCUMENT, Review, Severity};
use anyhow::{Result, anyhow};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::debate::Answer;
use super::schema::DebateArgs;

pub const REVIEW: &str = "Review a code change (a unified diff) in a council: findings on lines, \
confirmed or disputed across seats, and a pass/fail verdict decided by a policy in code.";

// The field docs are what the calling model reads: a phrase each.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReviewArgs {
    /// Unified diff (`git diff`).
    pub diff: String,
    /// `provider/model` per seat, only if the user named models.
    #[serde(default)]
    pub panel: Vec<String>,
    /// Fail at this severity or worse: info, low, medium, high (default), critical.
    #[serde(default)]
    pub fail_at: Option<String>,
    /// Seats that must uphold it (default 2).
    #[serde(default)]
    pub confirmed_by: Option<u32>,
    /// USD cap on the worst case.
    #[serde(default)]
    pub max_cost: Option<f64>,
}

/// The debate a review is: the diff as context, the review document with the policy in it, no judge.
pub fn debate_args(a: &ReviewArgs) -> Result<DebateArgs> {
    let budget = agon_cli::review::diff::DEFAULT_BUDGET;
    if agon_cli::review::diff::files(&a.diff).is_empty() {
        return Err(bad("diff: names no file; give `git diff` output"));
    }
    if a.diff.len() > budget {
        return Err(bad(format!(
            "diff: {} bytes, over the review's budget of {budget}: review it in parts (by file), or with `agon review`, which splits it",
            a.diff.len()
        )));
    }
    let mut policy = Policy::default();
    if let Some(s) = &a.fail_at {
        policy.fail_at = Severity::parse(s).ok_or_else(|| bad(format!("fail_at: '{s}' is not a severity")))?;
    }
    if let Some(n) = a.confirmed_by {
        if n == 0 {
            return Err(bad("confirmed_by: must be at least 1"));
        }
        policy.confirmed_by = n;
    }
    let mut document: Value = serde_json::from_str(REVIEW_DOCUMENT)?;
    document["aggregate"]["review"]["policy"] = serde_json::to_value(policy)?;
    let mut args = json!({
        "question": "Review this change (the unified diff below) before it merges.",
        "context": a.diff,
        "no_judge": true,
        "document": document,
    });
    if !a.panel.is_empty() {
        args["panel"] = json!(a.panel);
    }
    if let Some(m) = a.max_cost {
        args["max_cost"] = json!(m);
    }
    serde_json::from_value(args).map_err(|e| anyhow!("the review's debate: {e}"))
}

/// The debate's answer as a review's: the verdict first. A review that did
/// not decide (the debate incomplete, no review result) is a tool error.
pub fn answer(debate: Answer, diff: &str) -> Result<Answer> {
    let d = &debate.data;
    if d["outcome"]["complete"] != json!(true) {
        return Err(anyhow!(
            "the review did not finish, so it decides nothing: {} ({}); session {}",
            d["outcome"]["headline"].as_str().unwrap_or("unknown"),
            d["outcome"]["reason"].as_str().unwrap_or_default(),
            d["session"].as_str().unwrap_or_default()
        ));
    }
    let value = agon_core::results_shaped(d, agon_core::ResultShape::Review).next();
    let value = value.ok_or_else(|| anyhow!("the debate holds no review result"))?;
    let review = Review::from_value(value).map_err(|e| anyhow!("the review result: {e}"))?;
    let meta = Meta {
        session: d["session"].as_str().map(str::to_string),
        engine: agon_core::journal::ENGINE_VERSION.to_string(),
        links: None,
        new_lines: agon_cli::review::diff::new_lines(diff),
        parts: 1,
    };
    Ok(Answer { markdown: report::markdown(&review, &meta), data: report::json(&review, &meta) })
}
