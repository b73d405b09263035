//! What hosts show of a protocol document: the facts it states, and the
//! options a spec may set for it. Read by the engine, as for a built-in, so
//! every host describes a document of one's own as the engine will run it,
//! and none keeps its own copy of which documents take which options.

use std::borrow::Cow;

use super::speakers::Pick;
use super::stopping::Stop;
use super::{Document, load_str};
use crate::Error;
use crate::protocol::definition;
use crate::protocol::definition::{CONSENSUS_OPTION, OptionInfo, OptionKind, ProtocolInfo};

impl Document {
    pub(crate) fn info(&self) -> ProtocolInfo {
        ProtocolInfo {
            name: self.name.clone(),
            summary: self.summary.clone(),
            default_rounds: self.rounds.default,
            max_rounds: self.rounds.max,
            round_unit: self.round_unit().into(),
            min_seats: self.seats.min,
            max_seats: self.seats.max,
            sides: self.seats.sides.clone(),
            options: self.options(),
            reads_agreement: self.reads_agreement(),
            // Its named speakers are panel seats by name, not role files.
            seats_are_roles: false,
        }
    }

    /// The options a spec may set for it: `adversary` when it declares one,
    /// `consensus` when it stops on agreement.
    pub(crate) fn options(&self) -> Vec<OptionInfo> {
        let mut options = Vec::new();
        if let Some(adversary) = &self.adversary {
            options.push(OptionInfo {
                name: "adversary",
                kind: OptionKind::Seat,
                default: match adversary.pick {
                    Pick::Seeded => "picked by the seed",
                    Pick::Seat(_) => "the seat the document names",
                    Pick::Rotate { .. } => "the document's first seat, rotating each round",
                },
                help: adversary.help.clone().map_or(
                    Cow::Borrowed(
                        "The seat that holds the document's adversarial role (for a rotation: where it starts).",
                    ),
                    Cow::Owned,
                ),
            });
        }
        if self.reads_agreement() {
            options.push(CONSENSUS_OPTION);
        }
        options.push(crate::protocol::unchanged::INFO);
        options
    }

    /// It may stop early on agreement: the spec's `consensus` applies.
    pub(crate) fn reads_agreement(&self) -> bool {
        matches!(self.stop, Stop::Consensus(_))
    }

    /// Its seat and round bounds, as the registry checks a spec against them.
    pub(crate) fn limits(&self) -> (definition::Seats<'_>, definition::Rounds<'_>) {
        let seats = definition::Seats {
            min: self.seats.min as usize,
            max: self.seats.max.map(|m| m as usize),
            why: self.seats.why.as_deref().unwrap_or(""),
        };
        (seats, definition::Rounds { default: self.rounds.default, max: self.rounds.max, unit: self.round_unit() })
    }

    /// What one round is, in a few words.
    pub(crate) fn round_unit(&self) -> &str {
        match self.rounds.unit.as_str() {
            "" => "one pass through its phases",
            unit => unit,
        }
    }
}

/// Check a protocol document (JSON text) and describe it as hosts describe
/// a built-in ([`protocols`](crate::protocols)): its name, summary, rounds,
/// seats, and the options a spec may set for it. Errors are
/// [`check_document`](super::check_document)'s.
pub fn document_info(json: &str) -> Result<ProtocolInfo, Error> {
    Ok(load_str(json, "protocol")?.info())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(json: &str) -> ProtocolInfo {
        document_info(json).unwrap()
    }

    fn option_names(info: &ProtocolInfo) -> Vec<&str> {
        info.options.iter().map(|o| o.name).collect()
    }

    const PHASE: &str = r#""phases": [{"phase": "deliberation", "turns": [{"speakers": "each", "prompt": {"system": "You debate.", "user": "{question}"}}]}]"#;

    #[test]
    fn a_plain_document_takes_only_the_stop_when_unchanged_option_and_states_its_bounds() {
        let plain = info(&format!(
            r#"{{"version": 1, "name": "p", "rounds": {{"default": 2, "max": 4}}, "seats": {{"min": 3}}, {PHASE}}}"#
        ));
        // Every document runs rounds, so every one may stop when no answer changes.
        assert_eq!(option_names(&plain), ["stop_when_unchanged"]);
        assert_eq!(plain.options[0].kind, OptionKind::Flag);
        assert!(!plain.reads_agreement);
        assert_eq!((plain.default_rounds, plain.max_rounds, plain.min_seats, plain.max_seats), (2, 4, 3, None));
        assert_eq!((plain.name.as_str(), plain.summary.as_str()), ("p", ""));
        assert_eq!(plain.round_unit, "one pass through its phases", "no unit given");
    }

    #[test]
    fn an_adversary_and_a_consensus_stop_become_options() {
        let both = info(&format!(
            r#"{{"version": 1, "name": "p", "seats": {{"min": 2}}, "adversary": {{"title": "critic", "pick": {{"seat": 2}}}},
                "stop": {{"consensus": {{"phase": "deliberation", "rule": "all"}}}}, {PHASE}}}"#
        ));
        assert_eq!(option_names(&both), ["adversary", "consensus", "stop_when_unchanged"]);
        assert!(both.reads_agreement);
        assert_eq!(both.options[0].kind, OptionKind::Seat);
        assert_eq!(both.options[0].default, "the seat the document names");
        assert_eq!(both.options[1].kind, OptionKind::Choice(&["read", "declared", "judge", "answer"]));
    }

    #[test]
    fn sides_and_the_adversary_help_are_the_documents_own() {
        let told = info(&format!(
            r#"{{"version": 1, "name": "p", "seats": {{"min": 2, "max": 2, "why": "red and blue", "sides": ["red", "blue"]}},
                "adversary": {{"title": "critic", "pick": {{"seat": 2}}, "help": "The seat that attacks."}}, {PHASE}}}"#
        ));
        assert_eq!(told.sides, ["red", "blue"]);
        assert_eq!(told.options[0].help, "The seat that attacks.");
        let untold = info(&format!(
            r#"{{"version": 1, "name": "p", "seats": {{"min": 2}}, "adversary": {{"title": "critic", "pick": "seeded"}}, {PHASE}}}"#
        ));
        assert!(untold.sides.is_empty());
        assert!(untold.options[0].help.starts_with("The seat that holds the document's adversarial role"));
    }

    #[test]
    fn a_broken_document_is_refused_with_its_path() {
        let e = document_info(r#"{"version": 1, "name": "p", "phases": [], "rounds": {"default": "two"}}"#);
        assert!(e.unwrap_err().to_string().contains("protocol.rounds"));
    }
}
