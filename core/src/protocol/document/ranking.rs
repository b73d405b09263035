//! The ranking reader: a reply's list, after a marker such as
//! `FINAL RANKING:`, of the labels it was offered. Replies are untrusted:
//! unknown labels and repeats are skipped, and the work is linear in the
//! reply for a fixed set of labels, however long the reply.

use serde::{Deserialize, Serialize};

/// Read the reply as a ranking of the labels drawn for the other speakers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Ranking {
    /// The words that open the list, its last occurrence counting ("FINAL RANKING").
    pub marker: String,
}

impl Ranking {
    /// The labels the reply ranked, best first: from the list after the
    /// marker's last occurrence, else every label mentioned in the reply, in
    /// order. Only `offered` labels, each once; empty when none is named.
    pub fn read(&self, text: &str, offered: &[String]) -> Vec<String> {
        let section = text.rfind(self.marker.as_str()).map_or(text, |i| &text[i..]);
        let mut order = Vec::new();
        for line in section.lines() {
            push_labels(line, offered, &mut order);
        }
        if order.is_empty() {
            push_labels(text, offered, &mut order);
        }
        order
    }
}

/// Append the labels named in `s` in order of first appearance, skipping repeats.
fn push_labels(s: &str, offered: &[String], order: &mut Vec<String>) {
    let mut found: Vec<(usize, &String)> =
        offered.iter().filter(|l| !l.is_empty()).filter_map(|l| find_whole(s, l).map(|pos| (pos, l))).collect();
    crate::order::sort(&mut found);
    for (_, l) in found {
        if !order.contains(l) {
            order.push(l.clone());
        }
    }
}

/// Where `label` first stands in `s` on its own, not run into a letter or a
/// digit on either side: past 26 seats the labels go on with "Response AA",
/// which holds "Response A", and "Response Alpha" names no label at all.
fn find_whole(s: &str, label: &str) -> Option<usize> {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    s.match_indices(label)
        .map(|(at, _)| at)
        .find(|&at| !word(s[..at].chars().next_back()) && !word(s[at + label.len()..].chars().next()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader() -> Ranking {
        Ranking { marker: "FINAL RANKING".into() }
    }

    fn labels(l: &[&str]) -> Vec<String> {
        l.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn reads_the_final_list_then_falls_back_to_mentions() {
        let offered = labels(&["Response A", "Response B", "Response C"]);
        let text = "Response A is thin.\nFINAL RANKING:\n1. Response C\n2. Response A\n3. Response B";
        assert_eq!(reader().read(text, &offered), ["Response C", "Response A", "Response B"]);
        assert_eq!(reader().read("I prefer Response B over Response A.", &offered), ["Response B", "Response A"]);
    }

    #[test]
    fn junk_repeats_unknown_labels_and_the_own_label_are_left_out() {
        let offered = labels(&["Response A", "Response C"]);
        let text = "FINAL RANKING:\n1. Response Z\n2. Response C\n3. Response C\n4. Response B\n5. Response A";
        assert_eq!(reader().read(text, &offered), ["Response C", "Response A"]);
        assert!(reader().read("FINAL RANKING:\n\u{0}\u{fffd}{}[]", &offered).is_empty());
        assert!(reader().read("", &offered).is_empty());
        assert!(reader().read("Response A", &[]).is_empty());
        // The last marker counts: an earlier draft list is not the answer.
        let text =
            "FINAL RANKING: Response A, Response C\nOn reflection:\nFINAL RANKING:\n1. Response C\n2. Response A";
        assert_eq!(reader().read(text, &offered), ["Response C", "Response A"]);
    }

    #[test]
    fn a_label_is_read_only_where_it_stands_on_its_own() {
        // Past 26 seats: "Response AB" holds "Response A".
        let offered = labels(&["Response A", "Response AB", "Response B"]);
        let text = "FINAL RANKING:\n1. Response AB\n2. Response B\n3. Response A";
        assert_eq!(reader().read(text, &offered), ["Response AB", "Response B", "Response A"]);
        assert_eq!(reader().read("FINAL RANKING: Response AB.", &offered), ["Response AB"]);
        // A word that begins like a label is not one; the label later in the line still counts.
        let offered = labels(&["Response A", "Response B"]);
        let text = "FINAL RANKING:\n1. Response Alpha (Response B)\n2. Response A2\n3. (Response A)";
        assert_eq!(reader().read(text, &offered), ["Response B", "Response A"]);
    }

    #[test]
    fn a_megabyte_reply_is_read_in_one_pass() {
        let offered = labels(&["Response A", "Response B"]);
        let mut text = "Response B ".repeat(100_000);
        text.push_str("\nFINAL RANKING:\n1. Response A\n");
        text.push_str(&"x".repeat(1 << 20));
        assert_eq!(reader().read(&text, &offered), ["Response A"]);
        assert_eq!(reader().read(&"no labels here ".repeat(100_000), &offered), Vec::<String>::new());
        // Near misses all the way: each is looked at once.
        assert_eq!(reader().read(&"Response AA ".repeat(100_000), &offered), Vec::<String>::new());
    }
}
