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
}
