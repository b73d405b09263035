//! The checks types cannot make: every slot resolves, every reference points
//! at something the document declares, no seat speaks twice in a phase.
//! Each error names its JSON path.

use super::Document;
use super::phases::{Part, PhaseDoc, Prompt};
use super::speakers::{Pick, Speakers};
use super::stopping::Stop;
use super::templates::{Slot, Template};
use super::visibility::{Labels, Sees, Turns};
use crate::{Error, MAX_ROUNDS, Phase};

pub(super) fn document(doc: &Document, prefix: &str) -> Result<(), Error> {
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
    if let Some(adversary) = &doc.adversary {
        if seats.min < 2 {
            return fail("seats.min", "an adversary needs someone to challenge: at least 2 seats".into());
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
        for (k, part) in phase.turns.iter().enumerate() {
            let path = format!("{path}.turns[{k}]");
            speakers(doc, phase, k, &at(&path))?;
            sees(doc, &part.sees, &at(&format!("{path}.sees")))?;
            prompt(doc, Some((i, part)), &part.sees, &part.prompt, &at(&format!("{path}.prompt")))?;
            for name in part.output.json.keys() {
                if !plain(name) {
                    return fail(&format!("{path}.output.json"), format!("field {name:?}: letters, digits and _ only"));
                }
            }
        }
    }
    match &doc.stop {
        Stop::Rounds => {}
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
    if let Some(s) = &doc.aggregate.synthesis {
        sees(doc, &s.sees, &at("aggregate.synthesis.sees"))?;
        prompt(doc, None, &s.sees, &s.prompt, &at("aggregate.synthesis.prompt"))?;
        for (k, section) in s.sections.iter().enumerate() {
            if section.heading.trim().is_empty() || !plain(&section.result) {
                return fail(
                    &format!("aggregate.synthesis.sections[{k}]"),
                    "a heading, and a result name of letters, digits and _".into(),
                );
            }
        }
    }
    if doc.completed.as_deref().is_some_and(|c| c.trim().is_empty()) {
        return fail("completed", "must not be empty".into());
    }
    Ok(())
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
