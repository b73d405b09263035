//! A debate's result made to fit the client's output cap. Clients cap what a
//! tool may return (Claude Code refuses a result above 25,000 tokens by
//! default); a whole debate is more than that. What a caller needs first
//! stays whole: the outcome, the cost, the session and where the whole
//! transcript is. Then, as room allows: the synthesis, the protocol's
//! results, and each seat's last word, cut evenly. Whatever was cut is said,
//! with the resource that holds it.

use super::schema::DebateResult;

/// Tokens as agon estimates them everywhere: characters / 4.
fn tokens(chars: usize) -> usize {
    chars.div_ceil(4)
}

/// `r` and its Markdown cut to fit `cap` estimated tokens, text and data
/// together (a client may count both). `render` draws the Markdown from the
/// result and its results' Markdown.
pub fn fit(
    mut r: DebateResult,
    mut results_md: String,
    cap: usize,
    render: &dyn Fn(&DebateResult, &str) -> String,
) -> (DebateResult, String) {
    let size = |r: &DebateResult, md: &str| {
        let data = serde_json::to_string(r).map_or(0, |s| s.len());
        tokens(render(r, md).len() + data)
    };
    if size(&r, &results_md) <= cap {
        return (r, results_md);
    }
    let whole = r.transcript.clone();
    let texts: Vec<String> = r.positions.iter().map(|p| p.text.clone()).collect();
    let with_positions_at = |r: &mut DebateResult, limit: usize| {
        for (p, text) in r.positions.iter_mut().zip(&texts) {
            p.text = clip(text, limit, &whole);
        }
    };
    let longest = texts.iter().map(|t| t.chars().count()).max().unwrap_or(0);
    // Each note is written before the search that sizes what it describes,
    // with the largest number it can hold, so the result only shrinks after.
    let positions_note =
        |n: usize| format!("each seat's last word is cut to {n} characters; the whole turns are in {whole}");
    r.shortened.push(positions_note(longest));
    // The positions first, evenly, down to a few lines each.
    let mut limit = largest_fitting(longest, |l| {
        with_positions_at(&mut r, l);
        size(&r, &results_md) <= cap
    });
    if limit.is_none_or(|l| l < FEW_LINES.min(longest)) {
        // Then the protocol's results, named.
        if !r.results.is_empty() {
            let names: Vec<String> = r.results.keys().cloned().collect();
            r.shortened.insert(0, format!("the protocol's results ({}) are in {whole}", names.join(", ")));
            r.results.clear();
            results_md.clear();
        }
        limit = largest_fitting(longest, |l| {
            with_positions_at(&mut r, l);
            size(&r, &results_md) <= cap
        });
    }
    let limit = limit.unwrap_or(0);
    with_positions_at(&mut r, limit);
    let last = r.shortened.len() - 1;
    if limit < longest {
        r.shortened[last] = positions_note(limit);
    } else {
        r.shortened.pop();
    }
    // Last, the synthesis.
    if size(&r, &results_md) > cap
        && let Some(synthesis) = r.synthesis.clone()
    {
        let full = synthesis.chars().count();
        let note = |n: usize| format!("the synthesis is cut to {n} characters; it is whole in {whole}");
        r.shortened.push(note(full));
        let fits = largest_fitting(full, |l| {
            r.synthesis = Some(clip(&synthesis, l, &whole));
            size(&r, &results_md) <= cap
        })
        .unwrap_or(0);
        r.synthesis = Some(clip(&synthesis, fits, &whole));
        let last = r.shortened.len() - 1;
        r.shortened[last] = note(fits);
    }
    (r, results_md)
}

/// What a seat keeps at least before the results are given up for room.
const FEW_LINES: usize = 400;

/// The largest `n` in `0..=max` for which `fits(n)` holds (it holds for
/// every smaller one too), or none.
fn largest_fitting(max: usize, mut fits: impl FnMut(usize) -> bool) -> Option<usize> {
    if !fits(0) {
        return None;
    }
    let (mut lo, mut hi) = (0, max);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) { lo = mid } else { hi = mid - 1 }
    }
    Some(lo)
}

/// `text`'s first `limit` characters, and a note of what was cut and where it is whole.
fn clip(text: &str, limit: usize, whole: &str) -> String {
    let count = text.chars().count();
    if count <= limit {
        return text.to_string();
    }
    let kept: String = text.chars().take(limit).collect();
    format!("{}… [{} more characters in {whole}]", kept.trim_end(), count - limit)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::mcp::schema::{Outcome, Position, Usage};

    fn result(position_chars: usize, synthesis_chars: usize) -> DebateResult {
        DebateResult {
            session: "s1".into(),
            transcript: "agon://sessions/s1/transcript.md".into(),
            outcome: Outcome {
                kind: "completed".into(),
                complete: true,
                headline: "Completed".into(),
                reason: "all rounds ran".into(),
                next: None,
            },
            synthesis: Some("s".repeat(synthesis_chars)),
            positions: ["a", "b", "c"]
                .iter()
                .map(|s| Position {
                    seat: s.to_string(),
                    model: "openai/x".into(),
                    round: 2,
                    text: "w".repeat(position_chars),
                })
                .collect(),
            results: BTreeMap::from([(
                "ranking".to_string(),
                agon_core::NamedResult {
                    kind: agon_core::ResultKind::Ranking,
                    data: serde_json::json!({"table": "r".repeat(4000)}),
                },
            )]),
            warnings: Vec::new(),
            usage: Usage { calls: 7, prompt_tokens: 900, completion_tokens: 300, cost_usd: Some(0.0123) },
            shortened: Vec::new(),
        }
    }

    fn render(r: &DebateResult, results: &str) -> String {
        let positions: String = r.positions.iter().map(|p| p.text.clone()).collect();
        format!("{} {} {results} {positions}", r.outcome.reason, r.synthesis.clone().unwrap_or_default())
    }

    fn size(r: &DebateResult, md: &str) -> usize {
        tokens(render(r, md).len() + serde_json::to_string(r).unwrap().len())
    }

    #[test]
    fn a_result_within_the_cap_is_untouched() {
        let (r, md) = fit(result(100, 100), "table".into(), 8_000, &render);
        assert!(r.shortened.is_empty());
        assert_eq!((r.positions[0].text.len(), md.as_str()), (100, "table"));
    }

    #[test]
    fn positions_are_cut_evenly_first_and_what_was_cut_is_said() {
        let (r, md) = fit(result(20_000, 2_000), "r".repeat(4000), 8_000, &render);
        assert!(size(&r, &md) <= 8_000, "{}", size(&r, &md));
        let lens: Vec<usize> = r.positions.iter().map(|p| p.text.chars().count()).collect();
        assert!(lens.iter().all(|l| *l == lens[0]), "{lens:?}");
        assert!(r.positions[0].text.contains("more characters in agon://sessions/s1/transcript.md"));
        assert_eq!(r.synthesis.as_ref().unwrap().len(), 2_000, "the synthesis stays whole");
        assert!(!r.results.is_empty() && !md.is_empty(), "the results stay while positions can give room");
        assert!(r.shortened.iter().any(|s| s.contains("each seat's last word")), "{:?}", r.shortened);
    }

    #[test]
    fn a_tight_cap_gives_up_results_then_cuts_the_synthesis_but_keeps_the_outcome_and_cost() {
        let (r, md) = fit(result(20_000, 40_000), "r".repeat(4000), 1_500, &render);
        assert!(size(&r, &md) <= 1_500, "{}", size(&r, &md));
        assert!(r.results.is_empty() && md.is_empty());
        assert!(r.synthesis.as_ref().unwrap().contains("more characters in agon://"));
        assert_eq!(r.outcome.reason, "all rounds ran");
        assert_eq!(r.usage.cost_usd, Some(0.0123));
        assert_eq!(r.shortened.len(), 3, "{:?}", r.shortened);
    }

    #[test]
    fn largest_fitting_finds_the_boundary() {
        assert_eq!(largest_fitting(100, |n| n <= 37), Some(37));
        assert_eq!(largest_fitting(100, |n| n <= 1000), Some(100));
        assert_eq!(largest_fitting(100, |_| false), None);
    }
}
