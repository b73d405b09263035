//! The JSON a model writes as data inside its prose: a judge that closes its
//! synthesis with a fenced JSON block the protocol reads into its results.
//! Shown to people, the prose stands without it (the results show the data
//! as tables); kept whole in the transcript.

/// `text` without the JSON a model wrote as data: a reply that is JSON whole
/// is dropped, and so is every fenced block whose body is JSON. Any other
/// fenced block (code, a table) is kept as written, an unclosed one too.
pub fn without_data_blocks(text: &str) -> String {
    if is_json(text) {
        return String::new();
    }
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        match fenced(line, &mut lines) {
            Some(Fenced { body, .. }) if is_json(&body.join("\n")) => {}
            Some(Fenced { marker, body, closed }) => {
                out.push_str(line);
                out.push('\n');
                for inner in body {
                    out.push_str(inner);
                    out.push('\n');
                }
                if closed {
                    out.push_str(marker);
                    out.push('\n');
                }
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out.trim_end().to_string()
}

/// A fenced block: its marker, its body and whether its closing fence came.
pub struct Fenced<'a> {
    pub marker: &'a str,
    pub body: Vec<&'a str>,
    pub closed: bool,
}

/// The fenced block `line` opens (with ```` ``` ```` or `~~~`), if it opens
/// one, its body read from `lines` up to the closing fence.
pub fn fenced<'a>(line: &'a str, lines: &mut impl Iterator<Item = &'a str>) -> Option<Fenced<'a>> {
    let fence = line.trim_start();
    if !(fence.starts_with("```") || fence.starts_with("~~~")) {
        return None;
    }
    let marker = &fence[..3];
    let mut body = Vec::new();
    for inner in lines.by_ref() {
        if inner.trim_start().starts_with(marker) {
            return Some(Fenced { marker, body, closed: true });
        }
        body.push(inner);
    }
    Some(Fenced { marker, body, closed: false })
}

/// An object or a list, whole (what a model writes as data; a bare number or
/// string is prose).
fn is_json(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text.trim()).is_ok_and(|v| v.is_object() || v.is_array())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closing_json_block_goes_and_the_prose_and_code_stay() {
        let text =
            "## Competitive Review\n\nShip it.\n\n```rust\nfn main() {}\n```\n\n```json\n{\"concerns\": []}\n```\n";
        assert_eq!(without_data_blocks(text), "## Competitive Review\n\nShip it.\n\n```rust\nfn main() {}\n```");
        assert_eq!(without_data_blocks("{\"a\": 1}"), "");
        assert_eq!(without_data_blocks("42"), "42", "a number is prose");
        let unclosed = "Text.\n```json\n{\"a\": 1";
        assert_eq!(without_data_blocks(unclosed), unclosed, "not JSON whole: kept");
        assert_eq!(without_data_blocks("~~~\n[1, 2]\n~~~\nAfter."), "After.");
    }
}
