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
    })
}
