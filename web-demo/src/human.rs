//! A person in a seat (`human/NAME`), minus the page: who is asked, what they
//! read, and what their answer becomes. The page asks through a callback
//! instead of calling the endpoint, and no call timeout applies to a person.

use agon_core::{FailureKind, Input, ModelRequest, Purpose, Role};

/// The person's name when `model` seats a person (`human/ana` → `ana`).
/// The page has no fallback chains, so a person is the whole model string.
pub fn person(model: &str) -> Option<&str> {
    model.trim().strip_prefix("human/").map(str::trim)
}

/// Everything the request asks, as the person reads it: who they are and for
/// what, then each message under its role. Plain text: the page shows it as
/// text, since it holds model replies.
pub fn prompt(request: &ModelRequest) -> String {
    let name = person(&request.model).unwrap_or(&request.model);
    let what = match request.purpose {
        Purpose::Judge => "the judge's synthesis".to_string(),
        // The engine's own heading: "Round 2", "Blind answers", "Critiques (round 1)"…
        _ => request.phase.heading(request.round),
    };
    let mut text = format!("{name}, your turn as seat '{}' ({what}).", request.seat);
    for message in &request.messages {
        let role = match message.role {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant (your earlier reply)",
        };
        text.push_str(&format!("\n\n── {role} ──\n{}", message.content.trim_end()));
    }
    text
}

/// What the page's answer becomes: the typed text, trimmed; or, as in the
/// CLI, a failed turn when nothing was typed or the person declined (`Err`).
pub fn input(request: &ModelRequest, answer: Result<String, String>) -> Input {
    let why = match answer {
        Ok(text) if !text.trim().is_empty() => {
            return Input::reply(request.id, text.trim());
        }
        Ok(_) => "the answer was empty".to_string(),
        Err(declined) => format!("declined: {declined}"),
    };
    Input::Failed {
        id: request.id,
        kind: FailureKind::ProviderError,
        message: format!("{}: no answer was given ({why})", request.model.trim()),
        usage: None,
    }
}

#[cfg(test)]
mod tests {
    use agon_core::{Message, Phase};

    use super::*;

    fn request(model: &str, purpose: Purpose) -> ModelRequest {
        ModelRequest {
            id: 7,
            seat: "ana".into(),
            model: model.into(),
            purpose,
            round: 2,
            phase: Phase::Deliberation,
            messages: vec![
                Message { role: Role::System, content: "You are Speaker 1.".into() },
                Message { role: Role::User, content: "Question: tea? <img src=x>\n".into() },
                Message { role: Role::Assistant, content: "Tea.".into() },
            ],
            max_tokens: 16,
            temperature: 0.0,
            expect: None,
            reasoning: None,
            traits: Default::default(),
            cache_marks: Vec::new(),
        }
    }

    #[test]
    fn only_a_human_model_is_a_person() {
        assert_eq!(person("human/ana"), Some("ana"));
        assert_eq!(person("  human/ben "), Some("ben"));
        assert_eq!(person("openai/human"), None);
        assert_eq!(person("smollm2"), None);
    }

    #[test]
    fn the_prompt_says_who_and_what_then_every_message_with_its_role() {
        let shown = prompt(&request("human/ana", Purpose::Turn));
        assert!(shown.starts_with("ana, your turn as seat 'ana' (Round 2)."), "{shown}");
        assert!(shown.contains("── system ──\nYou are Speaker 1."), "{shown}");
        assert!(shown.contains("── user ──\nQuestion: tea? <img src=x>\n\n"), "{shown}");
        assert!(shown.ends_with("── assistant (your earlier reply) ──\nTea."), "{shown}");
        let judge = prompt(&request("human/ana", Purpose::Judge));
        assert!(judge.starts_with("ana, your turn as seat 'ana' (the judge's synthesis)."), "{judge}");
    }

    #[test]
    fn an_answer_is_a_reply_and_no_answer_fails_the_turn() {
        let asked = request("human/ana", Purpose::Turn);
        assert_eq!(input(&asked, Ok("  Tea.\n".into())), Input::reply(7, "Tea."));
        let Input::Failed { kind, message, .. } = input(&asked, Ok(" \n".into())) else { panic!("an empty answer") };
        assert_eq!(kind, FailureKind::ProviderError);
        assert_eq!(message, "human/ana: no answer was given (the answer was empty)");
        let Input::Failed { message, .. } = input(&asked, Err("not today".into())) else { panic!("declined") };
        assert_eq!(message, "human/ana: no answer was given (declined: not today)");
    }
}
