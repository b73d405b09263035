//! `adversarial` (seed 001): an advocate and a sycophancy-hardened
//! challenger get identical context and run in parallel; the judge scores
//! every concern and writes the competitive review. Rounds: 1 = opening only,
//! 2 = a rebuttal round, 3 or more = team mode (opening, cross-examination,
//! rebuttal). Cost-gated: `compete` forces it, `single` falls back to one
//! agent, `auto` competes when a trigger in the spec matches.
//!
//! Degradation, exactly as the seed lists it: one side fails → the
//! survivor's review stands alone; both fail → a single-agent run (the judge's
//! model); the judge fails → both positions side by side, for the user to
//! adjudicate. The outcome says which.

pub(crate) mod reply;

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::debate::{Answer, Debate, Seat};
use crate::plan::{Bounds, Conclusion, EndKind, Ending, Note, PlannedCall, Protocol, Step};
use crate::prompt_kit::{self, Prompt};
use crate::protocol::definition::{
    BASE, Declared, Definition, OptionInfo, OptionKind, PLAIN, ProtocolOptions, Rounds, Seats, Shown, checked, typed,
};
use crate::{DebateSpec, Error, Phase};

/// What it records, each result with its kind (the one place they are said).
/// Whether both sides ran, and why.
const GATE: Declared = Declared::new("gate", crate::ResultKind::Gate);
/// The judge's competitive review: each concern scored, the verdict.
const COMPETITIVE_REVIEW: Declared = Declared::new("review", crate::ResultKind::Findings);
/// The review in one row: disagreements, whom the judge sided with.
const COMPETE_RESULT: Declared = Declared::new("compete_result", crate::ResultKind::Table);
/// Five competitive runs in a row found nothing: a note to review the competition.
const COMPETE_FLAG: Declared = Declared::new("compete_flag", crate::ResultKind::Document);

/// What readers of its transcripts need of it (see [`Shown`]): apart from
/// [`DEF`], so the registry finds it without the protocol's code.
pub(crate) const SHOWN: Shown = Shown {
    judge_closes_with_data: true,
    sides: &["advocate", "challenger"],
    results: &[GATE, COMPETITIVE_REVIEW, COMPETE_RESULT, COMPETE_FLAG],
    ..PLAIN
};

pub(crate) const DEF: Definition = Definition {
    name: "adversarial",
    summary: "Advocate and hardened challenger in parallel, then a judge's competitive review; cost-gated, degrades gracefully.",
    shown: SHOWN,
    rounds: Rounds {
        default: 1,
        max: 3,
        unit: "1: openings; 2 adds a rebuttal; 3: the team mode with a cross-examination",
    },
    seats: Seats { min: 2, max: Some(2), why: "the advocate is seat 1, the challenger seat 2" },
    options: &[
        OptionInfo {
            name: "compete",
            kind: OptionKind::Choice(&["auto", "compete", "single"]),
            default: "auto",
            help: Cow::Borrowed("compete: always; single: one agent answers; auto: compete when a trigger matches."),
        },
        OptionInfo {
            name: "triggers",
            kind: OptionKind::Data,
            default: "built-in topics: architecture, security, migration, executives, incidents",
            help: Cow::Borrowed(
                "Auto-triggers, [{\"name\", \"any_of\": [words or phrases]}]: compete when the question or context has one; given, they replace the built-in ones.",
            ),
        },
        OptionInfo {
            name: "history",
            kind: OptionKind::Data,
            default: "none",
            help: Cow::Borrowed("Earlier runs' [{\"disagreements\"}], newest last: five at zero raise compete_flag."),
        },
        OptionInfo {
            name: "label",
            kind: OptionKind::Text,
            default: "the protocol's name",
            help: Cow::Borrowed(
                "What the run reviews (the compete result's skill), e.g. rfc or schema; the CLI keeps a history per label.",
            ),
        },
    ],
    example: |_| serde_json::json!({"compete": "compete"}),
    check: checked::<Options>,
    // Advocate and challenger: openings, then a cross-examination (3 rounds) and a
    // rebuttal (2+ rounds); the challenger's turns are gated. The single-agent path asks less.
    bounds: |spec| {
        let r = spec.rounds();
        let phases = 1 + (r >= 2) as u32 + (r >= 3) as u32;
        Bounds::new(spec, 2 * phases, phases, 3)
    },
    build: |spec| Box::new(Adversarial { options: typed(spec), stage: Stage::default() }),
    needs_different_models: true,
    ..BASE
};

#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Options {
    #[serde(default)]
    compete: CompeteMode,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    triggers: Vec<Trigger>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    history: Vec<CompeteHistory>,
    /// The compete result's `skill`; `None` is the protocol's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    label: Option<String>,
}

impl ProtocolOptions for Options {
    fn check(&self, _spec: &DebateSpec) -> Result<(), Error> {
        if self.label.as_deref().is_some_and(|l| l.trim().is_empty() || l.contains(['\n', '\r'])) {
            return Err(Error::spec("protocol.label", "must be one line of text"));
        }
        for (i, t) in self.triggers.iter().enumerate() {
            if t.any_of.iter().all(|w| w.trim().is_empty()) {
                return Err(Error::spec(format!("protocol.triggers[{i}].any_of"), "needs at least one word"));
            }
        }
        Ok(())
    }
}

/// Whether the adversarial protocol runs its competition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CompeteMode {
    /// Compete when a trigger matches; otherwise a single agent answers.
    #[default]
    Auto,
    /// Always compete (`--compete`).
    Compete,
    /// Never compete (`--single`); overrides every trigger.
    Single,
}

/// An auto-trigger: competition turns on when the question or context
/// contains any of these words or phrases, a phrase's words in order (ASCII
/// letters match in either case; other letters as written, the same in every host).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trigger {
    pub name: String,
    pub any_of: Vec<String>,
}

/// One earlier adversarial run, as far as the flag for useless competition needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompeteHistory {
    pub disagreements: u32,
}

const ADVOCATE: usize = 0;
const CHALLENGER: usize = 1;

#[derive(Clone)]
pub(crate) struct Adversarial {
    options: Options,
    stage: Stage,
}

#[derive(Clone, Default)]
enum Stage {
    #[default]
    Gate,
    Single,
    Opening,
    CrossExam,
    Rebuttal,
    Fallback,
    Conclude(Conclusion),
}

/// Text as lower-case words (ASCII letters folded; `-` kept inside words), so
/// a trigger phrase matches its words in order, whatever the spacing and
/// punctuation between them: "breaking change" matches "Breaking  change!".
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

/// Whether to compete, and why (the cost gate).
/// Seed 001's auto-triggers, where the stakes make competition worth its
/// cost: architecture and infrastructure RFCs, security, migrations, mail to
/// executives, incidents and delivery metrics. Whole words, either case
/// (ASCII); triggers given in the spec replace them all.
fn builtin_triggers() -> Vec<Trigger> {
    let topic = |name: &str, any_of: &[&str]| Trigger {
        name: name.into(),
        any_of: any_of.iter().map(|w| w.to_string()).collect(),
    };
    vec![
        // An RFC competes when it is about architecture or infrastructure (its
        // word alone is every proposal's name, not a sign of stakes).
        topic("architecture", &["architecture", "infrastructure", "system design"]),
        topic("security", &["security", "authentication", "authorization", "encryption", "vulnerability", "secrets"]),
        topic("migration", &["migration", "migrate", "schema change", "breaking change", "deprecation"]),
        topic("executives", &["CEO", "CTO", "CFO", "VP", "executive", "board", "leadership team"]),
        topic("incidents", &["incident", "outage", "postmortem", "P0", "P1", "DORA", "RAG status"]),
    ]
}

fn gate(debate: &Debate, options: &Options) -> (bool, String) {
    match options.compete {
        CompeteMode::Compete => (true, "forced by --compete".into()),
        CompeteMode::Single => (false, "--single overrides every trigger".into()),
        CompeteMode::Auto => {
            let text = words(&format!("{} {}", debate.spec.question, debate.spec.context.as_deref().unwrap_or("")));
            let builtin;
            let triggers = if options.triggers.is_empty() {
                builtin = builtin_triggers();
                &builtin
            } else {
                &options.triggers
            };
            for t in triggers {
                let hit = t.any_of.iter().find(|phrase| {
                    let phrase = words(phrase);
                    !phrase.is_empty() && text.windows(phrase.len()).any(|w| w == phrase.as_slice())
                });
                if let Some(phrase) = hit {
                    return (true, format!("trigger '{}' matched '{}'", t.name, phrase.trim()));
                }
            }
            (false, "no auto-trigger matched; a single agent answers (use --compete to force)".into())
        }
    }
}

impl Protocol for Adversarial {
    fn advance(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Step {
        let rounds = debate.spec.rounds();
        loop {
            match &mut self.stage {
                // Stage 1 — the cost gate.
                Stage::Gate => return self.pass_gate(debate, notes),
                Stage::Single => {
                    return Step::Finish(match debate.answer(ADVOCATE, 1, Phase::Single) {
                        Some(Answer::Text { .. }) => {
                            Ending::completed(format!("single-agent review: {}", gate(debate, &self.options).1), 0)
                        }
                        _ => {
                            Ending { kind: EndKind::NoQuorum, reason: "the single agent failed".into(), rounds_run: 0 }
                        }
                    });
                }
                // Stage 2 — after the openings: degrade, or go on.
                Stage::Opening => {
                    if let Some(step) = self.after_openings(debate, notes) {
                        return step;
                    }
                }
                // Stage 3 (team mode) — targeted questions, then answers.
                Stage::CrossExam => {
                    notes.push(Note::RoundEnded { round: 2, phase: Phase::CrossExam });
                    if debate.active_seats().len() < 2 {
                        self.stage = Stage::Conclude(Conclusion::NotAsked);
                        continue;
                    }
                    notes.push(Note::RoundStarted { round: 3, phase: Phase::Rebuttal, challenger: Some(CHALLENGER) });
                    self.stage = Stage::Rebuttal;
                    return Step::Run(both(debate, 3, Phase::Rebuttal));
                }
                Stage::Rebuttal => {
                    let round = if rounds >= 3 { 3 } else { 2 };
                    notes.push(Note::RoundEnded { round, phase: Phase::Rebuttal });
                    self.stage = Stage::Conclude(Conclusion::NotAsked);
                }
                // Both sides failed: a single-agent run on the judge's model.
                Stage::Fallback => return fall_back(debate),
                // Stage 4 — the judge's competitive review.
                Stage::Conclude(conclusion) => {
                    if let Some(text) = conclusion.verdict(debate) {
                        record_review(debate, &self.options, text, notes);
                    }
                    let rounds_run = rounds.min(3);
                    let ending = Ending::completed("competitive review by the judge", rounds_run);
                    return conclusion.step(debate, ending, rounds_run, || judge_prompt(debate));
                }
            }
        }
    }
}

impl Adversarial {
    /// Stage 1, the cost gate: one agent alone, or advocate and challenger at once.
    fn pass_gate(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Step {
        let (compete, reason) = gate(debate, &self.options);
        notes.push(GATE.note(json!({"compete": compete, "reason": reason})));
        if !compete {
            self.stage = Stage::Single;
            let prompt = single_prompt(debate);
            return Step::Run(vec![PlannedCall::turn(ADVOCATE, 1, Phase::Single, false, prompt, &debate.spec)]);
        }
        self.stage = Stage::Opening;
        notes.push(Note::RoundStarted { round: 1, phase: Phase::Opening, challenger: Some(CHALLENGER) });
        Step::Run(vec![
            PlannedCall::turn(ADVOCATE, 1, Phase::Opening, false, advocate_prompt(debate), &debate.spec),
            PlannedCall::turn(CHALLENGER, 1, Phase::Opening, false, challenger_prompt(debate), &debate.spec)
                .adversarial()
                .expecting("markdown: exactly 5 numbered concerns, most severe first"),
        ])
    }

    /// Stage 2, after the openings: degrade, go on to the next phase (a
    /// step), or leave the next stage set (`None`).
    fn after_openings(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Option<Step> {
        let rounds = debate.spec.rounds();
        notes.push(Note::RoundEnded { round: 1, phase: Phase::Opening });
        let advocate = debate.text(ADVOCATE, 1, Phase::Opening);
        let challenger = debate.text(CHALLENGER, 1, Phase::Opening);
        if let Some(text) = challenger {
            let n = count_numbered(text);
            if n != 5 {
                notes.push(Note::Warning {
                    speaker: Some(debate.seat(CHALLENGER).id.clone()),
                    round: 1,
                    phase: Phase::Opening,
                    message: format!("the challenger gave {n} numbered concerns, not exactly five"),
                });
            }
        }
        match (advocate, challenger) {
            (None, None) => self.stage = Stage::Fallback,
            (Some(_), None) | (None, Some(_)) => {
                let (survivor, lost) =
                    if advocate.is_some() { ("advocate", "challenger") } else { ("challenger", "advocate") };
                return Some(Step::Finish(Ending {
                    kind: EndKind::Degraded,
                    reason: format!(
                        "single-agent review from the {survivor}: the {lost} failed, so there was no competition"
                    ),
                    rounds_run: 1,
                }));
            }
            (Some(_), Some(_)) if rounds >= 3 => {
                notes.push(Note::RoundStarted { round: 2, phase: Phase::CrossExam, challenger: Some(CHALLENGER) });
                self.stage = Stage::CrossExam;
                return Some(Step::Run(both(debate, 2, Phase::CrossExam)));
            }
            (Some(_), Some(_)) if rounds == 2 => {
                notes.push(Note::RoundStarted { round: 2, phase: Phase::Rebuttal, challenger: Some(CHALLENGER) });
                self.stage = Stage::Rebuttal;
                return Some(Step::Run(both(debate, 2, Phase::Rebuttal)));
            }
            _ => self.stage = Stage::Conclude(Conclusion::NotAsked),
        }
        None
    }
}

/// Both sides failed: a single-agent run on the judge's model, if there is one.
fn fall_back(debate: &Debate) -> Step {
    if debate.judge_answer().is_some() {
        return Step::Finish(match debate.judge_answer() {
            Some(Answer::Text { .. }) => Ending {
                kind: EndKind::Degraded,
                reason: "both advocate and challenger failed: single-agent run on the judge's model".into(),
                rounds_run: 1,
            },
            _ => Ending {
                kind: EndKind::NoQuorum,
                reason: "advocate, challenger and the single-agent fallback all failed".into(),
                rounds_run: 1,
            },
        });
    }
    if debate.judge().is_none() {
        return Step::Finish(Ending {
            kind: EndKind::NoQuorum,
            reason: "advocate and challenger both failed, and there is no judge to fall back on".into(),
            rounds_run: 1,
        });
    }
    let mut call = PlannedCall::judge(1, single_prompt(debate), &debate.spec);
    call.slot.phase = Phase::Single;
    Step::Run(vec![call])
}

/// Both sides in parallel for a later phase.
fn both(debate: &Debate, round: u32, phase: Phase) -> Vec<PlannedCall> {
    vec![
        PlannedCall::turn(ADVOCATE, round, phase, false, later_prompt(debate, ADVOCATE, phase), &debate.spec),
        PlannedCall::turn(CHALLENGER, round, phase, false, later_prompt(debate, CHALLENGER, phase), &debate.spec)
            .adversarial(),
    ]
}

/// Numbered items at the start of lines ("1.", "2)", "**3."): how many distinct.
fn count_numbered(text: &str) -> usize {
    let mut seen = std::collections::BTreeSet::new();
    for line in text.lines() {
        let t = line.trim_start_matches(|c: char| c.is_whitespace() || c == '*' || c == '#');
        let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() && t[digits.len()..].starts_with(['.', ')', ':']) {
            seen.insert(digits);
        }
    }
    seen.len()
}

/// Each numbered item's first line ("1. **No rollback plan** — …" → its
/// text, emphasis marks dropped), by number; a number alone on its line
/// takes the next line. Cut at 200 characters: a table cell, not the essay.
fn numbered_items(text: &str) -> std::collections::BTreeMap<u32, String> {
    /// A numbered line's number and what follows it.
    fn numbered(line: &str) -> Option<(u32, &str)> {
        let t = line.trim_start_matches(|c: char| c.is_whitespace() || c == '*' || c == '#');
        let digits = t.chars().take_while(char::is_ascii_digit).count();
        let rest = t[digits..].strip_prefix(['.', ')', ':'])?;
        Some((t[..digits].parse().ok()?, rest))
    }
    let clean = |s: &str| s.replace('*', "").trim().trim_matches('_').trim().to_string();
    let mut items = std::collections::BTreeMap::new();
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let Some((n, rest)) = numbered(line) else { continue };
        let mut said = clean(rest);
        if said.is_empty() {
            let next = lines[i + 1..].iter().find(|l| !clean(l).is_empty());
            said = next.filter(|l| numbered(l).is_none()).map(|l| clean(l)).unwrap_or_default();
        }
        if !said.is_empty() {
            items.entry(n).or_insert_with(|| said.chars().take(200).collect());
        }
    }
    items
}

/// Parse the judge's closing JSON into the review and the compete result.
fn record_review(debate: &Debate, options: &Options, text: &str, notes: &mut Vec<Note>) {
    let mut review = match reply::review(text) {
        Ok(r) => r,
        Err(why) => {
            notes.push(Note::Warning {
                speaker: debate.judge().map(|j| j.id.clone()),
                round: debate.spec.rounds().min(3),
                phase: Phase::Synthesis,
                message: format!("the competitive review could not be parsed ({why}); no compete result recorded"),
            });
            return;
        }
    };
    // From the judge's scores: 1 is a stretch, no real dispute; 2 or more was a
    // real point of disagreement, resolved for the challenger at 3 or more (a
    // genuine issue the advocate did not answer), for the advocate at 2.
    let disputed = review.concerns.iter().filter(|c| c.score >= 2).count() as u32;
    let genuine = review.concerns.iter().filter(|c| c.score >= 3).count() as u32;
    let resolution = review.key_narratives.first().cloned().unwrap_or_default();
    // Each score beside the concern it scores, in the challenger's words.
    let stated = debate.text(CHALLENGER, 1, Phase::Opening).map(numbered_items).unwrap_or_default();
    for c in &mut review.concerns {
        if let Some(text) = stated.get(&c.concern) {
            c.text.clone_from(text);
        }
    }
    notes.push(COMPETITIVE_REVIEW.note(serde_json::to_value(&review).expect("serializes")));
    notes.push(COMPETE_RESULT.note(json!({
            "skill": options.label.as_deref().map_or(DEF.name, str::trim),
            "artifact": debate.spec.question.lines().find(|l| !l.trim().is_empty()).unwrap_or_default().trim(),
            "disagreements": disputed,
            "sided_with": {"challenger": genuine, "advocate": disputed - genuine},
            "resolution": resolution,
    })));
    let mut recent: Vec<u32> = options.history.iter().map(|h| h.disagreements).collect();
    recent.push(disputed);
    if recent.len() >= 5 && recent[recent.len() - 5..].iter().all(|&d| d == 0) {
        notes.push(COMPETE_FLAG.note(json!(
            "five consecutive competitive runs found zero disagreement: the competition is not adding value here; review it"
        )));
    }
}

fn artifact(debate: &Debate) -> String {
    prompt_kit::question(debate)
}

/// What both sides are told first, the same for each: the proposal (often
/// long) then stays a prefix both share; each side's part comes last.
const REVIEW: &str = "This is a competitive review of the proposal in the question: an advocate makes the case \
that it is sound, a challenger makes the case that it has significant issues, and a judge weighs the two. \
Your part is given at the end.";

/// The advocate. Output: prose, citing the proposal.
fn advocate_prompt(debate: &Debate) -> Prompt {
    Prompt {
        system: REVIEW.into(),
        before: artifact(debate),
        after: prompt_kit::turn_block(&[
            "YOUR PART: THE ADVOCATE. Review the proposal above with a bias toward approval. Make the strongest case \
that it is sound and ready to proceed: what works, which trade-offs are acceptable, why the concerns are manageable. \
You must still flag any genuinely blocking issue, framed as something that can be fixed. Be specific: cite the proposal.",
            &prompt_kit::persona(debate.seat(ADVOCATE)),
            "Write your review.",
        ]),
        ..Prompt::default()
    }
}

/// The challenger, hardened against sycophancy. Output: exactly five numbered
/// concerns, most severe first, each with a citation, the risk and a fix.
fn challenger_prompt(debate: &Debate) -> Prompt {
    Prompt {
        system: REVIEW.into(),
        before: artifact(debate),
        after: prompt_kit::turn_block(&[
            "YOUR PART: THE CHALLENGER. You are a senior reviewer who has watched more than fifty proposals like this \
one fail in production. Your reputation rests on finding the real problems.\n\n\
Make the strongest case that the proposal above has significant issues: weak architecture, missing edge cases, \
operational risks, anti-patterns.\n\n\
STRUCTURE: exactly five concerns, numbered 1 to 5, most severe first. For each:\n\
- quote or cite the part of the proposal it concerns;\n\
- the concrete risk if it ships as is;\n\
- a specific fix.\n\n\
No softeners: never write \"minor nitpick\", \"probably fine but\" or \"just a thought\". A problem is stated as a \
problem; a proposal with no real issues does not exist. Acknowledge what works, then argue why the issues outweigh it.",
            &prompt_kit::persona(debate.seat(CHALLENGER)),
            "Write your five concerns.",
        ]),
        ..Prompt::default()
    }
}

/// Later phases: cross-examination (questions) or rebuttal (answers). Output: prose.
fn later_prompt(debate: &Debate, seat: usize, phase: Phase) -> Prompt {
    let (me, other) = if seat == ADVOCATE { ("ADVOCATE", "challenger") } else { ("CHALLENGER", "advocate") };
    let task = match phase {
        Phase::CrossExam => format!(
            "Ask the {other} the three questions that most test their review: the claim with the least evidence, \
the assumption they did not state, the consequence they skipped. Questions only, numbered."
        ),
        _ => format!(
            "Answer what the {other} said against your review — and in team mode, every question they asked you — \
directly and specifically. Concede what is right; hold what is not, and say why."
        ),
    };
    Prompt {
        system: REVIEW.into(),
        before: artifact(debate),
        history: prompt_kit::entries(debate, |_| true, |slot| side(slot.seat)),
        history_title: "THE REVIEW SO FAR".into(),
        after: prompt_kit::turn_block(&[
            &format!("YOUR PART: THE {me}."),
            &task,
            &format!("Your {}, {}.", phase.as_str(), me.to_ascii_lowercase()),
        ]),
    }
}

fn side(seat: Seat) -> String {
    match seat {
        Seat::Panel(ADVOCATE) => "ADVOCATE POSITION".into(),
        Seat::Panel(_) => "CHALLENGER POSITION".into(),
        Seat::Judge => "JUDGE".into(),
    }
}

/// A single agent, when competition is off or has collapsed. Output: prose.
fn single_prompt(debate: &Debate) -> Prompt {
    Prompt {
        system: "Review the proposal below carefully and even-handedly: what works, the most important risks, \
and what you recommend. Be specific: cite the proposal."
            .into(),
        before: artifact(debate),
        after: "Write your review.".into(),
        ..Prompt::default()
    }
}

/// The judge's competitive review. Output: Markdown, then a closing JSON block
/// `{"concerns": [{"concern": 1, "score": 1-5}, …], "pulled_punches": bool,
/// "key_narratives": [..], "agreement_zones": [..], "contested_zones": [..]}`.
fn judge_prompt(debate: &Debate) -> Prompt {
    Prompt {
        system: "You judge a competitive review: an advocate and a challenger reviewed the same proposal.\n\n\
Produce the final assessment:\n\
1. Which advocate arguments survived the challenger's critique?\n\
2. Which challenger concerns did the advocate fail to address?\n\
3. For each challenger concern: a genuine issue or a stretch? Score it from 1 (a stretch) to 5 (genuine and unaddressed).\n\
4. Did the challenger pull punches? Were the concerns genuine or performative?\n\
5. Your recommendation.\n\
6. Agreement zones (high confidence) and contested zones (flag for attention).\n\
7. Two or three key narratives: arguments that survived the debate and should be emphasised.\n\n\
Format: Markdown under '## Competitive Review' with '### Judge Synthesis', then '**Key narratives:**', \
'**Agreement zones**' and '**Contested zones**'. End with a fenced JSON block in this shape:\n\
```json\n{\"concerns\": [{\"concern\": <number>, \"score\": <1-5>}], \"pulled_punches\": <true|false>, \"key_narratives\": [\"...\"], \
\"agreement_zones\": [\"...\"], \"contested_zones\": [\"...\"], \"recommendation\": \"...\", \"verdict\": \"approve|reject\"}\n```\n\
with one entry in \"concerns\" per challenger concern, your recommendation in a sentence or two, and the binary \
verdict on the proposal as it stands."
            .into(),
        before: artifact(debate),
        history: prompt_kit::entries(debate, |_| true, |slot| side(slot.seat)),
        history_title: "THE TWO REVIEWS".into(),
        after: "Write the competitive review now.".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::numbered_items;
    use crate::{EventKind, Output, Session};

    /// The gate's record for `question`, with `triggers` given or not.
    fn gate(question: &str, triggers: Option<serde_json::Value>) -> serde_json::Value {
        let mut protocol = serde_json::json!({"name": "adversarial"});
        if let Some(t) = triggers {
            protocol["triggers"] = t;
        }
        let spec = serde_json::json!({"question": question, "protocol": protocol,
            "panel": [{"id": "a", "model": "openai/a"}, {"id": "c", "model": "openai/c"}],
            "judge": {"id": "j", "model": "openai/j"}});
        let mut session = Session::from_spec_json(&spec.to_string()).unwrap();
        loop {
            match session.poll() {
                Output::Event(e) => {
                    if let EventKind::ResultRecorded { name, value } = e.kind
                        && name == "gate"
                    {
                        return value;
                    }
                }
                Output::Request(_) => {}
                other => panic!("no gate before {other:?}"),
            }
        }
    }

    /// Seed 001: an RFC on architecture competes without being told to; a
    /// customer email does not; triggers given replace the built-in ones.
    #[test]
    fn the_seeds_topics_trigger_competition_unless_triggers_are_given() {
        let rfc = gate("Review this RFC: a new architecture for the order service.", None);
        assert_eq!(rfc["compete"], true);
        assert_eq!(rfc["reason"], "trigger 'architecture' matched 'architecture'");
        assert_eq!(gate("Review this email to a customer about a refund.", None)["compete"], false);
        assert_eq!(gate("Review this RFC: rename the config flag.", None)["compete"], false, "RFC alone");
        assert_eq!(gate("Review this design doc for the settings page.", None)["compete"], false);
        assert_eq!(gate("Draft the note to the CTO about the outage.", None)["compete"], true);
        let own = serde_json::json!([{"name": "money", "any_of": ["refund"]}]);
        assert_eq!(gate("Review this RFC: a new architecture.", Some(own.clone()))["compete"], false);
        assert_eq!(gate("Review this email about a refund.", Some(own))["compete"], true);
    }

    /// The review table shows what each scored concern said, however the
    /// challenger laid its list out.
    #[test]
    fn numbered_items_are_read_by_their_first_line() {
        let text = "Some praise first.\n\n1. **No rollback plan.** The RFC never says how to undo it.\n\
                    2) Cache stampede on cold start\n### 3:\n\n*Stale reads* after writes\n\
                    4.\n\n5. Last one\n1. a second list does not replace the first\n";
        let items = numbered_items(text);
        assert_eq!(items[&1], "No rollback plan. The RFC never says how to undo it.");
        assert_eq!(items[&2], "Cache stampede on cold start");
        assert_eq!(items[&3], "Stale reads after writes", "a number alone takes the next line");
        assert!(!items.contains_key(&4), "unless that line is the next item");
        assert_eq!(items[&5], "Last one");
        assert_eq!(numbered_items(&format!("1. {}", "x".repeat(500)))[&1].chars().count(), 200);
    }
}
