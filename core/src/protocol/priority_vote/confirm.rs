//! Seed 001's confirmation step: items the lenses put two or more levels
//! apart are shown to a confirmer (typically the person: `human/you`) with
//! both justifications, who answers one line per item, `N: P1`. The reply is
//! read strictly: a line that is not exactly that form, or names an item not
//! asked about, confirms nothing; an item without a readable line stays
//! listed to confirm. Nothing is guessed.

use serde_json::{Value, json};

use crate::debate::Debate;
use crate::prompt_kit::{self, Prompt};

/// One item awaiting confirmation, as the `to_confirm` result lists it:
/// `{"item", "text", "urgency": {"priority", "why"}, "impact": {…}}`.
pub(crate) fn flagged(ranking: &Value) -> Vec<Value> {
    let rows = ranking.as_array().into_iter().flatten();
    rows.filter(|row| row["disagreement"].is_object())
        .map(|row| {
            let lens = |l: &str| json!({"priority": row["priorities"][l], "why": row["disagreement"][l]});
            json!({"item": row["item"], "text": row["text"], "urgency": lens("urgency"), "impact": lens("impact")})
        })
        .collect()
}

/// The confirmer's request: the split items with both lenses, then the answer's form.
pub(crate) fn prompt(debate: &Debate, items: &[Value]) -> Prompt {
    let mut list = String::new();
    for item in items {
        list.push_str(&format!("{}. {}\n", item["item"], item["text"].as_str().unwrap_or_default()));
        for lens in ["urgency", "impact"] {
            let (p, why) = (&item[lens]["priority"], item[lens]["why"].as_str().unwrap_or_default());
            // The lenses' words are model output: quoted, never instructions.
            list.push_str(&format!("{lens} lens: {}\n{}\n", p.as_str().unwrap_or("—"), prompt_kit::quoted(why)));
        }
        list.push('\n');
    }
    Prompt {
        system: "You confirm priorities. Two lenses, urgency and impact, gave each action item a priority, \
P0 (now), P1 (this week), P2 (this month) or P3 (later), and put the items below two or more levels apart. \
Give each of them one final priority.\n\n\
Answer with one line per item and nothing else: the item's number, a colon and the priority \
(N: P1 gives item N priority P1). An item you leave out stays unconfirmed."
            .into(),
        before: format!("{}\nITEMS THE LENSES SPLIT ON:\n{list}", prompt_kit::question(debate)),
        after: "Your final priorities, one line per item.".into(),
        ..Prompt::default()
    }
}

/// What a confirmer's reply confirms: (item, level: 0 for P0) in the order
/// written, and a sentence per line or item that confirmed nothing.
pub(crate) fn read(reply: &str, asked: &[usize]) -> (Vec<(usize, u8)>, Vec<String>) {
    let (mut levels, mut problems): (Vec<(usize, u8)>, _) = (Vec::new(), Vec::new());
    let mut conflicting: Vec<usize> = Vec::new();
    for line in reply.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let Some((item, level)) = line_of(line) else {
            problems.push(format!("the line '{}' is not 'N: P0' to 'N: P3'; it confirms nothing", clip(line)));
            continue;
        };
        if !asked.contains(&item) {
            problems.push(format!("item {item} was not asked to be confirmed; its line is left out"));
            continue;
        }
        match levels.iter().find(|(i, _)| *i == item) {
            Some(&(_, before)) if before != level => conflicting.push(item),
            Some(_) => {}
            None => levels.push((item, level)),
        }
    }
    for item in conflicting {
        levels.retain(|(i, _)| *i != item);
        problems.push(format!("item {item} was given two different priorities; it stays unconfirmed"));
    }
    (levels, problems)
}

/// `4: P1`, spaces around the colon allowed, `p` in either case; nothing else on the line.
fn line_of(line: &str) -> Option<(usize, u8)> {
    let (number, priority) = line.split_once(':')?;
    let number = number.trim();
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let level = match priority.trim().as_bytes() {
        [b'P' | b'p', d @ b'0'..=b'3'] => d - b'0',
        _ => return None,
    };
    Some((number.parse().ok()?, level))
}

/// A line as a warning quotes it: at most 60 characters.
fn clip(line: &str) -> String {
    match line.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_exact_lines_for_asked_items_confirm() {
        let reply = "2: P1\n 3 :p0 \n> 4: P0\n4: P3 because\nitem 5: P2\n9: P0\n\nSure, here you go.";
        let (levels, problems) = read(reply, &[2, 3, 4]);
        assert_eq!(levels, [(2, 1), (3, 0)]);
        // A quoted line, trailing words, a label, an item not asked about, prose: none confirm.
        assert_eq!(problems.len(), 5, "{problems:?}");
        assert!(problems.iter().any(|p| p.contains("item 9 was not asked")));
    }

    #[test]
    fn two_different_priorities_for_one_item_confirm_neither() {
        let (levels, problems) = read("2: P1\n2: P0\n3: P2\n3: P2", &[2, 3]);
        assert_eq!(levels, [(3, 2)]);
        assert!(problems[0].contains("item 2 was given two different priorities"), "{problems:?}");
    }

    #[test]
    fn an_empty_reply_confirms_nothing_and_says_nothing_wrong() {
        assert_eq!(read("", &[1]), (Vec::new(), Vec::new()));
        assert_eq!(read("1: P4\n1: P", &[1]).0, []);
    }
}
