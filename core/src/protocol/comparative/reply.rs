//! The judge's scorecard: criteria, weights, scores, a recommendation.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::parse::{extract_json, field_str};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Criterion {
    pub name: String,
    /// Relative weight, 1–100.
    pub weight: u32,
    /// Score 1–5 per option.
    pub scores: BTreeMap<String, u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scorecard {
    pub criteria: Vec<Criterion>,
    /// Σ weight × score per option, computed here, not taken from the model.
    pub totals: BTreeMap<String, u32>,
    pub recommendation: String,
}

/// `{"criteria": [{"name", "weight", "scores": {"A": 4, "B": 3}}], "recommendation": "A"}`
/// with options labelled A, B, … in order.
pub fn scorecard(text: &str, labels: &[String]) -> Result<Scorecard, String> {
    let v = extract_json(text).ok_or("no JSON scorecard in the reply")?;
    let list = v["criteria"].as_array().ok_or("no \"criteria\" list")?;
    if list.is_empty() {
        return Err("the scorecard has no criteria".into());
    }
    let mut criteria = Vec::new();
    for c in list {
        let name = field_str(c, "name");
        let weight = c["weight"]
            .as_u64()
            .filter(|w| (1..=100).contains(w))
            .ok_or(format!("criterion '{name}': weight must be 1–100"))?;
        let mut scores = BTreeMap::new();
        for label in labels {
            let s = c["scores"][label.as_str()]
                .as_u64()
                .filter(|s| (1..=5).contains(s))
                .ok_or(format!("criterion '{name}': no 1–5 score for option {label}"))?;
            scores.insert(label.clone(), s as u32);
        }
        criteria.push(Criterion { name, weight: weight as u32, scores });
    }
    // Filled by insertion: `collect` would instantiate a sort.
    let mut totals = BTreeMap::new();
    for l in labels {
        totals.insert(l.clone(), criteria.iter().map(|c| c.weight * c.scores[l]).sum());
    }
    Ok(Scorecard { criteria, totals, recommendation: field_str(&v, "recommendation") })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scorecards_compute_their_own_totals() {
        let labels = vec!["A".to_string(), "B".to_string()];
        let text = "{\"criteria\": [{\"name\": \"cost\", \"weight\": 60, \"scores\": {\"A\": 2, \"B\": 5}}, {\"name\": \"fit\", \"weight\": 40, \"scores\": {\"A\": 5, \"B\": 3}}], \"recommendation\": \"B\", \"totals\": {\"A\": 999}}";
        let s = scorecard(text, &labels).unwrap();
        assert_eq!(s.totals["A"], 60 * 2 + 40 * 5);
        assert_eq!(s.totals["B"], 60 * 5 + 40 * 3);
        assert!(scorecard("{\"criteria\": [{\"name\": \"x\", \"weight\": 0, \"scores\": {}}]}", &labels).is_err());
    }
}
