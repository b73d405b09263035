//! The answer reader against real final answers (`tests/answers/real.jsonl`):
//! replies from published multi-agent debate logs, each with the answer a
//! careful reader takes from it, or none.
//!
//! It fails if any reply is read as an answer other than the one it gives —
//! in particular, a reply that gives none must never be read as giving one
//! (but the fresh replies listed in `KNOWN_MISREADS`, with why) — or if fewer
//! than 85 % of the replies that give an answer are read.
//! `--nocapture` prints the numbers per source and kind.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use agon_core::answer::{self, Kind};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    id: String,
    source: String,
    kind: Kind,
    choices: Option<Vec<String>>,
    text: String,
    expected: Option<String>,
}

#[derive(Default)]
struct Tally {
    answered: usize,
    read_right: usize,
    none: usize,
    none_kept: usize,
}

#[test]
fn real_final_answers_are_read_right_or_not_at_all() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/answers/real.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let entries: Vec<Entry> = text
        .lines()
        .enumerate()
        .map(|(i, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("line {}: {e}", i + 1)))
        .collect();
    let mut by: BTreeMap<String, Tally> = BTreeMap::new();
    let (mut wrong, mut missed) = (Vec::new(), Vec::new());
    for e in &entries {
        let got = answer::read(&e.text, e.kind, e.choices.as_deref().unwrap_or(&[]));
        let t = by.entry(format!("{} {:?}", e.source, e.kind)).or_default();
        match (&e.expected, &got) {
            (Some(want), Some(g)) if want == g => {
                t.answered += 1;
                t.read_right += 1;
            }
            (Some(_), None) => {
                t.answered += 1;
                missed.push(e.id.as_str());
            }
            (None, None) => {
                t.none += 1;
                t.none_kept += 1;
            }
            (want, got) => {
                if want.is_some() {
                    t.answered += 1;
                } else {
                    t.none += 1;
                }
                wrong.push(format!("{}: expected {want:?}, read {got:?}", e.id));
            }
        }
    }
    println!("source kind | answers read right | no-answer kept as none");
    for (k, t) in &by {
        println!("{k} | {}/{} | {}/{}", t.read_right, t.answered, t.none_kept, t.none);
    }
    let answered: usize = by.values().map(|t| t.answered).sum();
    let right: usize = by.values().map(|t| t.read_right).sum();
    println!("all: {right}/{answered} read right; missed: {missed:?}");
    assert!(wrong.is_empty(), "read wrong ({}):\n{}", wrong.len(), wrong.join("\n"));
    assert!(right * 100 >= answered * 85, "only {right} of {answered} answers read");
}

/// A reply from the fresh corpus (`tests/answers/fresh.jsonl`): as above, with
/// its batch and whether it was cut at its token limit (it ends mid-sentence
/// where its source's limit fell; the logs record no stop reason).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fresh {
    id: String,
    /// `tune` or a held-out batch, `held-out` to `held-out-12`.
    batch: String,
    source: String,
    kind: Kind,
    choices: Option<Vec<String>>,
    cut: bool,
    /// For multiple-choice replies of held-out batches 3, 5, 6, 7, 8, 9 and 10, where the final
    /// letter stands, labelled by hand: `closing-sentence`, `end` or `earlier`
    /// (absent where the reply names its option by text alone).
    #[serde(default)]
    letter_at: Option<String>,
    text: String,
    expected: Option<String>,
}

/// Complete replies of the fresh corpus still read wrong, each with why no
/// rule reads it right without guessing: the test fails on any other read
/// wrong, and on any of these once it is read right (then it leaves this list).
const KNOWN_MISREADS: &[(&str, &str)] = &[
    (
        "xfin-qwen2.5-r0-vali673-scB",
        "\"### Final Answer: B\" right after \"the tool's confirmation that Choice B is false\": \
         the letter is plain; only the meaning of the sentence before it contradicts it",
    ),
    (
        "xfin-qwen2.5-r1-vali673-scA",
        "\"Since none of these options accurately reflect why …\" and then \"**Final Answer: A**\": \
         a general disclaimer before a plain letter, which no rule can weigh without guessing",
    ),
    (
        "xfin-hetero-qwen2.5-r1-vali760-scB-2",
        "\"FINAL ANSWER: B (… the NPV for project 'C' will increase shareholder wealth by $2500 if \
         accepted.)\": the parenthesis paraphrases option C's text around a quoted project name, \
         not a letter the reader could weigh against B",
    ),
    (
        "xfin-qwen2.5-r0-vali626-moderator",
        "\"All agents agree that a decrease in market volatility (Choice C) makes early exercise … less \
         attractive\", where the question asks what makes it more attractive: only the question's \
         meaning shows that naming C here is not choosing it",
    ),
    (
        "maci-medpro-001-agentA-r2",
        "\"So my Final Answer: A\", its probabilities on A, while its justification concludes \
         \"consistent with nerve compression, the lateral femoral nerve\" (option C, paraphrased): \
         only the meaning of garbled prose shows the contradiction",
    ),
    (
        "maci-medpro-002-agentB-r2",
        "\"Final Answer: A\" and 0.95 on A, while its justification rules out Braxton Hicks \
         contractions (A) and says \"Hoypotonic uter uterine dysfunction fits\" (option C, misspelt)",
    ),
    (
        "maci-medpro-003-agentB-r2",
        "\"Your Final Answer: B\" and 0.9 on B, while its justification calls the result neither \
         statistically nor clinically significant (option D's meaning, in none of its words)",
    ),
];

#[test]
fn fresh_replies_complete_ones_never_read_wrong_and_cut_ones_never_count() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/answers/fresh.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let entries: Vec<Fresh> = text
        .lines()
        .enumerate()
        .map(|(i, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("line {}: {e}", i + 1)))
        .collect();
    // batch and source → (complete giving an answer, read right, complete giving none, kept none, cut, wrong)
    let mut by: BTreeMap<String, [usize; 6]> = BTreeMap::new();
    let (mut wrong, mut cut_wrong) = (Vec::new(), Vec::new());
    // where the option letter stands → (complete replies giving one, read right)
    let mut letters: BTreeMap<String, [usize; 2]> = BTreeMap::new();
    let mut refused = Vec::new();
    for e in &entries {
        assert!(common::is_corpus_batch(&e.batch), "{}: batch {}", e.id, e.batch);
        let choices = e.choices.clone().unwrap_or_default();
        let got = answer::read(&e.text, e.kind, &choices);
        // What a consumer counts: a cut reply never.
        let rules_kind = serde_json::json!({"kind": e.kind, "choices": choices});
        let counted = answer::counted(&e.text, e.cut, &serde_json::from_value(rules_kind).unwrap());
        assert!(!e.cut || counted.is_none(), "{}: a cut reply was counted", e.id);
        let t = by.entry(format!("{} {}", e.batch, e.source)).or_default();
        if e.cut {
            t[4] += 1;
            if got.is_some() && got != e.expected {
                cut_wrong.push(format!("{} (read {got:?}, its words give {:?})", e.id, e.expected));
            }
            continue;
        }
        if let (Some(at), Some(_)) = (&e.letter_at, &e.expected) {
            let l = letters.entry(format!("{} {at}", e.batch)).or_default();
            l[0] += 1;
            l[1] += (got == e.expected) as usize;
        }
        match (&e.expected, &got) {
            (Some(want), Some(g)) if want == g => {
                t[0] += 1;
                t[1] += 1;
            }
            (Some(_), None) => {
                t[0] += 1;
                refused.push(e.id.as_str());
            }
            (None, None) => {
                t[2] += 1;
                t[3] += 1;
            }
            (want, got) => {
                t[if want.is_some() { 0 } else { 2 }] += 1;
                t[5] += 1;
                wrong.push(format!("{}: expected {want:?}, read {got:?}", e.id));
            }
        }
    }
    println!("batch source | complete answers read right | complete no-answer kept | read wrong | cut (never counted)");
    for (k, t) in &by {
        println!("{k} | {}/{} | {}/{} | {} | {}", t[1], t[0], t[3], t[2], t[5], t[4]);
    }
    println!("cut replies whose words would have read wrong: {cut_wrong:?}");
    println!("complete replies giving an answer that were refused (read as none): {refused:?}");
    println!("batch, where the option letter stands | read right");
    for (k, l) in &letters {
        println!("{k} | {}/{}", l[1], l[0]);
    }
    for (id, why) in KNOWN_MISREADS {
        let listed = wrong.iter().any(|w| w.starts_with(&format!("{id}:")));
        assert!(listed, "{id} is read right now: take it off KNOWN_MISREADS");
        println!("known misread, not yet read right: {id}: {why}");
    }
    wrong.retain(|w| !KNOWN_MISREADS.iter().any(|(id, _)| w.starts_with(&format!("{id}:"))));
    assert!(wrong.is_empty(), "read wrong from complete replies ({}):\n{}", wrong.len(), wrong.join("\n"));
}
