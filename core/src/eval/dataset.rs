//! An evaluation's dataset: JSONL, one item a line, or CSV with a header;
//! other tools' exports read through a field mapping. A bad line is named
//! with its number and skipped; the rest still runs. Fields agon does not
//! use are kept, for breakdowns by them.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub id: String,
    pub question: String,
    /// The gold answer, as the dataset gives it (a number, a letter, yes or no, words).
    pub answer: String,
    pub choices: Vec<String>,
    pub context: Option<String>,
    pub kind: ItemKind,
    /// Every other field of the line, as text (a subject, a difficulty, a
    /// source's own columns): kept for `--by FIELD` breakdowns.
    pub fields: BTreeMap<String, String>,
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
    /// item's gold is its pattern, as given. A number after `####` is the
    /// gold of a worked solution (GSM8K's form).
    pub fn gold(&self) -> Option<String> {
        let answer = match self.answer.rsplit_once("####") {
            Some((_, after)) if self.kind == ItemKind::Number => after,
            _ => self.answer.as_str(),
        };
        match self.kind {
            ItemKind::Regex => Some(self.answer.clone()),
            _ => match self.kind.answer_kind() {
                Some(kind) => crate::answer::normalise_as(answer, kind, &self.choices),
                None => crate::answer::normalise(answer, &[]),
            },
        }
    }

    /// What this item holds, as a digest: a result for another question,
    /// choices or context is another item's, whatever its id.
    pub fn digest(&self) -> String {
        let mut text = self.prompt();
        text.push('\u{0}');
        text.push_str(self.context.as_deref().unwrap_or(""));
        crate::sha256::hex(text.as_bytes())
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

    /// The item as a line of agon's own dataset form: every host reads it back the same.
    pub fn to_line(&self) -> String {
        let mut line = serde_json::Map::new();
        line.insert("id".into(), Value::from(self.id.as_str()));
        line.insert("question".into(), Value::from(self.question.as_str()));
        line.insert("answer".into(), Value::from(self.answer.as_str()));
        line.insert("kind".into(), Value::from(self.kind.as_str()));
        if !self.choices.is_empty() {
            line.insert("choices".into(), Value::from(self.choices.clone()));
        }
        if let Some(c) = &self.context {
            line.insert("context".into(), Value::from(c.as_str()));
        }
        for (k, v) in &self.fields {
            line.insert(k.clone(), Value::from(v.as_str()));
        }
        crate::order::canonical(Value::Object(line)).to_string()
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

/// How a dataset file is read: JSONL (agon's form, or any export with the
/// fields renamed) or CSV with a header row.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Format {
    /// CSV with a header row, instead of JSONL.
    pub csv: bool,
    /// Where each of agon's fields is in the file: `question = "problem"`,
    /// `choices = "A,B,C,D"` (several columns, in letter order).
    pub fields: BTreeMap<String, String>,
    /// The kind of every item whose line does not say.
    pub kind: Option<ItemKind>,
}

/// agon's own fields, which a format may map.
pub const FIELDS: [&str; 6] = ["id", "question", "answer", "kind", "choices", "context"];

/// The items of a dataset file in agon's own JSONL form, and a message for
/// each line that is not one. A byte-order mark before the first line is not
/// part of it. Linear in the file's size (ids are looked up in a set).
pub fn read(text: &str) -> (Vec<Item>, Vec<String>) {
    read_as(text, &Format::default()).unwrap_or_else(|e| (Vec::new(), vec![e]))
}

/// The items of a dataset file read as `format` says; `Err` when the format
/// itself is wrong (a field that is not agon's, a CSV without a header).
/// A line without an id is named by its number (`line-7`).
pub fn read_as(text: &str, format: &Format) -> Result<(Vec<Item>, Vec<String>), String> {
    if let Some(bad) = format.fields.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(format!("--field {bad}: not one of agon's fields ({})", FIELDS.join(", ")));
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rows: Vec<Row> = if format.csv { csv_rows(text)? } else { json_rows(text) };
    let (mut items, mut problems): (Vec<Item>, Vec<String>) = (Vec::new(), Vec::new());
    let mut ids = std::collections::BTreeSet::new();
    for (n, row) in rows {
        let item = row.and_then(|row| item_of(row, n, format));
        let item = match item {
            Ok(item) => item,
            Err(why) => {
                problems.push(format!("line {n}: {why}; skipped"));
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
    Ok((items, problems))
}

/// A line's number and its fields, or why it has none.
type Row = (usize, Result<serde_json::Map<String, Value>, String>);

fn json_rows(text: &str) -> Vec<Row> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty())
        .map(|(n, line)| {
            let row = match crate::json_read::parse(line) {
                Ok(Value::Object(o)) => Ok(o),
                Ok(_) => Err("not a JSON object".to_string()),
                Err(e) => Err(e.to_string()),
            };
            (n, row)
        })
        .collect()
}

/// CSV (RFC 4180: quoted fields, `""` inside quotes, line breaks inside
/// quotes) with a header row; each row an object of its columns, by line number.
fn csv_rows(text: &str) -> Result<Vec<Row>, String> {
    let mut records: Vec<(usize, Vec<String>)> = Vec::new();
    let (mut field, mut record) = (String::new(), Vec::new());
    let (mut quoted, mut line, mut started) = (false, 1usize, 1usize);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                records.push((started, std::mem::take(&mut record)));
                line += 1;
                started = line;
            }
            (_, c) => {
                if c == '\n' {
                    line += 1;
                }
                field.push(c);
            }
        }
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push((started, record));
    }
    records.retain(|(_, r)| !(r.len() == 1 && r[0].trim().is_empty()));
    let Some((_, header)) = records.first().cloned() else { return Err("the CSV file is empty".to_string()) };
    Ok(records
        .into_iter()
        .skip(1)
        .map(|(n, r)| {
            let row = if r.len() != header.len() {
                Err(format!("{} columns where the header has {}", r.len(), header.len()))
            } else {
                Ok(header.iter().cloned().zip(r.into_iter().map(Value::from)).collect())
            };
            (n, row)
        })
        .collect())
}

/// One row as an item: agon's fields where the format says they are, the rest kept as fields.
fn item_of(mut row: serde_json::Map<String, Value>, line: usize, format: &Format) -> Result<Item, String> {
    let source = |field: &str| format.fields.get(field).map_or(field.to_string(), Clone::clone);
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    };
    let mut take = |field: &str| -> Option<Value> { row.remove(&source(field)) };
    let id = match take("id") {
        Some(v) => text(&v).ok_or("`id` must be text or a number")?,
        None => format!("line-{line}"),
    };
    let question = take("question").ok_or_else(|| format!("no `{}` field", source("question")))?;
    let question = text(&question).ok_or_else(|| format!("`{}` must be text", source("question")))?;
    let kind = match take("kind") {
        Some(v) => {
            let name = text(&v).unwrap_or_default();
            crate::json_read::read::<ItemKind>(&Value::from(name.as_str()))
                .map_err(|_| format!("`kind` '{name}' is not number, choice, yes-no, exact or regex"))?
        }
        None => format.kind.ok_or("no `kind`: give it in each line, or for all of them (--kind)")?,
    };
    // Several columns named for the choices ("A,B,C,D"), or one field holding a list.
    let choices: Vec<String> = match format.fields.get("choices").filter(|f| f.contains(',')) {
        Some(columns) => columns
            .split(',')
            .map(|c| {
                row.remove(c.trim()).as_ref().and_then(text).ok_or_else(|| format!("no choice column `{}`", c.trim()))
            })
            .collect::<Result<_, _>>()?,
        None => match row.remove(&source("choices")) {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(all)) => {
                all.iter().map(|c| text(c).ok_or("`choices` must be a list of texts")).collect::<Result<_, _>>()?
            }
            Some(_) => return Err("`choices` must be a list of texts".to_string()),
        },
    };
    let answer = row.remove(&source("answer")).ok_or_else(|| format!("no `{}` field", source("answer")))?;
    // A choice's answer as a number is its index, A being 0 (Hugging Face's MMLU).
    let answer = match (&answer, kind) {
        (Value::Number(n), ItemKind::Choice) => {
            let i = n.as_u64().filter(|i| (*i as usize) < choices.len().min(10)).ok_or_else(|| {
                format!("`answer` {n} is not the index of one of the {} choices (0 is A)", choices.len())
            })?;
            char::from(b'A' + i as u8).to_string()
        }
        (v, _) => text(v).ok_or_else(|| format!("`{}` must be text or a number", source("answer")))?,
    };
    let context = match row.remove(&source("context")) {
        None | Some(Value::Null) => None,
        Some(v) => Some(text(&v).ok_or("`context` must be text")?),
    };
    let fields = row.iter().filter_map(|(k, v)| Some((k.clone(), text(v)?))).collect();
    Ok(Item { id, question, answer, choices, context, kind, fields })
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
        // A field agon does not use is kept, not refused.
        assert_eq!(items.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(), ["a", "b", "f"]);
        assert_eq!(items[2].fields.get("extra").map(String::as_str), Some("1"));
        assert_eq!(problems.len(), 5, "{problems:#?}");
        for (p, line) in problems.iter().zip([2, 4, 5, 6, 7]) {
            assert!(p.starts_with(&format!("line {line}: ")), "{p}");
        }
        assert!(problems[1].contains("given twice"), "{}", problems[1]);
        assert!(problems[3].contains("cannot be read as a number answer"), "{}", problems[3]);
        assert!(problems[4].contains("not a valid pattern"), "{}", problems[4]);
        assert_eq!(items[1].prompt(), "Pick\n(A) x\n(B) y");
        assert_eq!(items[0].gold().as_deref(), Some("4"));
    }

    #[test]
    fn hugging_face_exports_load_as_they_are_given_the_kind() {
        // GSM8K: no id, a worked solution ending "#### 72".
        let gsm = r#"{"question": "Natalia sold 48 clips…", "answer": "She sold 48/2 = <<48/2=24>>24.\n#### 72"}"#;
        let number = Format { kind: Some(ItemKind::Number), ..Format::default() };
        let (items, problems) = read_as(gsm, &number).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!((items[0].id.as_str(), items[0].gold().as_deref()), ("line-1", Some("72")));
        // MMLU: the answer is the choice's index, A being 0; `subject` is kept.
        let mmlu = r#"{"question": "2 + 2?", "subject": "arithmetic", "choices": ["3", "4", "5", "6"], "answer": 1}"#;
        let choice = Format { kind: Some(ItemKind::Choice), ..Format::default() };
        let (items, _) = read_as(mmlu, &choice).unwrap();
        assert_eq!(items[0].gold().as_deref(), Some("B"));
        assert_eq!(items[0].fields.get("subject").map(String::as_str), Some("arithmetic"));
        let (_, problems) = read_as(&mmlu.replace("\"answer\": 1", "\"answer\": 7"), &choice).unwrap();
        assert!(problems[0].contains("not the index of one of the 4 choices"), "{problems:?}");
        // Without a kind anywhere: named.
        let (_, problems) = read_as(mmlu, &Format::default()).unwrap();
        assert!(problems[0].contains("no `kind`"), "{problems:?}");
    }

    #[test]
    fn csv_with_a_header_and_renamed_fields() {
        let csv = "item,prompt,A,B,answer,subject\n\
                   q1,\"Pick the \"\"second\"\",\nplease\",first,second,B,misc\n\
                   q2,Short,x,y,A\n";
        let format = Format {
            csv: true,
            fields: [("id", "item"), ("question", "prompt"), ("choices", "A,B")]
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .into(),
            kind: Some(ItemKind::Choice),
        };
        let (items, problems) = read_as(csv, &format).unwrap();
        assert_eq!(items.len(), 1, "{problems:?}");
        assert_eq!(items[0].question, "Pick the \"second\",\nplease");
        assert_eq!(items[0].choices, ["first", "second"]);
        assert_eq!(items[0].fields.get("subject").map(String::as_str), Some("misc"));
        // The short row is named by the line it starts on.
        assert!(problems[0].starts_with("line 4: 5 columns where the header has 6"), "{problems:?}");
        let bad = Format { fields: [("topic".to_string(), "x".to_string())].into(), ..Format::default() };
        assert!(read_as("", &bad).unwrap_err().contains("--field topic"));
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
