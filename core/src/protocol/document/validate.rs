//! The checks types cannot make: every slot resolves, every reference points
//! at something the document declares, no seat speaks twice in a phase.
//! Each error names its JSON path.

use super::Document;
use super::phases::{Part, PhaseDoc, Prompt};
use super::speakers::{Pick, Speakers};
use super::stopping::Stop;
use super::templates::{Slot, Template};
use super::visibility::{Labels, Sees, ShowOrder, Turns};
use super::when::When;
use crate::{Error, MAX_ROUNDS, Phase};

/// Check a document beyond its types, stage by stage; each error names its
/// JSON path under `prefix`.
pub(super) fn document(doc: &Document, prefix: &str) -> Result<(), Error> {
    let at = |path: &str| if prefix.is_empty() { path.to_string() } else { format!("{prefix}.{path}") };
    let fail = |path: &str, reason: String| Err(Error::spec(at(path), reason));
    identity(doc, prefix)?;
    phases(doc, prefix)?;
    stop(doc, prefix)?;
    aggregates(doc, prefix)?;
    if doc.completed.as_deref().is_some_and(blank) {
        return fail("completed", "must not be empty".into());
    }
    Ok(())
}

/// The document's name, its rounds, its seats and its adversary.
fn identity(doc: &Document, prefix: &str) -> Result<(), Error> {
    let at = |path: &str| if prefix.is_empty() { path.to_string() } else { format!("{prefix}.{path}") };
    let fail = |path: &str, reason: String| Err(Error::spec(at(path), reason));
    if doc.name.is_empty()
        || !doc
            .name
            .split('-')
            .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
    {
        return fail("name", format!("{:?} must be lowercase words joined by hyphens", doc.name));
    }
    let r = &doc.rounds;
    if !(1 <= r.default && r.default <= r.max && r.max <= MAX_ROUNDS) {
        return fail(
            "rounds",
            format!("need 1 ≤ default ≤ max ≤ {MAX_ROUNDS}; got default {}, max {}", r.default, r.max),
        );
    }
    let seats = &doc.seats;
    if seats.min == 0 || seats.max.is_some_and(|m| m < seats.min) {
        return fail("seats", "need 1 ≤ min ≤ max".into());
    }
    if seats.why.as_deref().is_some_and(blank) {
        return fail("seats.why", "must not be empty".into());
    }
    if !seats.sides.is_empty() {
        let n = seats.sides.len() as u32;
        if seats.min != n || seats.max != Some(n) {
            return fail(
                "seats.sides",
                format!("one per seat, so the document takes exactly {n} seats: min and max {n}"),
            );
        }
        if let Some(k) = seats.sides.iter().position(|s| blank(s)) {
            return fail(&format!("seats.sides[{k}]"), "must not be empty".into());
        }
    }
    if let Some(adversary) = &doc.adversary {
        if seats.min < 2 {
            return fail("seats.min", "an adversary needs someone to challenge: at least 2 seats".into());
        }
        if adversary.help.as_deref().is_some_and(blank) {
            return fail("adversary.help", "must not be empty".into());
        }
        let position = match adversary.pick {
            Pick::Seat(p) => Some(("adversary.pick.seat", p)),
            Pick::Rotate { start, step } => {
                if step == 0 {
                    return fail("adversary.pick.rotate.step", "must be at least 1 (a fixed seat is `seat`)".into());
                }
                Some(("adversary.pick.rotate.start", start))
            }
            Pick::Seeded => None,
        };
        if let Some((path, p)) = position {
            check_position(p, seats.min, &at(path))?;
        }
    }
    Ok(())
}

/// Each phase and each of its parts; and that every round of the default
/// and of the longest run has a phase to run.
fn phases(doc: &Document, prefix: &str) -> Result<(), Error> {
    let at = |path: &str| if prefix.is_empty() { path.to_string() } else { format!("{prefix}.{path}") };
    let fail = |path: &str, reason: String| Err(Error::spec(at(path), reason));
    let (r, seats) = (&doc.rounds, &doc.seats);
    if doc.phases.is_empty() {
        return fail("phases", "a protocol needs at least one phase".into());
    }
    if r.max > 1 && doc.phases.iter().all(|p| p.once) {
        return fail(
            "phases",
            "every phase runs once, so rounds after the first would be empty: set rounds.max to 1".into(),
        );
    }
    for (i, phase) in doc.phases.iter().enumerate() {
        let path = format!("phases[{i}]");
        when(&phase.when, r.max, &at(&format!("{path}.when")))?;
        if phase.once && phase.when.round.is_some_and(|r| r != 1) {
            return fail(&format!("{path}.when.round"), "the phase runs once, in round 1".into());
        }
        if let Some(j) = doc.phases[..i].iter().position(|p| p.phase == phase.phase) {
            return fail(
                &format!("{path}.phase"),
                format!("'{}' is also phases[{j}]; each phase appears once", phase.phase.as_str()),
            );
        }
        if matches!(phase.phase, Phase::Synthesis | Phase::Summary | Phase::Confirmation) {
            return fail(
                &format!("{path}.phase"),
                format!("'{}' is the judge's or the session's, not a debate phase", phase.phase.as_str()),
            );
        }
        if phase.turns.is_empty() {
            return fail(&format!("{path}.turns"), "a phase needs at least one part".into());
        }
        if phase.min_speakers == 0 || seats.max.is_some_and(|m| phase.min_speakers > m) {
            return fail(&format!("{path}.min_speakers"), "need 1 ≤ min_speakers ≤ seats.max".into());
        }
        if let Some(draw) = &phase.labels {
            if let Some(j) = doc.phases[..i].iter().position(|p| p.labels.is_some()) {
                return fail(&format!("{path}.labels"), format!("phases[{j}] already draws labels; one phase may"));
            }
            if draw.prefix.trim().is_empty() || draw.choice.trim().is_empty() {
                return fail(&format!("{path}.labels"), "needs a prefix and a choice, neither empty".into());
            }
        }
        for (k, part) in phase.turns.iter().enumerate() {
            let path = format!("{path}.turns[{k}]");
            when(&part.when, r.max, &at(&format!("{path}.when")))?;
            speakers(doc, phase, k, &at(&path))?;
            sees(doc, &part.sees, &at(&format!("{path}.sees")))?;
            prompt(doc, Some((i, part)), &part.sees, &part.prompt, &at(&format!("{path}.prompt")))?;
            for name in part.output.json.keys() {
                if !plain(name) {
                    return fail(&format!("{path}.output.json"), format!("field {name:?}: letters, digits and _ only"));
                }
            }
            if let Some(ranking) = &part.output.ranking {
                let path = format!("{path}.output.ranking");
                if !part.output.json.is_empty() {
                    return fail(&path, "a reply is read as JSON or as a ranking, not both".into());
                }
                if ranking.marker.trim().is_empty() {
                    return fail(&format!("{path}.marker"), "must not be empty".into());
                }
                if !doc.phases[..=i].iter().any(|p| p.labels.is_some()) {
                    return fail(&path, "ranks drawn labels, but no phase up to this one draws them".into());
                }
            }
        }
    }
    // Conditions may leave a run of some lengths with an empty round; not the default's, nor the maximum's.
    for (field, n) in [("rounds.default", r.default), ("rounds.max", r.max)] {
        if let Some(empty) = (1..=n).find(|&round| !doc.phases.iter().any(|p| p.runs_in(round, n))) {
            return fail(field, format!("in a run of {n} rounds, no phase runs in round {empty}"));
        }
    }
    Ok(())
}

/// When the document stops: on what its phases declare.
fn stop(doc: &Document, prefix: &str) -> Result<(), Error> {
    let at = |path: &str| if prefix.is_empty() { path.to_string() } else { format!("{prefix}.{path}") };
    let fail = |path: &str, reason: String| Err(Error::spec(at(path), reason));
    match &doc.stop {
        Stop::Rounds | Stop::Settled => {}
        Stop::Consensus(c) => {
            if !doc.phases.iter().any(|p| p.phase == c.phase) {
                return fail("stop.consensus.phase", format!("no phase '{}' in this document", c.phase.as_str()));
            }
            if c.exclude_adversary && doc.adversary.is_none() {
                return fail("stop.consensus.exclude_adversary", "the document declares no adversary".into());
            }
        }
        Stop::When(c) => {
            if declares(doc, c.phase, &c.field, doc.phases.len()).is_none() {
                return fail(
                    "stop.when",
                    format!("no phase '{}' declares a JSON field '{}'", c.phase.as_str(), c.field),
                );
            }
        }
    }
    if doc.stop == Stop::Settled && doc.aggregate.ledger.is_none() {
        return fail("stop", "settled needs a ledger aggregate".into());
    }
    Ok(())
}

/// The aggregates (ledger, Borda, review, synthesis) and the results they name, each name once.
fn aggregates(doc: &Document, prefix: &str) -> Result<(), Error> {
    let at = |path: &str| if prefix.is_empty() { path.to_string() } else { format!("{prefix}.{path}") };
    let fail = |path: &str, reason: String| Err(Error::spec(at(path), reason));
    let mut named: Vec<&str> = Vec::new();
    if let Some(l) = &doc.aggregate.ledger {
        result_name(doc, &l.result, &at("aggregate.ledger.result"), &mut named)?;
    }
    if let Some(b) = &doc.aggregate.borda {
        let reads = doc.phases.iter().any(|p| p.phase == b.phase && p.turns.iter().any(|t| t.output.ranking.is_some()));
        if !reads {
            return fail("aggregate.borda.phase", format!("no phase '{}' reads rankings", b.phase.as_str()));
        }
        result_name(doc, &b.result, &at("aggregate.borda.result"), &mut named)?;
        if let Some(r) = &b.readings {
            result_name(doc, r, &at("aggregate.borda.readings"), &mut named)?;
        }
        if b.none.trim().is_empty() {
            return fail("aggregate.borda.none", "must not be empty".into());
        }
    }
    if let Some(r) = &doc.aggregate.review {
        for (phase, field) in [(r.findings, "findings"), (r.reactions, "reactions")] {
            if !doc.phases.iter().any(|p| p.phase == phase) {
                return fail(
                    &format!("aggregate.review.{field}"),
                    format!("no phase '{}' in the document", phase.as_str()),
                );
            }
        }
        if r.findings == r.reactions {
            return fail("aggregate.review.reactions", "must be another phase than the findings'".into());
        }
        if r.policy.confirmed_by == 0 {
            return fail("aggregate.review.policy.confirmed_by", "must be at least 1".into());
        }
        result_name(doc, &r.result, &at("aggregate.review.result"), &mut named)?;
    }
    if let Some(s) = &doc.aggregate.synthesis {
        sees(doc, &s.sees, &at("aggregate.synthesis.sees"))?;
        prompt(doc, None, &s.sees, &s.prompt, &at("aggregate.synthesis.prompt"))?;
        for (k, section) in s.sections.iter().enumerate() {
            if section.heading.trim().is_empty() {
                return fail(&format!("aggregate.synthesis.sections[{k}].heading"), "must not be empty".into());
            }
            result_name(doc, &section.result, &at(&format!("aggregate.synthesis.sections[{k}].result")), &mut named)?;
        }
    }
    Ok(())
}

/// A result's name: plain, not one of the transcript's own fields, not a
/// phase's (a phase that reads JSON records its rows under its name), and
/// not one another result of this document already took.
fn result_name<'a>(doc: &Document, name: &'a str, path: &str, named: &mut Vec<&'a str>) -> Result<(), Error> {
    let why = if !plain(name) {
        "a result name of letters, digits and _".to_string()
    } else if crate::transcript::TRANSCRIPT_FIELDS.contains(&name) {
        format!("'{name}' is one of the transcript's own fields; name the result otherwise")
    } else if doc.phases.iter().any(|p| p.phase.as_str() == name) {
        format!("'{name}' is a phase's name, under which its JSON rows are recorded")
    } else if named.contains(&name) {
        format!("'{name}' names another result of this document")
    } else {
        named.push(name);
        return Ok(());
    };
    Err(Error::spec(path, why))
}

/// A condition that can hold: its numbers within the document's rounds.
fn when(when: &When, max: u32, path: &str) -> Result<(), Error> {
    if let Some(n) = when.rounds.filter(|&n| n == 0 || n > max) {
        return Err(Error::spec(format!("{path}.rounds"), format!("{n}: runs have 1 to rounds.max ({max}) rounds")));
    }
    if let Some(round) = when.round {
        let longest = when.rounds.unwrap_or(max);
        if round == 0 || round > longest {
            return Err(Error::spec(
                format!("{path}.round"),
                format!("{round}: never reached; runs end by round {longest}"),
            ));
        }
    }
    Ok(())
}

/// A text given but saying nothing.
fn blank(text: &str) -> bool {
    text.trim().is_empty()
}

fn plain(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn check_position(p: u32, min: u32, path: &str) -> Result<(), Error> {
    if p == 0 || p > min {
        return Err(Error::spec(
            path,
            format!("seat {p}: positions run from 1 to seats.min ({min}), which every panel has"),
        ));
    }
    Ok(())
}

/// A part's speakers exist, and no seat can get the floor twice in its phase.
fn speakers(doc: &Document, phase: &PhaseDoc, k: usize, path: &str) -> Result<(), Error> {
    let here = &phase.turns[k].speakers;
    let path = format!("{path}.speakers");
    match here {
        Speakers::Seat(p) => check_position(*p, doc.seats.min, &path)?,
        Speakers::Adversary | Speakers::Others if doc.adversary.is_none() => {
            return Err(Error::spec(path, "the document declares no adversary".to_string()));
        }
        Speakers::Role(name) if name.trim().is_empty() => return Err(Error::spec(path, "a role needs a name")),
        Speakers::Answered if std::ptr::eq(phase, &doc.phases[0]) => {
            return Err(Error::spec(path, "'answered' needs a phase before this one"));
        }
        _ => {}
    }
    for (j, earlier) in phase.turns[..k].iter().enumerate() {
        let apart = match (&earlier.speakers, here) {
            (Speakers::Others, Speakers::Adversary) | (Speakers::Adversary, Speakers::Others) => true,
            (Speakers::Seat(a), Speakers::Seat(b)) => a != b,
            (Speakers::Role(a), Speakers::Role(b)) => a != b,
            _ => false,
        };
        if !apart {
            return Err(Error::spec(path, format!("may give the floor to a seat that turns[{j}] already gives it to")));
        }
    }
    Ok(())
}

fn sees(doc: &Document, sees: &Sees, path: &str) -> Result<(), Error> {
    if let Turns::Phases(list) = &sees.turns
        && let Some(p) = list.iter().find(|p| !doc.phases.iter().any(|d| d.phase == **p))
    {
        return Err(Error::spec(format!("{path}.turns"), format!("no phase '{}' in this document", p.as_str())));
    }
    if sees.turns != Turns::None && sees.title.trim().is_empty() {
        return Err(Error::spec(format!("{path}.title"), "a speaker who sees earlier turns needs a title over them"));
    }
    let draws = doc.phases.iter().any(|p| p.labels.is_some());
    if sees.labels == Labels::Drawn && !draws {
        return Err(Error::spec(format!("{path}.labels"), "'drawn', but no phase draws labels"));
    }
    for (k, show) in sees.show.iter().enumerate() {
        let path = format!("{path}.show[{k}]");
        if !doc.phases.iter().any(|d| d.phase == show.phase) {
            return Err(Error::spec(
                format!("{path}.phase"),
                format!("no phase '{}' in this document", show.phase.as_str()),
            ));
        }
        if sees.show[..k].iter().any(|s| s.phase == show.phase) {
            return Err(Error::spec(format!("{path}.phase"), "shown twice; one entry per phase"));
        }
        if show.heading.as_ref().is_some_and(|h| h.trim().is_empty()) {
            return Err(Error::spec(format!("{path}.heading"), "must not be empty"));
        }
        if let Some(label) = &show.label
            && (label.slots().count() != 1 || label.slots().any(|s| *s != Slot::Label))
        {
            return Err(Error::spec(format!("{path}.label"), "needs {label} once, and no other slot"));
        }
        if show.order == ShowOrder::Labels && !draws {
            return Err(Error::spec(format!("{path}.order"), "'labels', but no phase draws labels"));
        }
    }
    if sees.labels == Labels::Roles
        && let Some((i, k)) = parts(doc).find(|(_, _, part)| part.role.is_empty()).map(|(i, k, _)| (i, k))
    {
        return Err(Error::spec(format!("{path}.labels"), format!("'roles', but phases[{i}].turns[{k}] has no role")));
    }
    Ok(())
}

fn parts(doc: &Document) -> impl Iterator<Item = (usize, usize, &Part)> {
    doc.phases.iter().enumerate().flat_map(|(i, p)| p.turns.iter().enumerate().map(move |(k, part)| (i, k, part)))
}

/// The index of a phase before `before` that declares JSON field `field`.
fn declares(doc: &Document, phase: Phase, field: &str, before: usize) -> Option<usize> {
    doc.phases[..before]
        .iter()
        .position(|p| p.phase == phase && p.turns.iter().any(|t| t.output.json.contains_key(field)))
}

/// Every slot of a prompt can be filled where it is used. `part` is the
/// phase index and part of a turn, `None` for the judge's synthesis.
fn prompt(doc: &Document, part: Option<(usize, &Part)>, sees: &Sees, prompt: &Prompt, path: &str) -> Result<(), Error> {
    let templates: [(&str, Option<&Template>); 3] =
        [("system", Some(&prompt.system)), ("user", Some(&prompt.user)), ("first", prompt.first.as_ref())];
    for (name, template) in templates {
        let Some(template) = template else { continue };
        let path = format!("{path}.{name}");
        let histories = template.slots().filter(|s| **s == Slot::History).count();
        if name == "system" && histories > 0 {
            return Err(Error::spec(path, "{history} belongs in the user message"));
        }
        if histories > 1 {
            return Err(Error::spec(path, "{history} may appear once"));
        }
        if name == "user" && histories == 0 && sees.turns != Turns::None {
            return Err(Error::spec(
                path,
                "the speaker sees earlier turns, but the template has no {history} to show them",
            ));
        }
        for slot in template.slots() {
            let problem = match slot {
                Slot::Stance if !matches!(doc.stop, Stop::Consensus(_)) => {
                    Some("{stance} needs a consensus stop".to_string())
                }
                Slot::Claims if doc.aggregate.ledger.is_none() => {
                    Some("{claims}: the document has no ledger aggregate".into())
                }
                Slot::Adversary if doc.adversary.is_none() => {
                    Some("{adversary}: the document declares no adversary".into())
                }
                Slot::Role if part.is_none_or(|(_, p)| p.role.is_empty()) => {
                    Some("{role}: this part has no role".into())
                }
                Slot::Field { phase, field } => {
                    let before = part.map_or(doc.phases.len(), |(i, _)| i);
                    declares(doc, *phase, field, before).is_none().then(|| {
                        format!(
                            "{{{}.{field}}}: no earlier phase '{}' declares that JSON field",
                            phase.as_str(),
                            phase.as_str()
                        )
                    })
                }
                _ => None,
            };
            if let Some(problem) = problem {
                return Err(Error::spec(path, problem));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::Error;

    /// A small valid document: a blind opening, then rounds of named debate, a judge.
    fn base() -> Value {
        json!({
            "version": 1,
            "name": "red-blue",
            "rounds": {"default": 2, "max": 3},
            "seats": {"min": 2},
            "adversary": {"title": "red team", "pick": "seeded"},
            "phases": [
                {"phase": "opening", "once": true, "order": "parallel", "turns": [
                    {"speakers": "each", "prompt": {"system": "Answer.{persona}", "user": "{question}{history}Go."},
                     "output": {"json": {"claim": "text", "sure": "flag"}}}
                ]},
                {"phase": "deliberation", "turns": [
                    {"speakers": "others", "sees": {"turns": "all", "title": "SO FAR"},
                     "prompt": {"system": "Defend. {opening.claim}", "user": "{question}{history}Your turn, {label}."}},
                    {"speakers": "adversary", "adversarial": "gated", "sees": {"turns": "all", "title": "SO FAR"},
                     "prompt": {"system": "Attack, {label}.", "user": "{question}{history}Attack."}}
                ]}
            ],
            "stop": {"consensus": {"phase": "deliberation", "exclude_adversary": true}},
            "aggregate": {"synthesis": {"sees": {"turns": "all", "labels": "anonymized", "title": "ALL"},
                "prompt": {"system": "Judge.", "user": "{question}{history}Verdict."}}}
        })
    }

    fn error(doc: &Value) -> (String, String) {
        match super::super::load(doc, "protocol") {
            Err(Error::InvalidSpec { field, reason }) => (field, reason),
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[test]
    fn the_base_document_loads_and_round_trips() {
        let doc = super::super::load(&base(), "protocol").unwrap();
        let again = serde_json::to_value(&doc).unwrap();
        assert_eq!(super::super::load(&again, "protocol").unwrap(), doc);
    }

    #[test]
    fn every_kind_of_error_names_its_path() {
        let cases: Vec<(&str, Value, &str, &str)> = vec![
            ("version", json!(2), "protocol.version", "reads version 1"),
            ("name", json!("Red Blue"), "protocol.name", "lowercase words"),
            ("rounds", json!({"default": 4, "max": 3}), "protocol.rounds", "default ≤ max"),
            ("rounds", json!({"default": 1, "max": 51}), "protocol.rounds", "≤ 50"),
            ("seats", json!({"min": 3, "max": 2}), "protocol.seats", "min ≤ max"),
            ("/adversary/pick", json!({"seat": 3}), "protocol.adversary.pick.seat", "seat 3"),
            (
                "/adversary/pick",
                json!({"rotate": {"start": 1, "step": 0}}),
                "protocol.adversary.pick.rotate.step",
                "at least 1",
            ),
            (
                "/phases/1/turns/0/prompt/user",
                json!("{question}{histroy}"),
                "protocol.phases[1].turns[0].prompt.user",
                "unknown slot {histroy}",
            ),
            (
                "/phases/1/turns/0/prompt/user",
                json!("{question} Your turn."),
                "protocol.phases[1].turns[0].prompt.user",
                "no {history}",
            ),
            (
                "/phases/1/turns/0/prompt/system",
                json!("{history}"),
                "protocol.phases[1].turns[0].prompt.system",
                "belongs in the user",
            ),
            ("/phases/1/turns/0/prompt/system", json!("{stance}"), "", ""),
            (
                "/phases/1/turns/0/prompt/system",
                json!("{role}"),
                "protocol.phases[1].turns[0].prompt.system",
                "no role",
            ),
            (
                "/phases/1/turns/0/prompt/system",
                json!("{opening.nope}"),
                "protocol.phases[1].turns[0].prompt.system",
                "declares that JSON field",
            ),
            (
                "/phases/0/turns/0/prompt/system",
                json!("{deliberation.claim}"),
                "protocol.phases[0].turns[0].prompt.system",
                "no earlier phase",
            ),
            ("/phases/1/turns/0/speakers", json!("each"), "protocol.phases[1].turns[1].speakers", "turns[0] already"),
            ("/phases/1/turns/0/speakers", json!({"seat": 3}), "protocol.phases[1].turns[0].speakers", "seat 3"),
            (
                "/phases/1/turns/0/speakers",
                json!("everyone"),
                "protocol.phases[1].turns[0].speakers",
                "unknown variant",
            ),
            (
                "/phases/1/turns/0/sees/turns",
                json!({"phases": ["rebuttal"]}),
                "protocol.phases[1].turns[0].sees.turns",
                "no phase 'rebuttal'",
            ),
            ("/phases/1/turns/0/sees/title", json!(""), "protocol.phases[1].turns[0].sees.title", "needs a title"),
            ("/phases/1/turns/0/sees/labels", json!("roles"), "protocol.phases[1].turns[0].sees.labels", "has no role"),
            ("/phases/1/phase", json!("opening"), "protocol.phases[1].phase", "also phases[0]"),
            ("/phases/1/phase", json!("synthesis"), "protocol.phases[1].phase", "judge's or the session's"),
            ("/phases/1/once", json!(true), "protocol.phases", "rounds after the first"),
            ("/phases/1/turns", json!([]), "protocol.phases[1].turns", "at least one part"),
            (
                "/phases/0/turns/0/output/json",
                json!({"a b": "text"}),
                "protocol.phases[0].turns[0].output.json",
                "letters",
            ),
            (
                "/phases/0/turns/0/output/json/claim",
                json!("prose"),
                "protocol.phases[0].turns[0].output.json.claim",
                "unknown variant",
            ),
            ("/phases/0/turns/0/colour", json!("red"), "protocol.phases[0].turns[0].colour", "unknown field `colour`"),
            (
                "/stop",
                json!({"consensus": {"phase": "rebuttal"}}),
                "protocol.stop.consensus.phase",
                "no phase 'rebuttal'",
            ),
            (
                "/stop",
                json!({"when": {"phase": "opening", "field": "nope", "equals": true}}),
                "protocol.stop.when",
                "no phase 'opening' declares",
            ),
            ("/aggregate/synthesis/prompt/user", json!("{adversary} {history}"), "", ""),
            (
                "/aggregate/synthesis/sections",
                json!([{"heading": "", "result": "x"}]),
                "protocol.aggregate.synthesis.sections[0].heading",
                "must not be empty",
            ),
            ("/aggregate/tally", json!({}), "protocol.aggregate.tally", "unknown field `tally`"),
            ("/completed", json!(" "), "protocol.completed", "must not be empty"),
            ("/seats/why", json!(" "), "protocol.seats.why", "must not be empty"),
            ("/seats/sides", json!(["red", "blue"]), "protocol.seats.sides", "exactly 2 seats"),
            ("seats", json!({"min": 2, "max": 3, "sides": ["red", "blue"]}), "protocol.seats.sides", "exactly 2 seats"),
            (
                "seats",
                json!({"min": 2, "max": 2, "sides": ["red", " "]}),
                "protocol.seats.sides[1]",
                "must not be empty",
            ),
            ("seats", json!({"min": 2, "max": 2, "sides": ["red", "blue"], "why": "red and blue"}), "", ""),
            ("/adversary/help", json!(""), "protocol.adversary.help", "must not be empty"),
            (
                "/phases/1/when",
                json!({"rounds": 4}),
                "protocol.phases[1].when.rounds",
                "4: runs have 1 to rounds.max (3)",
            ),
            ("/phases/1/when", json!({"round": 4}), "protocol.phases[1].when.round", "never reached"),
            ("/phases/1/when", json!({"rounds": 2, "round": 3}), "protocol.phases[1].when.round", "end by round 2"),
            ("/phases/0/when", json!({"round": 2}), "protocol.phases[0].when.round", "runs once"),
            ("/phases/1/when", json!({"rounds": 3}), "protocol.rounds.default", "no phase runs in round 2"),
            (
                "/phases/1/when",
                json!({"rounds": 2}),
                "protocol.rounds.max",
                "run of 3 rounds, no phase runs in round 2",
            ),
            ("/phases/1/turns/0/when", json!({"rounds": 3}), "", ""),
            ("/phases/1/turns/0/when", json!({"after": 1}), "protocol.phases[1].turns[0].when.after", "unknown field"),
        ];
        for (pointer, value, field, words) in cases {
            let mut doc = base();
            if pointer.starts_with('/') {
                let (parent, key) = pointer.rsplit_once('/').unwrap();
                let target = if parent.is_empty() { &mut doc } else { doc.pointer_mut(parent).unwrap() };
                target[key] = value.clone();
            } else {
                doc[pointer] = value.clone();
            }
            if pointer == "/phases/1/turns/0/speakers" && value == json!("each") {
                // An overlap is reported on the later part.
                let loaded = super::super::load(&doc, "protocol");
                let Err(Error::InvalidSpec { field: f, reason }) = loaded else { panic!("{pointer}: accepted") };
                assert_eq!(f, field, "{reason}");
                assert!(reason.contains(words), "{pointer}: {reason}");
                continue;
            }
            if field.is_empty() {
                // Valid as it stands: the slot is declared ({stance} with a consensus stop, {adversary} with an adversary).
                super::super::load(&doc, "protocol").unwrap_or_else(|e| panic!("{pointer}: {e}"));
                continue;
            }
            let (f, reason) = error(&doc);
            assert_eq!(f, field, "{pointer}: {reason}");
            assert!(reason.contains(words), "{pointer} = {value}: {reason}");
        }
    }

    #[test]
    fn slots_that_need_a_declaration_are_refused_without_it() {
        let mut doc = base();
        doc["stop"] = json!("rounds");
        doc["phases"][1]["turns"][0]["prompt"]["system"] = json!("{stance}");
        assert_eq!(
            error(&doc),
            ("protocol.phases[1].turns[0].prompt.system".into(), "{stance} needs a consensus stop".into())
        );
        let mut doc = base();
        doc.as_object_mut().unwrap().remove("adversary");
        let (field, reason) = error(&doc);
        assert_eq!(field, "protocol.phases[1].turns[0].speakers", "{reason}");
    }

    /// A small ranked-style document: blind answers, then the seats that
    /// answered rank each other under drawn labels, a Borda count, a judge.
    fn drawn() -> Value {
        json!({
            "version": 1,
            "name": "peer-review",
            "seats": {"min": 2},
            "phases": [
                {"phase": "blind", "order": "parallel", "turns": [
                    {"speakers": "each", "prompt": {"system": "Answer.", "user": "{question}{history}"}}
                ]},
                {"phase": "ranking", "order": "parallel", "min_speakers": 2,
                 "labels": {"prefix": "Draft", "choice": "draft labels"},
                 "turns": [
                    {"speakers": "answered",
                     "sees": {"turns": {"phases": ["blind"]}, "labels": "drawn", "title": "DRAFTS", "hide_own": true,
                              "show": [{"phase": "blind", "heading": "Drafts", "order": "labels"}]},
                     "prompt": {"system": "Rank.", "user": "{question}{history}Rank them."},
                     "output": {"ranking": {"marker": "RANKING"}}}
                ]}
            ],
            "aggregate": {
                "borda": {"phase": "ranking", "result": "standings", "readings": "readings", "none": "nothing read"},
                "synthesis": {"sees": {"turns": "all", "labels": "drawn", "title": "ALL",
                    "show": [{"phase": "ranking", "label": "Review by {label}"}]},
                    "prompt": {"system": "Judge.", "user": "{question}{history}Verdict."}}
            }
        })
    }

    #[test]
    fn the_ranking_features_load_and_round_trip() {
        let doc = super::super::load(&drawn(), "protocol").unwrap();
        let again = serde_json::to_value(&doc).unwrap();
        assert_eq!(super::super::load(&again, "protocol").unwrap(), doc);
    }

    #[test]
    fn the_ranking_features_name_the_path_of_each_error() {
        let cases: Vec<(&str, Value, &str, &str)> = vec![
            ("/phases/0/turns/0/speakers", json!("answered"), "protocol.phases[0].turns[0].speakers", "a phase before"),
            ("/phases/1/min_speakers", json!(0), "protocol.phases[1].min_speakers", "1 ≤ min_speakers"),
            ("/phases/1/labels/prefix", json!(" "), "protocol.phases[1].labels", "a prefix"),
            ("/phases/1/labels/colour", json!("red"), "protocol.phases[1].labels.colour", "unknown field"),
            (
                "/phases/0/labels",
                json!({"prefix": "A", "choice": "a"}),
                "protocol.phases[1].labels",
                "phases[0] already",
            ),
            ("/phases/1/turns/0/sees/labels", json!("named"), "", ""),
            (
                "/phases/1/turns/0/sees/show/0/phase",
                json!("rebuttal"),
                "protocol.phases[1].turns[0].sees.show[0].phase",
                "no phase",
            ),
            (
                "/phases/1/turns/0/sees/show/0/heading",
                json!(""),
                "protocol.phases[1].turns[0].sees.show[0].heading",
                "empty",
            ),
            (
                "/phases/1/turns/0/sees/show/0/order",
                json!("random"),
                "protocol.phases[1].turns[0].sees.show[0].order",
                "unknown variant",
            ),
            (
                "/phases/1/turns/0/sees/show/0/label",
                json!("{round}: {label}"),
                "protocol.phases[1].turns[0].sees.show[0].label",
                "no other slot",
            ),
            (
                "/phases/1/turns/0/sees/show/0/label",
                json!("By nobody"),
                "protocol.phases[1].turns[0].sees.show[0].label",
                "{label} once",
            ),
            (
                "/phases/1/turns/0/sees/show/0/label",
                json!("{labl}"),
                "protocol.phases[1].turns[0].sees.show[0].label",
                "unknown slot",
            ),
            (
                "/phases/1/turns/0/sees/show/1",
                json!({"phase": "blind"}),
                "protocol.phases[1].turns[0].sees.show[1].phase",
                "shown twice",
            ),
            (
                "/phases/1/turns/0/output/ranking/marker",
                json!(""),
                "protocol.phases[1].turns[0].output.ranking.marker",
                "empty",
            ),
            (
                "/phases/1/turns/0/output/json",
                json!({"best": "text"}),
                "protocol.phases[1].turns[0].output.ranking",
                "not both",
            ),
            ("/aggregate/borda/phase", json!("blind"), "protocol.aggregate.borda.phase", "reads rankings"),
            ("/aggregate/borda/result", json!("a b"), "protocol.aggregate.borda.result", "letters"),
            ("/aggregate/borda/readings", json!("standings"), "protocol.aggregate.borda.readings", "another result"),
            ("/aggregate/borda/none", json!(" "), "protocol.aggregate.borda.none", "empty"),
        ];
        for (pointer, value, field, words) in cases {
            let mut doc = drawn();
            let (parent, key) = pointer.rsplit_once('/').unwrap();
            let slot = doc.pointer_mut(parent).unwrap_or_else(|| panic!("{pointer}"));
            match slot {
                Value::Array(items) => items.push(value.clone()),
                _ => slot[key] = value.clone(),
            }
            if field.is_empty() {
                super::super::load(&doc, "protocol").unwrap_or_else(|e| panic!("{pointer}: {e}"));
                continue;
            }
            let (f, reason) = error(&doc);
            assert_eq!(f, field, "{pointer} = {value}: {reason}");
            assert!(reason.contains(words), "{pointer} = {value}: {reason}");
        }
        // Drawn labels, a label order and a ranking all need a phase that draws labels.
        let mut doc = drawn();
        doc["phases"][1].as_object_mut().unwrap().remove("labels");
        assert_eq!(error(&doc).0, "protocol.phases[1].turns[0].sees.labels");
        doc["phases"][1]["turns"][0]["sees"]["labels"] = json!("anonymized");
        assert_eq!(error(&doc).0, "protocol.phases[1].turns[0].sees.show[0].order");
        doc["phases"][1]["turns"][0]["sees"]["show"] = json!([]);
        assert_eq!(
            error(&doc),
            (
                "protocol.phases[1].turns[0].output.ranking".into(),
                "ranks drawn labels, but no phase up to this one draws them".into()
            )
        );
    }
}
