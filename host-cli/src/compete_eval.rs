//! Seed 001's compete-eval: after a competitive review, how much of it the
//! user kept. The user's final text is compared with the review's synthesis
//! word by word (an edit distance, banded low, medium or high), accepted when
//! nothing changed; the review's own disagreements and which side the judge
//! took come from its compete result. The line is the seed's, for the
//! scripts that read it, and the measure joins the run in the compete history.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How much the user changed: the word-level edit distance over the longer text's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EditDistance {
    /// At most a tenth of the words changed.
    Low,
    /// At most four tenths.
    Medium,
    High,
}

impl EditDistance {
    /// The band of `changed` words out of `of`.
    pub fn of(changed: usize, of: usize) -> EditDistance {
        let ratio = if of == 0 { 0.0 } else { changed as f64 / of as f64 };
        match ratio {
            r if r <= 0.10 => EditDistance::Low,
            r if r <= 0.40 => EditDistance::Medium,
            _ => EditDistance::High,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            EditDistance::Low => "low",
            EditDistance::Medium => "medium",
            EditDistance::High => "high",
        }
    }
}

/// Words compared at most, from each text: the distance is quadratic in them.
const MAX_WORDS: usize = 6_000;

/// Words changed (inserted, deleted or replaced) to turn `review` into `kept`, and the longer's word count.
pub fn words_changed(review: &str, kept: &str) -> (usize, usize) {
    let words = |t: &str| t.split_whitespace().take(MAX_WORDS).map(str::to_string).collect::<Vec<_>>();
    let (a, b) = (words(review), words(kept));
    // Typed, not inferred: with wasmtime's compiler in the build (test builds),
    // inferring the element type recurses through regalloc2's impls.
    let distance = strsim::generic_levenshtein::<Vec<String>, Vec<String>, &String, &String>(&a, &b);
    (distance, a.len().max(b.len()))
}

/// One compete-eval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evaluation {
    pub skill: String,
    pub edit_distance: EditDistance,
    /// The review kept as it was written.
    pub acceptance: bool,
    pub disagreements: u64,
    pub sided_with_challenger: u64,
    pub sided_with_advocate: u64,
}

impl Evaluation {
    /// From a finished transcript and the text the user kept (none: accepted as it is).
    pub fn of(transcript: &Value, kept: Option<&str>) -> Result<Evaluation, String> {
        let Some(result) = agon_core::compete_record(transcript) else {
            return Err("this session has no compete result: compete-eval measures a competitive review \
                        (adversarial with compete, as `--compete` or agon.toml's triggers run it)"
                .into());
        };
        // The review as the user read it: its closing data block is not prose to keep.
        let synthesis = agon_core::without_data_blocks(transcript["synthesis"]["text"].as_str().unwrap_or_default());
        let (changed, of) = kept.map_or((0, 1), |k| words_changed(&synthesis, k));
        let number = |v: &Value| v.as_u64().unwrap_or(0);
        Ok(Evaluation {
            skill: result["skill"].as_str().unwrap_or("adversarial").to_string(),
            edit_distance: EditDistance::of(changed, of),
            acceptance: changed == 0,
            disagreements: number(&result["disagreements"]),
            sided_with_challenger: number(&result["sided_with"]["challenger"]),
            sided_with_advocate: number(&result["sided_with"]["advocate"]),
        })
    }

    /// The seed's line: `[compete-eval: skill=…, edit_distance=…, acceptance=…, disagreements=N, sided_with=challenger:N/advocate:N]`.
    pub fn line(&self) -> String {
        // The skill comes from the run's label: one plain token, nothing that ends the line early.
        let skill: String =
            self.skill.chars().filter(|c| !c.is_control() && !matches!(c, '[' | ']' | ',' | '`')).collect();
        format!(
            "[compete-eval: skill={}, edit_distance={}, acceptance={}, disagreements={}, sided_with=challenger:{}/advocate:{}]",
            skill.trim(),
            self.edit_distance.as_str(),
            self.acceptance,
            self.disagreements,
            self.sided_with_challenger,
            self.sided_with_advocate
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn transcript() -> Value {
        json!({
            "synthesis": {"text": "Approve the cache with a ten minute TTL and an explicit invalidation on write."},
            "results": {"compete_result": {"kind": "table", "data":
                {"skill": "review-rfc", "disagreements": 3, "sided_with": {"challenger": 2, "advocate": 1}}}},
        })
    }

    #[test]
    fn kept_as_written_is_accepted_with_a_low_distance_and_the_line_is_the_seeds() {
        let e = Evaluation::of(&transcript(), None).unwrap();
        assert!(e.acceptance);
        assert_eq!(
            e.line(),
            "[compete-eval: skill=review-rfc, edit_distance=low, acceptance=true, disagreements=3, sided_with=challenger:2/advocate:1]"
        );
        let same = Evaluation::of(
            &transcript(),
            Some("Approve the cache with a ten minute TTL and an explicit invalidation on write.\n"),
        )
        .unwrap();
        assert!(same.acceptance, "whitespace alone is no edit");
    }

    #[test]
    fn edits_are_banded_by_the_share_of_words_changed() {
        // 14 words; one changed: 1/14 ≈ 0.07, low, but not accepted.
        let one = Evaluation::of(
            &transcript(),
            Some("Approve the cache with a five minute TTL and an explicit invalidation on write."),
        )
        .unwrap();
        assert_eq!((one.edit_distance, one.acceptance), (EditDistance::Low, false));
        // Four of 14 changed: ≈ 0.29, medium.
        let four = Evaluation::of(
            &transcript(),
            Some("Approve the cache with a five second TTL and no invalidation at write."),
        )
        .unwrap();
        assert_eq!(four.edit_distance, EditDistance::Medium);
        let rewritten = Evaluation::of(&transcript(), Some("Reject it: the orders API must stay uncached.")).unwrap();
        assert_eq!(rewritten.edit_distance, EditDistance::High);
        assert_eq!(words_changed("a b c", "a x c"), (1, 3));
    }

    #[test]
    fn a_session_without_a_compete_result_is_refused_and_a_hostile_skill_cannot_end_the_line() {
        let err = Evaluation::of(&json!({"synthesis": {"text": "x"}}), None).unwrap_err();
        assert!(err.contains("no compete result"), "{err}");
        let mut t = transcript();
        t["results"]["compete_result"]["data"]["skill"] = json!("x], acceptance=false [\u{1b}[2J");
        let line = Evaluation::of(&t, None).unwrap().line();
        assert_eq!(line.matches(']').count(), 1, "{line}");
        assert!(!line.contains('\u{1b}'));
    }
}
