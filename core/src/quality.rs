//! The quality gate for adversarial seats (seed 001's countermeasures,
//! enforced rather than hoped for).

use crate::stance::{self, Verdict};

/// Phrases that soften an objection into nothing.
const SOFTENERS: &[&str] = &[
    "building on",
    "adding nuance",
    "largely agree",
    "minor nitpick",
    "probably fine but",
    "just a thought",
    "i agree with everything",
];

/// Words that carry disagreement.
const DISAGREEMENT: &[&str] = &[
    "disagree",
    "wrong",
    "flaw",
    "weak",
    "risk",
    "fail",
    "concern",
    "problem",
    "objection",
    "counter",
    "overlook",
    "ignore",
    "assum",
    "break",
    "danger",
    "unproven",
    "unsupported",
    "missing",
];

/// Why an adversarial turn pulls its punches, or `None` if it does not.
pub(crate) fn pulls_punches(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    if let Some(s) = SOFTENERS.iter().find(|s| lower.contains(*s)) {
        return Some(format!("softens its objections (\"{s}\")"));
    }
    let read = stance::read(text, false).verdict;
    let disagrees =
        matches!(read, Verdict::Disagrees | Verdict::AgreesInPart) || DISAGREEMENT.iter().any(|w| lower.contains(w));
    (!disagrees).then(|| "carries no disagreement".to_string())
}

#[cfg(test)]
mod tests {
    use super::pulls_punches;

    #[test]
    fn flags_softeners_and_agreeable_turns() {
        assert!(pulls_punches("Building on Speaker 1, I would add caching.").unwrap().contains("building on"));
        assert!(pulls_punches("Great plan, ship it.").unwrap().contains("no disagreement"));
        assert!(pulls_punches("This is a minor nitpick, but the risk is small.").is_some());
    }

    #[test]
    fn passes_real_objections() {
        assert_eq!(pulls_punches("I disagree: the budget assumes zero churn."), None);
        assert_eq!(pulls_punches("The plan fails if the vendor raises prices."), None);
    }
}
