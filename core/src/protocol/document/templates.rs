//! Prompt templates: literal text and named slots, `{question}`, `{round}`,
//! `{critique.verdict}`. No code, no conditions: a template is parsed once,
//! when the document loads, and an unknown slot is an error there. `{{` and
//! `}}` write a literal brace (prompts often show a JSON example).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::Phase;

/// A template, parsed: what it renders is a pure function of the debate.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Template(pub Vec<Piece>);

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    Text(String),
    Slot(Slot),
}

/// Every slot a template may name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Slot {
    /// The question block, with the context quoted under it when there is one.
    Question,
    /// The context alone, quoted line by line (empty without one).
    Context,
    /// The round, from 1.
    Round,
    /// How many rounds the debate runs at most.
    Rounds,
    /// How many seats the panel has.
    Seats,
    /// How the speaker is shown: its name, else "Speaker N"; "Judge" for the judge.
    Label,
    /// The speaker's part's `role`, as the document names it.
    Role,
    /// The seat's persona as a paragraph, or nothing.
    Persona,
    /// The label of the document's adversary seat.
    Adversary,
    /// What a consensus stop asks every speaker to close with (its mode's words).
    Stance,
    /// Where the earlier turns go, fitted to the context budget by the session.
    History,
    /// The claim ledger's open claims, each quoted with who raised and attacked it; for a seat, the ids its own claims take (needs a `ledger` aggregate).
    Claims,
    /// A field an earlier phase's structured replies declared.
    Field { phase: Phase, field: String },
}

impl Slot {
    fn parse(name: &str) -> Option<Slot> {
        Some(match name {
            "question" => Slot::Question,
            "context" => Slot::Context,
            "round" => Slot::Round,
            "rounds" => Slot::Rounds,
            "seats" => Slot::Seats,
            "label" => Slot::Label,
            "role" => Slot::Role,
            "persona" => Slot::Persona,
            "adversary" => Slot::Adversary,
            "stance" => Slot::Stance,
            "history" => Slot::History,
            "claims" => Slot::Claims,
            _ => {
                let (phase, field) = name.split_once('.')?;
                let phase = crate::json_read::read(&serde_json::Value::from(phase)).ok()?;
                let plain = !field.is_empty() && field.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                return plain.then(|| Slot::Field { phase, field: field.to_string() });
            }
        })
    }

    fn name(&self) -> String {
        match self {
            Slot::Question => "question".into(),
            Slot::Context => "context".into(),
            Slot::Round => "round".into(),
            Slot::Rounds => "rounds".into(),
            Slot::Seats => "seats".into(),
            Slot::Label => "label".into(),
            Slot::Role => "role".into(),
            Slot::Persona => "persona".into(),
            Slot::Adversary => "adversary".into(),
            Slot::Stance => "stance".into(),
            Slot::History => "history".into(),
            Slot::Claims => "claims".into(),
            Slot::Field { phase, field } => format!("{}.{field}", phase.as_str()),
        }
    }
}

impl Template {
    pub fn parse(text: &str) -> Result<Template, String> {
        let mut pieces = Vec::new();
        let mut literal = String::new();
        let mut rest = text;
        while let Some(i) = rest.find(['{', '}']) {
            literal.push_str(&rest[..i]);
            let tail = &rest[i..];
            if tail.starts_with("{{") || tail.starts_with("}}") {
                literal.push_str(&tail[..1]);
                rest = &tail[2..];
                continue;
            }
            if tail.starts_with('}') {
                return Err("a lone '}': write '}}' for a brace".into());
            }
            let Some(end) = tail.find('}') else { return Err("a '{' without its '}': write '{{' for a brace".into()) };
            let name = &tail[1..end];
            let slot = Slot::parse(name).ok_or_else(|| format!("unknown slot {{{name}}}"))?;
            if !literal.is_empty() {
                pieces.push(Piece::Text(std::mem::take(&mut literal)));
            }
            pieces.push(Piece::Slot(slot));
            rest = &tail[end + 1..];
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            pieces.push(Piece::Text(literal));
        }
        Ok(Template(pieces))
    }

    pub fn slots(&self) -> impl Iterator<Item = &Slot> {
        self.0.iter().filter_map(|p| match p {
            Piece::Slot(s) => Some(s),
            Piece::Text(_) => None,
        })
    }

    /// Literal characters: what the template adds to a prompt besides its slots.
    pub fn literal_chars(&self) -> usize {
        self.0.iter().map(|p| if let Piece::Text(t) = p { t.chars().count() } else { 0 }).sum()
    }

    /// The template around its `{history}` slot: the pieces before it and after it
    /// (all of it is "after" when it has none, so the instruction is what the budget keeps).
    pub fn split_at_history(&self) -> (&[Piece], &[Piece]) {
        match self.0.iter().position(|p| *p == Piece::Slot(Slot::History)) {
            Some(i) => (&self.0[..i], &self.0[i + 1..]),
            None => (&[], &self.0),
        }
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for piece in &self.0 {
            match piece {
                Piece::Text(t) => f.write_str(&t.replace('{', "{{").replace('}', "}}"))?,
                Piece::Slot(s) => write!(f, "{{{}}}", s.name())?,
            }
        }
        Ok(())
    }
}

impl Serialize for Template {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Template {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Template::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_and_escaped_braces_parse_and_print_back() {
        let t = Template::parse("Round {round} of {rounds}: {{\"ok\": true}} {critique.verdict}").unwrap();
        assert_eq!(t.slots().count(), 3);
        assert!(t.slots().any(|s| *s == Slot::Field { phase: Phase::Critique, field: "verdict".into() }));
        assert_eq!(t.to_string(), "Round {round} of {rounds}: {{\"ok\": true}} {critique.verdict}");
        assert_eq!(Template::parse(&t.to_string()).unwrap(), t);
    }

    #[test]
    fn bad_slots_and_braces_are_named() {
        assert_eq!(Template::parse("{histroy}").unwrap_err(), "unknown slot {histroy}");
        assert_eq!(Template::parse("{nowhere.x}").unwrap_err(), "unknown slot {nowhere.x}");
        assert_eq!(Template::parse("{vote.}").unwrap_err(), "unknown slot {vote.}");
        assert!(Template::parse("a { b").unwrap_err().contains("without its '}'"));
        assert!(Template::parse("a } b").unwrap_err().contains("lone"));
    }

    #[test]
    fn history_splits_the_user_message() {
        let t = Template::parse("{question}{history}Your turn.").unwrap();
        let (before, after) = t.split_at_history();
        assert_eq!((before.len(), after.len()), (1, 1));
        let t = Template::parse("Just this.").unwrap();
        assert_eq!(t.split_at_history().0.len(), 0);
    }
}
