//! A published table re-derived: LLM-Agora's committed GSM8K debate outputs
//! (`tests/eval/llm-agora/`, README there) scored by agon's evaluation, as
//! `agon eval --rescore` scores them. `--nocapture` prints the report.

use std::path::Path;

use agon_core::eval::{self, Arm, Scoring};
use serde_json::Value;

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/eval/llm-agora").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The debate's results with only `model`'s turns: that model alone over its three turns.
fn alone(results: &str, model: &str) -> String {
    results
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            let turns = v["transcript"]["turns"].as_array_mut().unwrap();
            turns.retain(|t| t["speaker"] == model);
            v.to_string() + "\n"
        })
        .collect()
}

#[test]
fn llm_agora_gsm8k_rescored() {
    let dataset = fixture("gsm8k.jsonl");
    let debate = fixture("debate.jsonl");
    let (llama, wizardlm, orca) = (alone(&debate, "llama"), alone(&debate, "wizardlm"), alone(&debate, "orca"));
    let arms = [
        Arm { name: "debate", results: &debate, scoring: Scoring::Vote },
        Arm { name: "llama", results: &llama, scoring: Scoring::Vote },
        Arm { name: "wizardlm", results: &wizardlm, scoring: Scoring::Vote },
        Arm { name: "orca", results: &orca, scoring: Scoring::Vote },
    ];
    let report = eval::report("gsm8k.jsonl", &dataset, &arms);
    println!("{}", report.markdown);
    let json: Value = serde_json::from_str(&report.json).unwrap();
    let figures: Vec<(String, u64, u64, u64)> = json["arms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let n = |k: &str| a[k].as_u64().unwrap();
            (a["name"].as_str().unwrap().to_string(), n("right"), n("no_answer"), n("some_seat_right"))
        })
        .collect();
    // The figures docs/src/eval.md reports: (arm, right, no answer, some seat right).
    let want = [("debate", 13, 47, 24), ("llama", 16, 17, 16), ("wizardlm", 6, 41, 6), ("orca", 15, 32, 15)];
    let want: Vec<(String, u64, u64, u64)> = want.iter().map(|(a, b, c, d)| (a.to_string(), *b, *c, *d)).collect();
    assert_eq!(figures, want);
}

/// The answer `GSM8K/gsm_evaluation.py` takes from a reply: the last run of
/// digits anywhere in it (invented turns included); when that is zero or
/// none, the last `\d+\.?\d*` (so "$12.00" is 12, its "00" being zero).
fn authors_answer(text: &str) -> Option<f64> {
    let runs: Vec<&str> = text.split(|c: char| !c.is_ascii_digit()).filter(|r| !r.is_empty()).collect();
    let last: Option<f64> = runs.last().and_then(|r| r.parse().ok());
    if last.is_some_and(|v| v != 0.0) {
        return last;
    }
    // `\d+\.?\d*`: a run, then at most one point and the run after it.
    let (bytes, mut found, mut i) = (text.as_bytes(), None, 0);
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'.' {
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
        }
        found = text[start..i].parse::<f64>().ok();
    }
    found
}

#[test]
fn the_authors_table_is_an_oracle_over_the_three_models() {
    let dataset = fixture("gsm8k.jsonl");
    let gold: std::collections::BTreeMap<String, f64> = dataset
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["id"].as_str().unwrap().to_string(), v["answer"].as_str().unwrap().parse().unwrap())
        })
        .collect();
    // Per turn: items where any one model's last number is the gold (their
    // metric), and the same rule per model.
    let (mut oracle, mut per_model) = ([0; 3], std::collections::BTreeMap::<String, [u32; 3]>::new());
    for l in fixture("debate.jsonl").lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        let want = gold[v["id"].as_str().unwrap()];
        let mut any = [false; 3];
        for t in v["transcript"]["turns"].as_array().unwrap() {
            let turn = t["round"].as_u64().unwrap() as usize;
            let right = authors_answer(t["text"].as_str().unwrap()) == Some(want);
            any[turn] |= right;
            per_model.entry(t["speaker"].as_str().unwrap().to_string()).or_default()[turn] += right as u32;
        }
        for (o, a) in oracle.iter_mut().zip(any) {
            *o += a as u32;
        }
    }
    println!("authors' rule: any model right by turn {oracle:?}; each model by turn {per_model:?}");
    // The README's table: 26 / 26 / 26 %, re-derived with the gold after `####`.
    assert_eq!(oracle, [26, 26, 26]);
    assert_eq!(per_model["orca"], [23, 20, 17]);
    assert_eq!(per_model["llama"], [1, 5, 3]);
    assert_eq!(per_model["wizardlm"], [3, 3, 10]);
}
