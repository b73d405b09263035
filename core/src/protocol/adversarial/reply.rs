//! The judge's competitive review: the JSON block closing it.

use serde::{Deserialize, Serialize};

use crate::parse::{extract_json, string_list};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConcernScore {
    pub concern: u32,
    /// 1 (a stretch) to 5 (a genuine, unaddressed issue).
    pub score: u32,
    /// The concern as the challenger stated it (its numbered item's first line).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
}

/// The judge's competitive review, as seed 001's output format asks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Review {
    pub concerns: Vec<ConcernScore>,
    /// Whether the judge found the challenger pulling its punches; `None` when it did not say.
    pub pulled_punches: Option<bool>,
    pub key_narratives: Vec<String>,
    pub agreement_zones: Vec<String>,
    pub contested_zones: Vec<String>,
    /// The judge's recommendation, in its words; empty when it gave none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub recommendation: String,
    /// Seed 001's binary assessment: approve or reject; `None` when the judge
    /// gave neither word (never guessed from the prose).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Decision>,
}

/// The two answers a binary assessment has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    Approve,
    Reject,
}

/// The JSON block closing the judge's review.
pub fn review(text: &str) -> Result<Review, String> {
    let v = extract_json(text).ok_or("no JSON block closing the review")?;
    let list = v["concerns"].as_array().ok_or("no \"concerns\" list")?;
    let mut concerns = Vec::new();
    for (i, c) in list.iter().enumerate() {
        let score = c["score"]
            .as_u64()
            .filter(|s| (1..=5).contains(s))
            .ok_or(format!("concern {}: score must be 1–5", i + 1))?;
        let concern = c["concern"].as_u64().unwrap_or(i as u64 + 1) as u32;
        concerns.push(ConcernScore { concern, score: score as u32, text: String::new() });
    }
    Ok(Review {
        concerns,
        // Never invented: a review that does not say stays silent on it.
        pulled_punches: v["pulled_punches"].as_bool(),
        key_narratives: string_list(&v["key_narratives"]),
        agreement_zones: string_list(&v["agreement_zones"]),
        contested_zones: string_list(&v["contested_zones"]),
        recommendation: v["recommendation"].as_str().map(str::trim).unwrap_or_default().to_string(),
        verdict: match v["verdict"].as_str().map(|s| s.trim().to_ascii_lowercase()).as_deref() {
            Some("approve") => Some(Decision::Approve),
            Some("reject") => Some(Decision::Reject),
            _ => None,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed 001's binary assessment is read only from the words asked for;
    /// prose that leans one way is not a verdict.
    #[test]
    fn the_verdict_and_recommendation_are_read_never_guessed() {
        let said = |extra: &str| {
            review(&format!(
                "## Competitive Review\n```json\n{{\"concerns\": [{{\"concern\": 1, \"score\": 2}}]{extra}}}\n```"
            ))
            .unwrap()
        };
        let r = said(r#", "recommendation": " Ship after a load test. ", "verdict": "Approve""#);
        assert_eq!((r.verdict, r.recommendation.as_str()), (Some(Decision::Approve), "Ship after a load test."));
        assert_eq!(said(r#", "verdict": "reject""#).verdict, Some(Decision::Reject));
        for vague in [r#", "verdict": "approve with changes""#, r#", "verdict": true"#, ""] {
            let r = said(vague);
            assert_eq!((r.verdict, r.recommendation.as_str()), (None, ""), "{vague}");
        }
    }
}
