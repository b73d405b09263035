//! Reading agreement out of free text, without being fooled by it.
//!
//! A reply counts as agreeing when it carries an explicit `CONSENSUS:` line
//! (not an echo of the prompt's placeholder), or when its author says in the
//! first person that they agree — and says nowhere that they disagree.
//! Negations ("I don't agree", "I can't agree") count against, quoted text
//! ("Speaker 2 wrote: \"I agree\"") and reported speech ("Speaker 2 agrees")
//! count for nothing.

use serde::{Deserialize, Serialize};

/// What one reply says about convergence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stance {
    /// A `CONSENSUS:` line with real content.
    ExplicitConsensus,
    /// First-person agreement language, with no disagreement anywhere.
    Agrees,
    /// First-person disagreement, or negated agreement.
    Disagrees,
    /// Nothing either way.
    Silent,
}

impl Stance {
    pub fn is_agreement(self) -> bool {
        matches!(self, Stance::ExplicitConsensus | Stance::Agrees)
    }
}

/// The result of one convergence check, as events and transcripts record it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsensusCheck {
    pub round: u32,
    pub reached: bool,
    pub reason: String,
    /// Seats whose replies this round were read.
    pub counted: Vec<String>,
    /// The subset of `counted` that agreed.
    pub agreeing: Vec<String>,
    /// The seat left out because it held the adversarial role.
    pub excluded: Option<String>,
    /// How many agreeing seats were needed.
    pub needed: u32,
}

/// Check convergence over `(seat id, reply)` pairs: all but one must agree.
pub fn check(round: u32, replies: &[(&str, &str)], excluded: Option<&str>) -> ConsensusCheck {
    let counted: Vec<String> = replies.iter().map(|(id, _)| id.to_string()).collect();
    let mut explicit = 0;
    let mut agreeing = Vec::new();
    for (id, text) in replies {
        let s = stance(text);
        if s == Stance::ExplicitConsensus {
            explicit += 1;
        }
        if s.is_agreement() {
            agreeing.push(id.to_string());
        }
    }
    let needed = counted.len().saturating_sub(1).max(1);
    let reached = !counted.is_empty() && agreeing.len() >= needed;
    let reason = if counted.is_empty() {
        "no replies to read".to_string()
    } else {
        format!(
            "{} of {} agreeing ({} explicit, {} by agreement language); {} needed",
            agreeing.len(),
            counted.len(),
            explicit,
            agreeing.len() - explicit,
            needed
        )
    };
    ConsensusCheck {
        round,
        reached,
        reason,
        counted,
        agreeing,
        excluded: excluded.map(str::to_string),
        needed: needed as u32,
    }
}

/// What a single reply says about convergence.
pub fn stance(text: &str) -> Stance {
    let own_words = without_quotations(text);
    let explicit = own_words.lines().any(is_consensus_line);
    let mut agrees = false;
    let mut disagrees = false;
    for sentence in own_words.split(['.', '!', '?', ';', '\n']) {
        let words = words(sentence);
        for (k, w) in words.iter().enumerate() {
            let before = &words[k.saturating_sub(4)..k];
            let first_person =
                before.iter().any(|b| matches!(b.as_str(), "i" | "we" | "i'm" | "we're" | "i've" | "we've"));
            let negated = before.iter().any(|b| is_negation(b));
            let hedged = before.iter().any(|b| matches!(b.as_str(), "partially" | "partly" | "somewhat" | "only"));
            if matches!(w.as_str(), "agree" | "concur" | "converged" | "persuaded" | "convinced") {
                if negated || hedged {
                    disagrees |= first_person || negated;
                } else if first_person {
                    agrees = true;
                }
            } else if matches!(w.as_str(), "disagree" | "object" | "reject" | "unconvinced" | "unpersuaded")
                && first_person
                && !negated
            {
                disagrees = true;
            }
        }
    }
    if explicit {
        Stance::ExplicitConsensus
    } else if disagrees {
        Stance::Disagrees
    } else if agrees {
        Stance::Agrees
    } else {
        Stance::Silent
    }
}

/// Whether a reply uses the stand-down phrase ("stress-tested") in its own
/// words, not negated ("not stress-tested", "hasn't been stress-tested").
pub fn stands_down(text: &str) -> bool {
    let own = without_quotations(text).to_ascii_lowercase().replace("stress tested", "stress-tested");
    own.split(['.', '!', '?', ';', '\n']).any(|sentence| {
        let words = words(sentence);
        words.iter().enumerate().any(|(k, w)| {
            w.starts_with("stress-tested") && !words[k.saturating_sub(4)..k].iter().any(|b| is_negation(b))
        })
    })
}

fn is_negation(word: &str) -> bool {
    matches!(word, "not" | "no" | "never" | "nor" | "cannot" | "hardly" | "longer") || word.ends_with("n't")
}

/// A line of the form `CONSENSUS: <the shared position>`, markdown allowed,
/// whose content is neither empty, a denial, nor the prompt's own placeholder.
fn is_consensus_line(line: &str) -> bool {
    let line = line.trim_start_matches(|c: char| c.is_whitespace() || "*-#_>".contains(c));
    let Some(head) = line.get(..10) else {
        return false;
    };
    if !head.eq_ignore_ascii_case("consensus:") {
        return false;
    }
    let payload = line[10..].trim().trim_matches(|c: char| c == '*' || c == '_').trim();
    let lower = payload.to_ascii_lowercase();
    let denial = ["none", "no", "not", "n/a", "nope"]
        .iter()
        .any(|d| lower == *d || lower.starts_with(&format!("{d} ")) || lower.starts_with(&format!("{d},")));
    let placeholder = payload.starts_with('<') || payload.starts_with('[');
    !payload.is_empty() && !denial && !placeholder
}

/// The text with quotations removed: block quotes and "…" / “…” spans.
fn without_quotations(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        if line.trim_start().starts_with('>') {
            out.push('\n');
            continue;
        }
        let mut quoted = false;
        for c in line.chars() {
            match c {
                '"' => quoted = !quoted,
                '“' => quoted = true,
                '”' => quoted = false,
                _ if !quoted => out.push(c),
                _ => {}
            }
        }
        out.push('\n');
    }
    out
}

fn words(sentence: &str) -> Vec<String> {
    sentence
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’' || c == '-'))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_lowercase().replace('’', "'"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_lines_count() {
        assert_eq!(stance("My view.\nCONSENSUS: ship the MVP in May."), Stance::ExplicitConsensus);
        assert_eq!(stance("**Consensus:** ship it"), Stance::ExplicitConsensus);
    }

    #[test]
    fn denials_and_placeholders_are_not_consensus() {
        assert_eq!(stance("CONSENSUS: none yet"), Stance::Silent);
        assert_eq!(stance("CONSENSUS: no"), Stance::Silent);
        assert_eq!(stance("CONSENSUS: <the shared position in one sentence>"), Stance::Silent);
        assert_eq!(stance("There is no consensus: we differ."), Stance::Silent);
    }

    #[test]
    fn first_person_agreement_counts() {
        assert_eq!(stance("I agree with Speaker 1 that caching is the bottleneck."), Stance::Agrees);
        assert_eq!(stance("After this round, we have converged on option B."), Stance::Agrees);
        assert_eq!(stance("I'm persuaded by the cost argument."), Stance::Agrees);
    }

    #[test]
    fn negated_agreement_is_disagreement() {
        assert_eq!(stance("I don't agree with Speaker 2."), Stance::Disagrees);
        assert_eq!(stance("I can't agree with that framing."), Stance::Disagrees);
        assert_eq!(stance("I do not agree."), Stance::Disagrees);
        assert_eq!(stance("I no longer agree with my first answer."), Stance::Disagrees);
        assert_eq!(stance("I only partially agree."), Stance::Disagrees);
    }

    #[test]
    fn disagreement_anywhere_outweighs_agreement_language() {
        let text = "I agree with Speaker 1 on cost. But I disagree with Speaker 3 on timing.";
        assert_eq!(stance(text), Stance::Disagrees);
    }

    #[test]
    fn quotations_and_reported_speech_count_for_nothing() {
        assert_eq!(stance("Speaker 2 wrote \"I agree with everyone\", which is premature."), Stance::Silent);
        assert_eq!(stance("> I agree with Speaker 1\nThat quote shows the risk."), Stance::Silent);
        assert_eq!(stance("Speaker 3 agrees with the plan."), Stance::Silent);
        assert_eq!(stance("“We all agree” is what groupthink sounds like."), Stance::Silent);
    }

    #[test]
    fn the_stand_down_phrase_counts_unless_negated() {
        assert!(stands_down("I have stress-tested this; the position holds."));
        assert!(stands_down("The plan is stress tested."));
        assert!(!stands_down("The plan has not been stress-tested."));
        assert!(!stands_down("Nobody wrote \"stress-tested\" yet."));
    }

    #[test]
    fn check_needs_all_but_one() {
        let replies = [("a", "I agree."), ("b", "CONSENSUS: yes, ship it"), ("c", "I disagree.")];
        let c = check(1, &replies, Some("d"));
        assert!(c.reached, "{c:?}");
        assert_eq!(c.needed, 2);
        assert_eq!(c.agreeing, vec!["a", "b"]);
        assert_eq!(c.excluded.as_deref(), Some("d"));
        let replies = [("a", "I agree."), ("b", "I disagree."), ("c", "Hmm.")];
        assert!(!check(1, &replies, None).reached);
        assert!(!check(1, &[], None).reached);
    }
}
