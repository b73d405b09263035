//! A ledger result in a transcript's Markdown: the claims as a table, then
//! every change of position (the unexplained ones flagged), then the agreement.

use std::fmt::Write;

use super::{Act, AgreementKind, Because, Ledger, Ruling, Standing};
use crate::Transcript;
use crate::render::results::{cell, name, table};

/// Writes the ledger in `value`; false when it is not one (the generic
/// renderer then shows it as JSON).
pub(crate) fn render(t: &Transcript, value: &serde_json::Value, out: &mut String) -> bool {
    let Ok(ledger) = crate::json_read::read::<Ledger>(value) else { return false };
    let who = |acts: &[Act]| -> String {
        if acts.is_empty() {
            return "—".into();
        }
        acts.iter().map(|a| format!("{} (round {})", name(t, &a.seat), a.round)).collect::<Vec<_>>().join(", ")
    };
    let _ = writeln!(out, "### Claim ledger\n");
    if ledger.claims.is_empty() {
        out.push_str("No claim was raised.\n\n");
    } else {
        let rows: Vec<Vec<String>> = ledger
            .claims
            .iter()
            .map(|c| {
                let (conceded, ruling) = match &c.standing {
                    Standing::Conceded { by } if by.iter().any(|a| a.seat == c.seat) => {
                        (format!("{} (withdrawn)", who(by)), "— (settled)".to_string())
                    }
                    Standing::Conceded { by } => (who(by), "— (settled)".to_string()),
                    Standing::Unanswered { ruling } | Standing::Attacked { ruling } => ("—".into(), ruled(ruling)),
                };
                vec![
                    format!("{}: {}", c.id, c.text),
                    c.standing.as_str().to_string(),
                    format!("{} (round {})", name(t, &c.seat), c.round),
                    who(&c.attacks),
                    conceded,
                    ruling,
                ]
            })
            .collect();
        table(out, &["claim", "status", "raised by", "attacked by", "conceded by", "ruling"], &rows);
    }
    if !ledger.flips.is_empty() {
        let _ = writeln!(out, "Changes of position:\n");
        for f in &ledger.flips {
            let because = match &f.because {
                Because::Claim { id } => format!("citing {id}"),
                Because::Seat { seat } => format!("citing {}", name(t, seat)),
                Because::Unexplained => "**unexplained**: it cites no claim and no seat".into(),
            };
            let _ = writeln!(
                out,
                "- {}, round {}: {} → {}; {because}",
                cell(&name(t, &f.seat)),
                f.round,
                cell(&f.from),
                cell(&f.to)
            );
        }
        out.push('\n');
    }
    if let Some(a) = &ledger.agreement {
        let how = match a.kind {
            AgreementKind::Independent => "independent: every seat held it from its first stated position",
            AgreementKind::Persuaded => "persuaded: every change of position toward it cited a claim or a seat",
            AgreementKind::Negotiated => "negotiated, not independent: a seat came round to it citing nothing",
        };
        let _ = writeln!(out, "Agreement on **{}**: {how}.\n", cell(&a.position));
    }
    if !ledger.refused.is_empty() {
        let lines: Vec<String> =
            ledger.refused.iter().map(|r| format!("{} {} ({})", name(t, &r.seat), cell(&r.line), r.why)).collect();
        let _ = writeln!(out, "Not taken: {}.\n", lines.join("; "));
    }
    true
}

fn ruled(r: &Ruling) -> String {
    match r {
        Ruling::Unruled => "**unruled**".into(),
        Ruling::Upheld { why } => format!("upheld: {why}"),
        Ruling::Rejected { why } => format!("rejected: {why}"),
    }
}
