//! When a phase or a part runs: only in runs of some lengths, only in one
//! round. So one document can hold two plans (steelman's single pass, and
//! its four-round dialectic), and the rounds a spec may ask for follow from
//! the phases: a run of `r` rounds is possible when each of its rounds runs
//! a phase ([`Document::runnable`]).

use serde::{Deserialize, Serialize};

use super::Document;

/// When a phase or a part runs: only in runs of a given number of rounds,
/// only in one round; both given, both must hold. A spec may ask only for a
/// number of rounds in which every round runs a phase, so one document can
/// hold two plans (steelman: one pass, or a four-round dialectic; 2 or 3 refused).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct When {
    /// Only when the spec asks for this many rounds (`4`); any number if absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    /// Only in this round (`2`); every round if absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
}

impl When {
    pub fn holds(&self, round: u32, rounds: u32) -> bool {
        self.rounds.is_none_or(|n| n == rounds) && self.round.is_none_or(|r| r == round)
    }

    pub fn is_always(&self) -> bool {
        *self == When::default()
    }
}

impl Document {
    /// Whether a run of `rounds` rounds runs a phase in each of them.
    pub(crate) fn runnable(&self, rounds: u32) -> bool {
        (1..=rounds).all(|round| self.phases.iter().any(|p| p.runs_in(round, rounds)))
    }

    /// The numbers of rounds a spec may ask for: those up to `rounds.max` that are runnable.
    pub(crate) fn allowed_rounds(&self) -> impl Iterator<Item = u32> + '_ {
        (1..=self.rounds.max).filter(|&r| self.runnable(r))
    }

    /// A spec's rounds, when the document's conditions leave some numbers
    /// below its maximum empty: refused, naming the numbers it runs.
    pub(crate) fn check_rounds(&self, asked: u32) -> Result<(), crate::Error> {
        if asked > self.rounds.max || self.runnable(asked) {
            // Above the maximum is the registry's error.
            return Ok(());
        }
        let allowed: Vec<String> = self.allowed_rounds().map(|r| r.to_string()).collect();
        let (last, rest) = allowed.split_last().expect("validated: the default is runnable");
        let list = if rest.is_empty() { last.clone() } else { format!("{} or {last}", rest.join(", ")) };
        Err(crate::Error::spec(
            "rounds",
            format!("{} runs {list} rounds ({}); {asked} asked", self.name, self.round_unit()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::document::builtins::builtin;

    #[test]
    fn a_condition_holds_in_the_runs_and_rounds_it_names() {
        let when = When { rounds: Some(4), round: Some(2) };
        assert!(when.holds(2, 4));
        assert!(!when.holds(1, 4) && !when.holds(2, 3));
        assert!(When::default().holds(7, 9) && When::default().is_always());
        assert!(When { rounds: Some(4), round: None }.holds(3, 4));
    }

    #[test]
    fn steelman_runs_one_pass_or_the_four_round_dialectic() {
        let doc = builtin("steelman");
        assert_eq!(doc.allowed_rounds().collect::<Vec<_>>(), [1, 4]);
        assert!(doc.check_rounds(1).is_ok() && doc.check_rounds(4).is_ok());
        let e = doc.check_rounds(2).unwrap_err().to_string();
        assert!(e.contains("rounds") && e.contains("runs 1 or 4 rounds") && e.contains("2 asked"), "{e}");
        // The dialectic's phases, one a round, each a different part.
        let kinds: Vec<_> = (1..=4).map(|r| doc.phases.iter().find(|p| p.runs_in(r, 4)).unwrap().phase).collect();
        assert_eq!(
            kinds.iter().map(|p| p.as_str()).collect::<Vec<_>>(),
            ["opening", "critique", "rebuttal", "deliberation"]
        );
        // Round 1 of the dialectic: the steelman alone; of the single pass, both.
        let speaking = |rounds| doc.phases[0].turns.iter().filter(|t| t.when.holds(1, rounds)).count();
        assert_eq!((speaking(4), speaking(1)), (1, 2));
    }
}
