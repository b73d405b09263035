//! The lenses' replies: a JSON list of priorities, one per item.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::parse::{extract_json, field_str};

/// One lens's priority for one item (items numbered from 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriorityVote {
    pub item: usize,
    /// 0 for P0 (most urgent) to 3 for P3.
    pub level: u8,
    pub why: String,
}

/// `[{"item": 1, "priority": "P0", "why": "..."}]`, for items 1..=n. Every
/// item must be voted on exactly once.
pub fn priorities(text: &str, n: usize) -> Result<Vec<PriorityVote>, String> {
    let value = extract_json(text).ok_or("no JSON list of priorities in the reply")?;
    let list = match &value {
        Value::Array(a) => a.clone(),
        // The list under a conventional key, else under the first key in sorted order: never
        // "whichever the map happens to iterate first", which differs with serde_json's features.
        Value::Object(o) => ["priorities", "items", "votes", "ranking"]
            .iter()
            .find_map(|k| o.get(*k).and_then(Value::as_array))
            .or_else(|| {
                let mut keys: Vec<&String> = o.keys().collect();
                keys.sort_unstable();
                keys.into_iter().find_map(|k| o[k].as_array())
            })
            .cloned()
            .ok_or("the JSON object holds no list")?,
        _ => return Err("the reply's JSON is not a list".into()),
    };
    let mut votes: BTreeMap<usize, PriorityVote> = BTreeMap::new();
    for entry in &list {
        let item = match &entry["item"] {
            Value::Number(n) => n.as_u64().map(|n| n as usize),
            Value::String(s) => s.trim().trim_start_matches('#').parse().ok(),
            _ => None,
        }
        .ok_or_else(|| format!("an entry has no item number: {entry}"))?;
        if item == 0 || item > n {
            return Err(format!("item {item} does not exist (items are 1 to {n})"));
        }
        let p = field_str(entry, "priority").to_ascii_uppercase();
        let level = match p.trim_start_matches('P') {
            "0" => 0,
            "1" => 1,
            "2" => 2,
            "3" => 3,
            _ => return Err(format!("item {item}: priority '{p}' is not P0–P3")),
        };
        if votes.insert(item, PriorityVote { item, level, why: field_str(entry, "why") }).is_some() {
            return Err(format!("item {item} was voted on twice"));
        }
    }
    let missing: Vec<String> = (1..=n).filter(|i| !votes.contains_key(i)).map(|i| i.to_string()).collect();
    if !missing.is_empty() {
        return Err(format!("no priority for item(s) {}", missing.join(", ")));
    }
    Ok(votes.into_values().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priorities_need_every_item_once() {
        let ok = "```json\n[{\"item\": 2, \"priority\": \"P1\", \"why\": \"b\"}, {\"item\": 1, \"priority\": \"p0\", \"why\": \"a\"}]\n```";
        let votes = priorities(ok, 2).unwrap();
        assert_eq!((votes[0].item, votes[0].level, votes[1].level), (1, 0, 1));
        assert!(priorities("[{\"item\": 1, \"priority\": \"P0\"}]", 2).unwrap_err().contains("item(s) 2"));
        assert!(priorities("[{\"item\": 3, \"priority\": \"P0\"}]", 2).unwrap_err().contains("does not exist"));
        assert!(priorities("[{\"item\": 1, \"priority\": \"P7\"}]", 1).unwrap_err().contains("P0–P3"));
        assert!(priorities("I think item 1 is urgent.", 1).is_err());
    }
}
