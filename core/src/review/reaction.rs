//! A seat's reaction to the panel's findings, read from declared lines:
//!
//! ```text
//! CONFIRM: src/lib.rs:42 | the loop does read one past the end
//! DISPUTE: src/lib.rs:42 | citing Speaker 2 | the bound is checked on line 40
//! ```
//!
//! `citing LABEL` names the seat whose argument changed the reacting seat's
//! position; a change of position without one is flagged.

use super::finding::{location, strip_decoration, strip_prefix_ci};

/// Whether a seat stands behind a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stand {
    Confirm,
    Dispute,
}

/// One declared reaction to the finding at a location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reaction {
    pub stand: Stand,
    pub file: String,
    pub line: u32,
    /// The label of the seat whose argument the reaction cites, as written.
    pub citing: Option<String>,
    pub reason: String,
}

/// Every well-formed reaction line of a reply, in order.
pub fn read_reactions(text: &str) -> Vec<Reaction> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = strip_decoration(line);
        let (stand, rest) = match (strip_prefix_ci(line, "CONFIRM:"), strip_prefix_ci(line, "DISPUTE:")) {
            (Some(rest), _) => (Stand::Confirm, rest),
            (_, Some(rest)) => (Stand::Dispute, rest),
            _ => continue,
        };
        let mut parts = rest.split('|').map(str::trim);
        let Some((file, line)) = parts.next().and_then(location) else { continue };
        let (mut citing, mut reason) = (None, Vec::new());
        for part in parts {
            match strip_prefix_ci(part, "citing ") {
                Some(label) if citing.is_none() && !label.is_empty() => citing = Some(label.to_string()),
                _ => reason.push(part),
            }
        }
        out.push(Reaction { stand, file, line, citing, reason: reason.join(" | ") });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_confirms_disputes_and_citations() {
        let text = "My view:\nCONFIRM: src/lib.rs:42 | agreed\n* DISPUTE: `a.py:7` | citing Speaker 2 | checked above\n\
                    DISPUTE: nowhere | no location\nI CONFIRM: x.rs:1 in prose";
        let r = read_reactions(text);
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].stand, r[0].file.as_str(), r[0].line), (Stand::Confirm, "src/lib.rs", 42));
        assert_eq!(r[0].citing, None);
        assert_eq!((r[1].stand, r[1].citing.as_deref()), (Stand::Dispute, Some("Speaker 2")));
        assert_eq!(r[1].reason, "checked above");
    }
}
