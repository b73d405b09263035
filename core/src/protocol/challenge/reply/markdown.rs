//! The original's Markdown forms of challenge's replies, read as the JSON
//! ones are: a verdict written as `**Verdict:** disagree` lines, and the
//! defender's `## RESPONSE TO Challenger N` sections with `[x] PARTIALLY
//! ACCEPT` boxes and an `**Updated position:**`. The seed asks for exactly
//! these shapes, so a defender that answers in them has answered.

use std::collections::BTreeMap;

use super::{Decision, DefenderResponse};

/// One `**Label:** value` (or `Label: value`) field: the label in lower case,
/// the value with the lines that continue it.
struct Field {
    label: String,
    value: String,
}

/// A line without its list marker, heading marks and surrounding spaces.
fn bare(line: &str) -> &str {
    let t = line.trim().trim_start_matches('#').trim();
    let t = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")).unwrap_or(t);
    // "1. " / "2) " numbering.
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    match t[digits..].chars().next() {
        Some('.' | ')') if digits > 0 => t[digits + 1..].trim_start(),
        _ => t,
    }
}

/// `**Label:** rest`, `**Label**: rest`, or `Label: rest` for a label in
/// `plain` (lower case): the label, lower case, and the rest.
fn label_line<'a>(line: &'a str, plain: &[&str]) -> Option<(String, &'a str)> {
    let t = bare(line);
    let (label, rest) = if let Some(inner) = t.strip_prefix("**") {
        let end = inner.find("**")?;
        let (label, rest) = (&inner[..end], &inner[end + 2..]);
        match label.strip_suffix(':') {
            Some(l) => (l, rest),
            None => (label, rest.strip_prefix(':')?),
        }
    } else {
        let (label, rest) = t.split_once(':')?;
        if !plain.contains(&label.trim().to_ascii_lowercase().as_str()) {
            return None;
        }
        (label, rest)
    };
    let label = label.trim();
    let short = !label.is_empty() && label.len() <= 48;
    short.then(|| (label.to_ascii_lowercase(), rest.trim()))
}

/// Every labelled field of `text`, in order; a value runs on over the lines
/// after its label until the next label or heading.
fn fields(text: &str, plain: &[&str]) -> Vec<Field> {
    let mut out: Vec<Field> = Vec::new();
    for line in text.lines() {
        if let Some((label, rest)) = label_line(line, plain) {
            out.push(Field { label, value: rest.to_string() });
        } else if line.trim_start().starts_with('#') {
            out.push(Field { label: String::new(), value: String::new() });
        } else if let Some(last) = out.last_mut() {
            if !last.value.is_empty() {
                last.value.push('\n');
            }
            last.value.push_str(line.trim_end());
        }
    }
    for f in &mut out {
        f.value = f.value.trim().to_string();
    }
    out
}

/// A value as a word: `[DISAGREE]`, `**high**` → `disagree`, `high`.
fn word(value: &str) -> String {
    value.trim_matches(|c: char| !c.is_alphanumeric()).to_ascii_lowercase()
}

/// The seed's display of a verdict (`**Verdict:** …`, `**Critique:** …`) as
/// the JSON object the prompt asks for, for the JSON reader to check; `None`
/// without a `Verdict` line.
pub(super) fn verdict_as_json(text: &str) -> Option<serde_json::Value> {
    const LABELS: [&str; 7] = [
        "verdict",
        "critique",
        "evidence",
        "alternative",
        "confidence",
        "objection strength",
        "assumptions challenged",
    ];
    let found = fields(text, &LABELS);
    let get = |label: &str| found.iter().find(|f| f.label.replace('_', " ") == label).map(|f| f.value.as_str());
    let verdict = get("verdict")?;
    let assumptions: Vec<String> = get("assumptions challenged")
        .map(|v| {
            let items: Vec<&str> = v.lines().map(bare).filter(|l| !l.is_empty()).collect();
            let items = if items.len() == 1 { items[0].split(';').map(str::trim).collect() } else { items };
            items.into_iter().filter(|s| !s.is_empty()).map(str::to_string).collect()
        })
        .unwrap_or_default();
    Some(serde_json::json!({
        "verdict": word(verdict),
        "critique": get("critique").unwrap_or(""),
        "evidence": get("evidence").unwrap_or(""),
        "alternative": get("alternative").unwrap_or(""),
        "confidence": get("confidence").map(word).unwrap_or_default(),
        "objection_strength": get("objection strength").map(word).unwrap_or_default(),
        "assumptions_challenged": assumptions,
    }))
}

/// A tick box at the start of a line: `Some(true)` for `[x]`, `Some(false)`
/// for `[ ]`, and the text after it.
fn tick_box(line: &str) -> Option<(bool, &str)> {
    let t = bare(line);
    let t = t.strip_prefix("**").unwrap_or(t);
    let rest = t.strip_prefix('[')?;
    let (inside, after) = rest.split_once(']')?;
    let checked = match inside.trim() {
        "" => false,
        "x" | "X" | "✓" | "✔" | "✅" => true,
        _ => return None,
    };
    Some((checked, after.trim_start().trim_start_matches("**").trim_start()))
}

/// The decision a text starts with, and what follows it. `any_case` reads
/// "Reject" as well as "REJECT" (after a tick box or a decision label); plain
/// prose needs the capitals, so "Rejecting that…" is no decision.
fn decision_at(text: &str, any_case: bool) -> Option<(Decision, &str)> {
    let t = text.trim_start().trim_start_matches('*').trim_start();
    const WORDS: [(&str, Decision); 5] = [
        ("PARTIALLY ACCEPT", Decision::PartiallyAccept),
        ("PARTIAL ACCEPT", Decision::PartiallyAccept),
        ("PARTIALLY", Decision::PartiallyAccept),
        ("ACCEPT", Decision::Accept),
        ("REJECT", Decision::Reject),
    ];
    WORDS.iter().find_map(|(w, d)| {
        let head = t.get(..w.len())?;
        let same = if any_case { head.eq_ignore_ascii_case(w) } else { head == *w };
        let rest = &t[w.len()..];
        // A whole word: "ACCEPTED" and "REJECTS" are prose.
        let whole = rest.chars().next().is_none_or(|c| !c.is_alphanumeric());
        (same && whole).then_some((*d, rest))
    })
}

/// What follows a decision word: its reason, separators trimmed.
fn reason_head(rest: &str) -> &str {
    rest.trim_start_matches(|c: char| c == '*' || c == ':' || c == '-' || c == '—' || c == '–' || c.is_whitespace())
        .trim_end()
}

/// The challenger a heading-like line names (`## RESPONSE TO Challenger 2`,
/// `**Challenger 2:** REJECT …`): its index in `labels` and the text after
/// the name. A name outside `labels` is an error.
fn named<'a>(line: &'a str, labels: &[String]) -> Result<Option<(usize, &'a str)>, String> {
    let t = line.trim();
    let lower = t.to_ascii_lowercase();
    let heading = t.starts_with('#') || t.starts_with("**") || lower.contains("response to");
    if !heading {
        return Ok(None);
    }
    let Some(at) = lower.find("challenger ") else { return Ok(None) };
    // Only a label that opens the line's bold part or follows "response to" names it:
    // "**Their critique:** Challenger 2 said…" is a field, not a section.
    let before = &lower[..at];
    let opens = before.trim_start_matches(['#', '*', ' ', '-']).is_empty() || before.contains("response to");
    if !opens {
        return Ok(None);
    }
    let digits: String = lower[at + 11..].chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() {
        return Ok(None);
    }
    let name = format!("challenger {digits}");
    let after = &t[at + 11 + digits.len()..];
    match labels.iter().position(|l| l.eq_ignore_ascii_case(&name)) {
        Some(i) => Ok(Some((i, after))),
        None => Err(format!("a response names an unknown challenger 'Challenger {digits}'")),
    }
}

/// Field labels whose value is the decision itself.
const DECISION_LABELS: [&str; 4] = ["decision", "my response", "response", "my decision"];

/// One challenger's section: its decision (a ticked box, else a line that
/// starts with one) and the reason under it.
fn section_decision(lines: &[&str]) -> Result<Option<(Decision, String)>, String> {
    let boxes: Vec<(bool, &str, usize)> =
        lines.iter().enumerate().filter_map(|(i, l)| tick_box(l).map(|(c, rest)| (c, rest, i))).collect();
    let found: Vec<(Decision, &str, usize)> = if boxes.is_empty() {
        lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| {
                match label_line(l, &["decision", "my response"]) {
                    // "**My response:** REJECT …"; any other field ("**Their critique:**") decides nothing.
                    Some((label, rest)) if DECISION_LABELS.contains(&label.as_str()) => decision_at(rest, true),
                    Some(_) => None,
                    None => decision_at(bare(l), false),
                }
                .map(|(d, rest)| (d, rest, i))
            })
            .collect()
    } else {
        boxes
            .iter()
            .filter(|(c, _, _)| *c)
            .filter_map(|(_, rest, i)| decision_at(rest, true).map(|(d, r)| (d, r, *i)))
            .collect()
    };
    let Some(&(decision, rest, at)) = found.first() else { return Ok(None) };
    if found.iter().any(|(d, _, _)| *d != decision) {
        return Err("two different decisions ticked for one challenger".into());
    }
    // The reason: the decision line's words, then the lines under it up to the next box or field.
    let mut reason = vec![reason_head(rest).to_string()];
    for l in &lines[at + 1..] {
        if tick_box(l).is_some() || label_line(l, &[]).is_some() || l.trim_start().starts_with('#') {
            break;
        }
        reason.push(l.trim().to_string());
    }
    let reason = reason.into_iter().filter(|r| !r.is_empty()).collect::<Vec<_>>().join(" ");
    Ok(Some((decision, reason)))
}

/// The defender's answer in the seed's Markdown. The challengers' `labels`
/// are as the prompt showed them ("Challenger 1"); one section per challenger,
/// or no section at all when only one was answered.
pub(super) fn defender_response(text: &str, labels: &[String]) -> Result<DefenderResponse, String> {
    let lines: Vec<&str> = text.lines().collect();
    // Sections: (challenger index or none, first line, the header's own text after the name).
    let mut starts: Vec<(Option<usize>, usize, &str)> = vec![(None, 0, "")];
    for (i, line) in lines.iter().enumerate() {
        if let Some((who, after)) = named(line, labels)? {
            starts.push((Some(who), i, after));
        }
    }
    let mut decisions = BTreeMap::new();
    for (k, &(who, from, after)) in starts.iter().enumerate() {
        let to = starts.get(k + 1).map_or(lines.len(), |s| s.1);
        let body: Vec<&str> = if who.is_some() {
            // The header's text after the name ("**Challenger 2:** REJECT — …") is its first line.
            std::iter::once(after.trim_start_matches([':', '*', ')', ' ']))
                .chain(lines[from + 1..to].iter().copied())
                .collect()
        } else {
            lines[from..to].to_vec()
        };
        let Some(decided) = section_decision(&body)? else { continue };
        let who = match who {
            Some(w) => w,
            // Decisions before any named section count only when one challenger was answered.
            None if labels.len() == 1 && starts.len() == 1 => 0,
            None => continue,
        };
        if decisions.insert(labels[who].clone(), decided).is_some() {
            return Err(format!("two responses to {}", labels[who]));
        }
    }
    if decisions.is_empty() {
        let why = if labels.len() > 1 && starts.len() == 1 {
            "no ACCEPT, PARTIALLY ACCEPT or REJECT under a heading naming its challenger"
        } else {
            "no ACCEPT, PARTIALLY ACCEPT or REJECT in the reply"
        };
        return Err(why.into());
    }
    Ok(DefenderResponse { decisions, updated_position: updated_position(text) })
}

/// The last `**Updated position:**` (or new / current position) that states
/// one; `None` when every one says "unchanged", or there is none.
fn updated_position(text: &str) -> Option<String> {
    let found = fields(text, &["updated position", "new position", "current position"]);
    found.iter().rev().find_map(|f| {
        let l = &f.label;
        let position =
            l.starts_with("updated position") || l.starts_with("new position") || l.starts_with("current position");
        if !position {
            return None;
        }
        // Stop at a tick box: the next challenger's section may follow without a heading.
        let value: Vec<&str> = f.value.lines().take_while(|l| tick_box(l).is_none()).collect();
        let value = value.join("\n").trim().to_string();
        let lower = word(&value);
        let unchanged = value.is_empty() || lower.starts_with("unchanged") || lower.starts_with("no change");
        (!unchanged).then_some(value)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("Challenger {i}")).collect()
    }

    /// The seed's own response template, one challenger a section, one box ticked.
    #[test]
    fn the_seeds_response_template_is_read() {
        let text = "## RESPONSE TO Challenger 1\n\n**Their critique:** the signing key lives on the Jenkins host.\n\n\
**My response:**\n\n[ ] ACCEPT - This critique is valid.\n\n[x] PARTIALLY ACCEPT - Valid point, but limited scope:\n    \
the key moves first; that is a week, not a quarter.\n\n[ ] REJECT - This critique is not valid because:\n\n\
**Updated position (if changed):**\nMove this quarter, the key to a KMS first.\n\n\
## RESPONSE TO Challenger 2\n\n**Their critique:** Challenger 1 is right and also runners.\n\n**My response:**\n\n\
[ ] ACCEPT\n[ ] PARTIALLY ACCEPT\n[X] REJECT - hosted runners are enough.\n\n**Updated position (if changed):**\nunchanged\n";
        let r = defender_response(text, &labels(2)).unwrap();
        let (d1, why1) = &r.decisions["Challenger 1"];
        assert_eq!(*d1, Decision::PartiallyAccept);
        assert_eq!(why1, "Valid point, but limited scope: the key moves first; that is a week, not a quarter.");
        assert_eq!(r.decisions["Challenger 2"], (Decision::Reject, "hosted runners are enough.".to_string()));
        // The last stated position is "unchanged": the one before it stands.
        assert_eq!(r.updated_position.as_deref(), Some("Move this quarter, the key to a KMS first."));
    }

    #[test]
    fn one_challenger_needs_no_heading_and_unchanged_keeps_the_position() {
        let r =
            defender_response("REJECT: the budget covers it.\n\n**Updated position:** unchanged", &labels(1)).unwrap();
        assert_eq!(r.decisions["Challenger 1"], (Decision::Reject, "the budget covers it.".to_string()));
        assert_eq!(r.updated_position, None);
        let r = defender_response(
            "**Challenger 1:** ACCEPT — add a rollback.\n**Updated position:** Ship with a rollback.",
            &labels(1),
        )
        .unwrap();
        assert_eq!(r.decisions["Challenger 1"].0, Decision::Accept);
        assert_eq!(r.updated_position.as_deref(), Some("Ship with a rollback."));
    }

    #[test]
    fn prose_unticked_boxes_and_unknown_challengers_decide_nothing() {
        // Lower-case prose is no decision, nor are the template's empty boxes.
        assert!(defender_response("Rejecting that would be rash; I accept nothing.", &labels(1)).is_err());
        assert!(defender_response("[ ] ACCEPT\n[ ] PARTIALLY ACCEPT\n[ ] REJECT", &labels(1)).is_err());
        // Two challengers, one unlabelled decision: whose is it?
        let e = defender_response("ACCEPT: fine.", &labels(2)).unwrap_err();
        assert!(e.contains("heading naming its challenger"), "{e}");
        let e = defender_response("## RESPONSE TO Challenger 3\n[x] ACCEPT", &labels(2)).unwrap_err();
        assert!(e.contains("unknown challenger 'Challenger 3'"), "{e}");
        let e = defender_response("## Challenger 1\n[x] ACCEPT\n[x] REJECT", &labels(1)).unwrap_err();
        assert!(e.contains("two different decisions"), "{e}");
    }

    #[test]
    fn the_seeds_verdict_display_reads_as_its_json() {
        let text = "### Gemini says:\n**Verdict:** [DISAGREE]\n**Critique:** runners need GPUs.\nThe suite needs them.\n\
**Evidence:** the nightly job.\n**Alternative:** a self-hosted runner.\n**Confidence:** high\n\
**Objection strength:** strong\n**Assumptions challenged:**\n- the pipelines are simple\n- hosted runners suffice\n";
        let v = verdict_as_json(text).unwrap();
        assert_eq!(v["verdict"], "disagree");
        assert_eq!(v["critique"], "runners need GPUs.\nThe suite needs them.");
        assert_eq!(v["objection_strength"], "strong");
        assert_eq!(
            v["assumptions_challenged"],
            serde_json::json!(["the pipelines are simple", "hosted runners suffice"])
        );
        assert!(verdict_as_json("I think it is fine.").is_none());
    }
}
