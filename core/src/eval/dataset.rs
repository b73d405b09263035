//! An evaluation's dataset: JSONL, one item a line. A bad line is named with
//! its number and skipped; the rest still runs.

use serde::Deserialize;

use crate::answer::{AnswerSpec, Kind};

/// How an item's answer is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ItemKind {
    /// A number: `1,200`, `$1200.00` and `1200` are the same.
    Number,
    /// A letter among the item's `choices` (a choice's text counts as its letter).
    Choice,
    YesNo,
    /// Words, compared in lower case without surrounding punctuation or articles.
    Exact,
    /// The gold `answer` is a pattern (regex-lite syntax) the whole answer, as
    /// read for `exact`, must match, ignoring case: `(george )?orwell`.
    Regex,
}

impl ItemKind {
    /// The answer reader's kind; `Exact` reads any answer as written.
    pub fn answer_kind(self) -> Option<Kind> {
        match self {
            ItemKind::Number => Some(Kind::Number),
            ItemKind::Choice => Some(Kind::Choice),
            ItemKind::YesNo => Some(Kind::YesNo),
            ItemKind::Exact | ItemKind::Regex => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::Number => "number",
            ItemKind::Choice => "choice",
            ItemKind::YesNo => "yes-no",
            ItemKind::Exact => "exact",
            ItemKind::Regex => "regex",
        }
    }
}

/// One question with its gold answer.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Item {
    pub id: String,
    pub question: String,
    /// The gold answer, as the dataset gives it (a number, a letter, yes or no, words).
    pub answer: String,
    #[serde(default)]
    pub choices: Vec<String>,
    #[serde(default)]
    pub context: Option<String>,
    pub kind: ItemKind,
}

impl Item {
    /// The question as every arm asks it: the choices lettered below it.
    pub fn prompt(&self) -> String {
        let mut out = self.question.trim().to_string();
        for (i, c) in self.choices.iter().enumerate() {
            out.push_str(&format!("\n({}) {}", char::from(b'A' + i as u8), c.trim()));
        }
        out
    }

    /// The spec's `answer` for this item: its kind and choices.
    pub fn answer_spec(&self) -> AnswerSpec {
        AnswerSpec { kind: self.kind.answer_kind(), choices: self.choices.clone() }
    }

    /// The gold answer in the reader's canonical form (`None`: the dataset's
    /// own answer cannot be read as its kind — the line is refused). A regex
    /// item's gold is its pattern, as given.
    pub fn gold(&self) -> Option<String> {
        match self.kind {
            ItemKind::Regex => Some(self.answer.clone()),
            _ => match self.kind.answer_kind() {
                Some(kind) => crate::answer::normalise_as(&self.answer, kind, &self.choices),
                None => crate::answer::normalise(&self.answer, &[]),
            },
        }
    }

    /// What checks an answer (read by this item's answer rules) against the gold.
    pub fn checker(&self) -> Result<Checker, String> {
        match self.kind {
            // Checked alone first, so a pattern cannot close the anchoring group.
            ItemKind::Regex => regex_lite::Regex::new(&self.answer)
                .and_then(|_| {
                    regex_lite::RegexBuilder::new(&format!("^(?:{})$", self.answer)).case_insensitive(true).build()
                })
                .map(|r| Checker::Pattern(Box::new(r)))
                .map_err(|e| format!("its answer is not a valid pattern: {}", first_line(&e.to_string()))),
            _ => self.gold().map(Checker::Equal).ok_or_else(|| {
                format!("its answer '{}' cannot be read as a {} answer", self.answer, self.kind.as_str())
            }),
        }
    }
}

/// An item's gold answer, ready to check answers against.
#[derive(Debug, Clone)]
pub enum Checker {
    /// The canonical answer an answer must equal.
    Equal(String),
    /// The pattern the whole answer must match.
    Pattern(Box<regex_lite::Regex>),
}

impl Checker {
    /// Whether `answer` (an answer as read, or none: never right) is the gold.
    pub fn accepts(&self, answer: Option<&str>) -> bool {
        match (self, answer) {
            (_, None) => false,
            (Checker::Equal(gold), Some(a)) => a == gold,
            (Checker::Pattern(re), Some(a)) => re.is_match(a),
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines().find(|l| !l.trim().is_empty()).unwrap_or(text).trim()
}

/// The items of a dataset file, and a message for each line that is not one.
/// A byte-order mark before the first line is not part of it. Linear in the
/// file's size (ids are looked up in a set): a million items read in seconds.
pub fn read(text: &str) -> (Vec<Item>, Vec<String>) {
    let (mut items, mut problems): (Vec<Item>, Vec<String>) = (Vec::new(), Vec::new());
    let mut ids = std::collections::BTreeSet::new();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (n, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())) {
        if line.is_empty() {
            continue;
        }
        let item = match crate::json_read::parse(line)
            .map_err(|e| e.to_string())
            .and_then(|v| crate::json_read::read::<Item>(&v).map_err(|e| crate::spec::field_error("", e).to_string()))
        {
            Ok(item) => item,
            Err(why) => {
                problems.push(format!("line {n}: {}; skipped", why.trim_start_matches("invalid spec: ")));
                continue;
            }
        };
        let why = if item.id.trim().is_empty() {
            Some("`id` is empty".to_string())
        } else if ids.contains(&item.id) {
            Some(format!("id '{}' is given twice", item.id))
        } else if item.question.trim().is_empty() {
            Some("`question` is empty".to_string())
        } else if item.kind == ItemKind::Choice && !(2..=10).contains(&item.choices.len()) {
            Some(format!("a choice item needs 2 to 10 `choices`; it has {}", item.choices.len()))
        } else if item.kind != ItemKind::Choice && !item.choices.is_empty() {
            Some("`choices` are for kind 'choice'".to_string())
        } else {
            item.checker().err()
        };
        match why {
            Some(why) => problems.push(format!("line {n}: {why}; skipped")),
            None => {
                ids.insert(item.id.clone());
                items.push(item);
            }
        }
    }
    (items, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids are checked in a set: a quarter of a million items read at once
    /// (checked against every earlier id, they took minutes; a million, an hour).
    #[test]
    fn a_large_dataset_reads_in_linear_time() {
        let text: String = (0..250_000)
            .map(|i| {
                format!(
                    "{{\"id\": \"item-{i}\", \"question\": \"{i}+1?\", \"answer\": \"{}\", \"kind\": \"number\"}}\n",
                    i + 1
                )
            })
            .collect();
        let (done_tx, done) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = done_tx.send(read(&text));
        });
        // A hang guard, not a timing: linear, this is seconds in a debug build.
        let (items, problems) = done.recv_timeout(std::time::Duration::from_secs(120)).expect("read in time");
        assert_eq!((items.len(), problems.len()), (250_000, 0));
    }

    #[test]
    fn a_byte_order_mark_costs_no_item() {
        let (items, problems) =
            read("\u{feff}{\"id\": \"a\", \"question\": \"2+2?\", \"answer\": \"4\", \"kind\": \"number\"}\n");
        assert_eq!((items.len(), problems.len()), (1, 0), "{problems:?}");
    }

    #[test]
    fn good_lines_are_items_and_bad_ones_are_named_by_number() {
        let text = [
            r#"{"id": "a", "question": "2+2?", "answer": "4", "kind": "number"}"#,
            "not json",
            r#"{"id": "b", "question": "Pick", "answer": "B", "kind": "choice", "choices": ["x", "y"]}"#,
            r#"{"id": "a", "question": "again", "answer": "1", "kind": "number"}"#,
            r#"{"id": "c", "question": "q", "answer": "B", "kind": "choice", "choices": ["only"]}"#,
            r#"{"id": "d", "question": "q", "answer": "many", "kind": "number"}"#,
            r#"{"id": "e", "question": "q", "answer": "(1", "kind": "regex"}"#,
            "",
            r#"{"id": "f", "question": "Is it?", "answer": "Yes", "kind": "yes-no", "extra": 1}"#,
        ]
        .join("\n");
        let (items, problems) = read(&text);
        assert_eq!(items.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(problems.len(), 6, "{problems:#?}");
        for (p, line) in problems.iter().zip([2, 4, 5, 6, 7, 9]) {
            assert!(p.starts_with(&format!("line {line}: ")), "{p}");
        }
        assert!(problems[1].contains("given twice"), "{}", problems[1]);
        assert!(problems[3].contains("cannot be read as a number answer"), "{}", problems[3]);
        assert!(problems[4].contains("not a valid pattern"), "{}", problems[4]);
        assert!(problems[5].contains("extra"), "{}", problems[5]);
        assert_eq!(items[1].prompt(), "Pick\n(A) x\n(B) y");
        assert_eq!(items[0].gold().as_deref(), Some("4"));
    }

    #[test]
    fn a_pattern_must_match_the_whole_answer_in_any_case() {
        let line = r#"{"id": "o", "question": "Who wrote 1984?", "answer": "(george )?orwell", "kind": "regex"}"#;
        let (items, problems) = read(line);
        assert!(problems.is_empty(), "{problems:?}");
        let check = items[0].checker().unwrap();
        assert!(check.accepts(Some("orwell")));
        assert!(check.accepts(Some("George Orwell")));
        assert!(!check.accepts(Some("not orwell")), "the pattern is anchored at both ends");
        assert!(!check.accepts(Some("orwellian")));
        assert!(!check.accepts(None), "no answer is never right");
        let equal = Item { kind: ItemKind::Number, answer: "1,200".into(), ..items[0].clone() }.checker().unwrap();
        assert!(equal.accepts(Some("1200")) && !equal.accepts(Some("120")));
    }
}
