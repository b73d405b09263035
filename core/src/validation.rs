//! A spec checked against what the engine knows beyond the spec itself.
//!
//! `spec.rs` holds the spec as plain data and the checks that need nothing
//! else (seats, limits, a domain). Here, above the protocols, the rest: the
//! protocol's options (each protocol checks its own, through the
//! [registry](crate::protocol::registry)), the files, the parent, one model
//! on every seat, the answer the protocol can close with, the size of one
//! prompt — and the values a spec leaves to its protocol's defaults (its
//! rounds, how it reads agreement).

use crate::Error;
use crate::consensus::ConsensusMode;
use crate::spec::{DebateSpec, field_error, strip_position};

/// Reading and checking: the form every host's spec passes through.
impl DebateSpec {
    /// Parse and validate a spec from JSON. Errors name the offending field.
    pub fn from_json(json: &str) -> Result<DebateSpec, Error> {
        let value = crate::json_read::parse(json).map_err(|e| Error::spec("", strip_position(&e.to_string())))?;
        let mut spec: DebateSpec = crate::json_read::read(&value).map_err(|e| field_error("", e))?;
        spec.normalize()?;
        Ok(spec)
    }

    /// Validate, and normalize the protocol's options (keys sorted, defaults made explicit
    /// only where the protocol serializes them): the form journals record.
    pub(crate) fn normalize(&mut self) -> Result<(), Error> {
        self.protocol.options = self.checked_options()?;
        Ok(())
    }

    /// Check every invariant the engine relies on.
    pub fn validate(&self) -> Result<(), Error> {
        self.checked_options().map(|_| ())
    }

    /// Every check; on success, the protocol's options normalized.
    fn checked_options(&self) -> Result<crate::protocol::definition::Options, Error> {
        if self.question.trim().is_empty() {
            return Err(Error::spec("question", "must not be empty"));
        }
        if self.panel.is_empty() {
            return Err(Error::spec("panel", "must have at least one participant"));
        }
        crate::files::check(&self.files)?;
        crate::files::check_budget(&self.files, self.limits.context_budget)?;
        if let Some(parent) = &self.parent {
            crate::parent::check(parent)?;
        }
        self.check_seats()?;
        self.check_limits()?;
        let options = crate::protocol::registry::check(self)?;
        if self.blind
            && let Some(why) = crate::protocol::registry::of(self).refuses_blind
        {
            return Err(Error::spec("blind", format!("{} {why}", self.protocol.name)));
        }
        if let Some(answer) = &self.answer {
            self.check_answer(answer)?;
        }
        crate::diversity::check(self)?;
        self.check_prompt_size()?;
        Ok(options)
    }

    /// One prompt's fixed part (question, context, files as often as the
    /// protocol repeats them) within what any model reads; checked here, so
    /// every host refuses it before a prompt is built.
    fn check_prompt_size(&self) -> Result<(), Error> {
        let prompt = crate::worst_case::fixed_prompt_tokens(self);
        if prompt > crate::tokens::MAX_PROMPT_TOKENS {
            let field = match (self.document().is_some(), self.files.is_empty()) {
                (true, _) => "protocol.options.document",
                (false, true) => "context",
                (false, false) => "files",
            };
            return Err(Error::spec(
                field,
                format!(
                    "one prompt would hold about {prompt} tokens before any reply (the question, and the context and files as \
                     often as the protocol's prompts repeat them); no model reads more than {}: shorten the context",
                    crate::tokens::MAX_PROMPT_TOKENS / 2
                ),
            ));
        }
        Ok(())
    }

    /// Check the spec's `answer` against its protocol.
    fn check_answer(&self, answer: &crate::answer::AnswerSpec) -> Result<(), Error> {
        let def = crate::protocol::registry::of(self);
        if !def.answers {
            let takes: Vec<&str> = crate::protocol::registry::REGISTRY
                .iter()
                .map(|e| e.definition())
                .filter(|d| d.answers)
                .map(|d| d.name)
                .collect();
            return Err(Error::spec(
                "answer",
                format!(
                    "{}'s turns reply in a shape of their own, so they cannot close with an ANSWER line; \
                     protocols whose turns can: {}",
                    self.protocol.name,
                    takes.join(", ")
                ),
            ));
        }
        let choice = answer.kind == Some(crate::answer::Kind::Choice);
        if !answer.choices.is_empty() && !choice {
            return Err(Error::spec("answer.choices", "choices are for kind 'choice'"));
        }
        if answer.choices.len() > 10 {
            return Err(Error::spec("answer.choices", format!("at most 10 (A to J); it has {}", answer.choices.len())));
        }
        if let Some(i) = answer.choices.iter().position(|c| c.trim().is_empty()) {
            return Err(Error::spec(format!("answer.choices[{i}]"), "must not be empty"));
        }
        Ok(())
    }
}

/// What a spec leaves to its protocol, read from the registry.
impl DebateSpec {
    /// How this debate reads agreement, when its protocol stops on it.
    pub fn consensus_mode(&self) -> Option<ConsensusMode> {
        let reads_agreement = match self.document() {
            // Read leniently: this may run before the document is checked.
            Some(doc) => doc.get("stop").is_some_and(|s| s.get("consensus").is_some()),
            None => crate::protocol::registry::lookup(&self.protocol.name).ok()?.reads_agreement,
        };
        reads_agreement.then(|| {
            self.protocol.options.get("consensus").and_then(|v| crate::json_read::read(v).ok()).unwrap_or_default()
        })
    }

    /// Whether counted turns close with an `ANSWER:` line and the vote is taken.
    pub fn takes_answers(&self) -> bool {
        self.answer.is_some() || self.consensus_mode() == Some(ConsensusMode::Answer)
    }

    /// The rounds this debate runs: the spec's, or the protocol's default.
    pub fn rounds(&self) -> u32 {
        self.rounds.unwrap_or_else(|| match self.document() {
            Some(doc) => doc.pointer("/rounds/default").and_then(|d| d.as_u64()).map_or(1, |d| d as u32),
            None => crate::protocol::registry::lookup(&self.protocol.name).map_or(1, |d| d.rounds.default),
        })
    }
}

#[cfg(test)]
mod prompt_ceiling_tests {
    use crate::protocol::document::BUILTIN_DOCUMENTS;

    /// Issue 33: a document repeating `{context}` 1,000 times over a 400 KB
    /// context (about 200 M tokens a prompt) was refused by nothing.
    #[test]
    fn a_document_whose_prompts_no_model_could_read_is_refused() {
        let (_, text) = BUILTIN_DOCUMENTS.iter().find(|(n, _)| *n == "round-robin").unwrap();
        let mut document: serde_json::Value = serde_json::from_str(text).unwrap();
        let user = document.pointer_mut("/phases/0/turns/0/prompt/user").expect("round-robin's first prompt");
        *user = serde_json::Value::String(format!("{{question}}{}{{history}}", "{context}".repeat(1000)));
        document["name"] = "many-contexts".into();
        let mut spec = crate::example_spec("round-robin", 3, 1).unwrap();
        spec.protocol.name = "many-contexts".into();
        spec.protocol.options.insert("document".into(), document.clone());
        spec.context = Some("word ".repeat(80_000));
        let e = spec.validate().unwrap_err().to_string();
        assert!(e.contains("protocol.options.document") && e.contains("no model reads more than 2000000"), "{e}");
        // The same context, said once: well within.
        spec.protocol.options.remove("document");
        spec.protocol.name = "round-robin".into();
        spec.validate().unwrap();
        let context = spec.context.take();
        spec.protocol.name = "many-contexts".into();
        spec.protocol.options.insert("document".into(), document);
        spec.validate().unwrap();
        spec.context = context.map(|c| c.repeat(30));
        let e = spec.validate().unwrap_err().to_string();
        assert!(e.contains("context") && e.contains("one prompt would hold about"), "{e}");
    }
}
