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

/// What one lens gave: its priority per item (numbered from 1), and what
/// could not be used — an omitted item or a bad entry costs that item only,
/// never the lens's other priorities.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Ballot {
    pub votes: BTreeMap<usize, PriorityVote>,
    /// One sentence per problem, for the transcript's warnings.
    pub problems: Vec<String>,
}

/// `[{"item": 1, "priority": "P0", "why": "..."}]`, for items 1..=n. An error
/// only when nothing usable is in the reply.
pub fn priorities(text: &str, n: usize) -> Result<Ballot, String> {
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
                crate::order::sort(&mut keys);
                keys.into_iter().find_map(|k| o[k].as_array())
            })
            .cloned()
            .ok_or("the JSON object holds no list")?,
        _ => return Err("the reply's JSON is not a list".into()),
    };
    let mut ballot = Ballot::default();
    for entry in &list {
        match vote(entry, n) {
            Ok(v) if ballot.votes.contains_key(&v.item) => {
                ballot.problems.push(format!("item {} was voted on twice; the first vote counts", v.item))
            }
            Ok(v) => {
                ballot.votes.insert(v.item, v);
            }
            Err(why) => ballot.problems.push(why),
        }
    }
    if ballot.votes.is_empty() {
        return Err(ballot.problems.first().cloned().unwrap_or_else(|| "the list of priorities is empty".into()));
    }
    let missing: Vec<String> = (1..=n).filter(|i| !ballot.votes.contains_key(i)).map(|i| i.to_string()).collect();
    if !missing.is_empty() {
        ballot
            .problems
            .push(format!("no priority for item(s) {}; they are ranked on the other lens alone", missing.join(", ")));
    }
    Ok(ballot)
}

fn vote(entry: &Value, n: usize) -> Result<PriorityVote, String> {
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
    Ok(PriorityVote { item, level, why: field_str(entry, "why") })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lens_keeps_every_usable_priority_and_names_the_rest() {
        let ok = "```json\n[{\"item\": 2, \"priority\": \"P1\", \"why\": \"b\"}, {\"item\": 1, \"priority\": \"p0\", \"why\": \"a\"}]\n```";
        let b = priorities(ok, 2).unwrap();
        assert_eq!((b.votes[&1].level, b.votes[&2].level), (0, 1));
        assert!(b.problems.is_empty());
        // Item 2 omitted: item 1's priority stays, the omission is named.
        let b = priorities("[{\"item\": 1, \"priority\": \"P0\"}]", 2).unwrap();
        assert_eq!(b.votes.keys().copied().collect::<Vec<_>>(), [1]);
        assert!(b.problems[0].contains("item(s) 2"), "{:?}", b.problems);
        let b = priorities("[{\"item\": 3, \"priority\": \"P0\"}, {\"item\": 1, \"priority\": \"P2\"}, {\"item\": 1, \"priority\": \"P0\"}]", 2).unwrap();
        assert_eq!(b.votes[&1].level, 2, "the first vote counts");
        assert!(b.problems.iter().any(|p| p.contains("does not exist")));
        assert!(b.problems.iter().any(|p| p.contains("twice")));
        assert!(priorities("[{\"item\": 1, \"priority\": \"P7\"}]", 1).unwrap_err().contains("P0–P3"));
        assert!(priorities("I think item 1 is urgent.", 1).is_err());
    }
}
