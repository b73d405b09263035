//! The stance reader against a hand-labelled corpus of replies
//! (`tests/stance/corpus.jsonl`): written cases for every way agreement is
//! faked or limited, and real replies captured from real models.
//!
//! It fails if any reply that does not agree is read as agreeing, or if
//! recall on agreeing replies falls below 0.95. Run with `--nocapture` to see
//! precision and recall per class.

use std::collections::BTreeMap;
use std::path::Path;

use agon_core::stance::{self, Verdict};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    id: String,
    class: String,
    label: Verdict,
    /// `declared`: the reply answered a prompt that asked for the VOTE line.
    mode: String,
    /// `written`, or the model that produced it.
    source: String,
    text: String,
}

fn corpus() -> Vec<Entry> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/stance/corpus.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .enumerate()
        .map(|(i, line)| serde_json::from_str(line).unwrap_or_else(|e| panic!("corpus line {}: {e}", i + 1)))
        .collect()
}

#[derive(Default)]
struct Tally {
    n: usize,
    labelled: usize,
    read: usize,
    both: usize,
    exact: usize,
}

#[test]
fn the_reader_never_takes_a_reply_that_does_not_agree_for_agreement() {
    let entries = corpus();
    let mut ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), entries.len(), "corpus ids must be unique");

    let mut classes: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut false_agreements = Vec::new();
    let mut missed = Vec::new();
    for e in &entries {
        assert!(matches!(e.mode.as_str(), "read" | "declared"), "{}: mode {}", e.id, e.mode);
        let verdict = stance::read(&e.text, e.mode == "declared").verdict;
        let t = classes.entry(&e.class).or_default();
        t.n += 1;
        t.exact += (verdict == e.label) as usize;
        let (labelled, read) = (e.label == Verdict::Agrees, verdict == Verdict::Agrees);
        t.labelled += labelled as usize;
        t.read += read as usize;
        t.both += (labelled && read) as usize;
        if read && !labelled {
            false_agreements.push(format!("{} ({:?}): {:?}", e.id, e.label, e.text));
        }
        if labelled && !read {
            missed.push(format!("{} read as {:?}: {:?}", e.id, verdict, e.text));
        }
    }

    let ratio = |a: usize, b: usize| if b == 0 { "—".to_string() } else { format!("{:.2}", a as f64 / b as f64) };
    let row = |name: &str, t: &Tally| {
        println!(
            "{name:<28} {:>4} {:>8} {:>8} {:>9} {:>6} {:>6}",
            t.n,
            t.labelled,
            t.read,
            ratio(t.both, t.read),
            ratio(t.both, t.labelled),
            ratio(t.exact, t.n)
        )
    };
    println!(
        "{:<28} {:>4} {:>8} {:>8} {:>9} {:>6} {:>6}",
        "class", "n", "agreeing", "read so", "precision", "recall", "exact"
    );
    let mut total = Tally::default();
    for (class, t) in &classes {
        row(class, t);
        total.n += t.n;
        total.labelled += t.labelled;
        total.read += t.read;
        total.both += t.both;
        total.exact += t.exact;
    }
    row("all", &total);
    for m in &missed {
        println!("missed: {m}");
    }
    assert!(false_agreements.is_empty(), "read as agreeing, but they do not agree:\n{}", false_agreements.join("\n"));
    let recall = total.both as f64 / total.labelled as f64;
    assert!(recall >= 0.95, "recall on agreeing replies is {recall:.3}, below 0.95:\n{}", missed.join("\n"));
    let real = entries.iter().filter(|e| e.source != "written").count();
    assert!(entries.len() >= 200, "the corpus has {} replies; at least 200 are needed", entries.len());
    assert!(real >= 50, "the corpus has {real} real replies; at least 50 are needed");
}
