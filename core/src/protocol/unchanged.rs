//! The protocol option `stop_when_unchanged`: end a debate after a round in
//! which no seat's answer changed, since another round of the same answers
//! costs calls and, measured, adds nothing. Answers are read by the one
//! answer reader: a turn that is unreadable, cut, refused or failed gives no
//! answer, so it can never show that nothing changed.

use crate::debate::Debate;
use crate::plan::Ending;
use crate::{DebateSpec, Error, Phase};

/// The option's key in the spec's `protocol`.
pub(crate) const OPTION: &str = "stop_when_unchanged";

/// The option as the catalog describes it, for every protocol that honours it.
pub(crate) const INFO: crate::protocol::definition::OptionInfo = crate::protocol::definition::OptionInfo {
    name: OPTION,
    kind: crate::protocol::definition::OptionKind::Flag,
    default: "false",
    help: std::borrow::Cow::Borrowed(
        "Stop after a round in which no seat's answer changed (needs a checkable answer; a cut, refused or failed turn never counts as unchanged).",
    ),
};

/// Whether the spec asks for it (checked by [`check`]).
pub(crate) fn asked(spec: &DebateSpec) -> bool {
    spec.protocol.options.get(OPTION).and_then(serde_json::Value::as_bool) == Some(true)
}

/// The option's value: true or false, and true only where answers are read.
pub(crate) fn check(spec: &DebateSpec, value: &serde_json::Value) -> Result<(), Error> {
    let field = format!("protocol.{OPTION}");
    match value.as_bool() {
        None => Err(Error::spec(field, "true or false")),
        Some(true) if !spec.takes_answers() => Err(Error::spec(
            field,
            "compares each seat's answer from round to round, and this debate reads no answer: \
             give the spec's `answer` (or `protocol.consensus` \"answer\")",
        )),
        Some(_) => Ok(()),
    }
}

/// After `round`: the ending when the spec asks for it and no seat still
/// answering changed its answer. A seat's answer in a round is that of its
/// last turn among `phases`; a turn as challenger (or adversary) is not its
/// answer, as the vote does not count it. Each seat that answered in `round`
/// is compared with its latest answer before it: both must count and agree.
pub(crate) fn stop(debate: &Debate, round: u32, phases: &[Phase]) -> Option<Ending> {
    if !asked(&debate.spec) {
        return None;
    }
    let rules = debate.spec.answer_rules();
    // None: no turn of its own that round; Some(None): a turn that gives no answer.
    let answer = |seat: usize, round: u32| {
        if debate.challenged(seat, round) {
            return None;
        }
        let reply = phases.iter().rev().find_map(|&p| debate.reply(seat, round, p))?;
        Some(rules.take(reply.text, reply.cut).answer().map(str::to_string))
    };
    let mut compared = 0;
    for seat in debate.active_seats() {
        let Some(now) = answer(seat, round) else { continue };
        match ((0..round).rev().find_map(|r| answer(seat, r)), now) {
            (Some(Some(before)), Some(now)) if before == now => compared += 1,
            _ => return None,
        }
    }
    (compared > 0).then(|| {
        Ending::completed(format!("stopped after round {round}: no seat's answer changed from the round before"), round)
    })
}
