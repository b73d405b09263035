//! # agon-html: Markdown to HTML that is safe to put in a page
//!
//! One renderer for every page agon writes: the browser demo shows each
//! turn, the synthesis and the protocol's results through it, and
//! [`session_page`] builds the one-file page of a debate that the CLI's
//! `agon export --format html` writes and the browser page offers for
//! download. The text is untrusted (models wrote it), so:
//!
//! - raw HTML, block or inline, comes out as escaped text, never markup;
//! - a link is a link only when its destination is `http:`, `https:`,
//!   `mailto:` or relative; any other (`javascript:`, `data:`, `vbscript:`,
//!   a scheme hidden behind control characters…) leaves its text, plain;
//! - an image loads nothing: its alt text is shown, as a link to the image
//!   when the destination is one a link may have;
//! - every text and attribute is escaped by pulldown-cmark's HTML writer,
//!   and no element gets a `style` (tables are left unaligned), so a strict
//!   Content-Security-Policy has nothing to refuse.
//!
//! CommonMark with tables and strikethrough; no heading attributes, no
//! metadata blocks, no math, no task-list checkboxes.

mod page;

pub use page::{CSP, session_page};
use pulldown_cmark::{Alignment, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd, html};

/// `markdown` as an HTML fragment that can run nothing and load nothing.
pub fn markdown_to_html(markdown: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let parser = Parser::new_ext(markdown, options);
    // For each link or image opened, whether its closing tag is kept.
    let mut open: Vec<bool> = Vec::new();
    let events = parser.filter_map(move |event| match event {
        // Raw HTML is shown as what it is: text.
        Event::Html(raw) | Event::InlineHtml(raw) => Some(Event::Text(raw)),
        // An HTML block becomes a paragraph of that text.
        Event::Start(Tag::HtmlBlock) => Some(Event::Start(Tag::Paragraph)),
        Event::End(TagEnd::HtmlBlock) => Some(Event::End(TagEnd::Paragraph)),
        // Columns unaligned: alignment would be a style attribute, which a
        // page's Content-Security-Policy may rightly refuse.
        Event::Start(Tag::Table(columns)) => Some(Event::Start(Tag::Table(vec![Alignment::None; columns.len()]))),
        Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
            let keep = safe_destination(&dest_url);
            open.push(keep);
            keep.then_some(Event::Start(Tag::Link { link_type, dest_url, title, id }))
        }
        Event::Start(Tag::Image { dest_url, title, .. }) => {
            let keep = safe_destination(&dest_url);
            open.push(keep);
            keep.then_some(Event::Start(Tag::Link {
                link_type: LinkType::Inline,
                dest_url,
                title,
                id: CowStr::Borrowed(""),
            }))
        }
        Event::End(TagEnd::Link | TagEnd::Image) => open.pop().unwrap_or(false).then_some(Event::End(TagEnd::Link)),
        other => Some(other),
    });
    let mut out = String::with_capacity(markdown.len() * 3 / 2 + 16);
    html::push_html(&mut out, events);
    out
}

/// Whether a link may point at `destination`: `http:`, `https:`, `mailto:`,
/// or a relative reference (no scheme). Anything with whitespace or control
/// characters is refused outright: browsers drop some of them from URLs, so
/// `java\tscript:` would become a scheme this check never saw.
pub fn safe_destination(destination: &str) -> bool {
    if destination.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return false;
    }
    // A scheme is what comes before the first ':' when no '/', '?' or '#' comes first.
    match destination.find([':', '/', '?', '#']) {
        Some(i) if destination[i..].starts_with(':') => {
            let scheme = destination[..i].to_ascii_lowercase();
            matches!(scheme.as_str(), "http" | "https" | "mailto")
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tag in `html` is one this renderer writes itself, with no
    /// attribute but `href` (to a safe place) and `title`.
    fn assert_only_safe_tags(html: &str) {
        const ALLOWED: &[&str] = &[
            "p",
            "em",
            "strong",
            "del",
            "code",
            "pre",
            "blockquote",
            "ul",
            "ol",
            "li",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "hr",
            "br",
            "table",
            "thead",
            "tbody",
            "tr",
            "th",
            "td",
            "a",
        ];
        for tag in html.split('<').skip(1).map(|t| t.split('>').next().unwrap_or_default()) {
            let tag = tag.trim_start_matches('/');
            let name: String = tag.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
            assert!(ALLOWED.contains(&name.as_str()), "unexpected tag <{tag}> in {html}");
            let mut attributes = &tag[name.len()..];
            while let Some(eq) = attributes.find("=\"") {
                let attribute = attributes[..eq].trim();
                let value_end = attributes[eq + 2..].find('"').expect("quoted") + eq + 2;
                let value = &attributes[eq + 2..value_end];
                match attribute {
                    "href" => {
                        let lower = value.to_ascii_lowercase();
                        let scheme = lower.split_once(':').map(|(s, _)| s).filter(|s| !s.contains(['/', '?', '#']));
                        assert!(
                            matches!(scheme, None | Some("http" | "https" | "mailto")),
                            "href to {value} in {html}"
                        );
                    }
                    "title" => {}
                    other => panic!("attribute {other} in <{tag}> in {html}"),
                }
                attributes = &attributes[value_end + 1..];
            }
            assert!(attributes.trim().is_empty(), "stray attribute text {attributes:?} in <{tag}> in {html}");
        }
    }

    #[test]
    fn markdown_renders_as_markdown() {
        let html = markdown_to_html("# Title\n\nSome *emphasis* and **strong**, `code`.\n\n- one\n- two\n");
        assert_eq!(
            html,
            "<h1>Title</h1>\n<p>Some <em>emphasis</em> and <strong>strong</strong>, <code>code</code>.</p>\n\
<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n"
        );
        let table = markdown_to_html("| item | rank |\n|---|---:|\n| fix login | 1 |\n");
        assert!(table.contains("<table>") && table.contains("<td>fix login</td>"), "{table}");
        assert!(table.contains("<th>rank</th>") && !table.contains("style"), "no style attributes: {table}");
    }

    #[test]
    fn raw_html_comes_out_as_text() {
        let html = markdown_to_html("<script>alert(1)</script>\n\nHi <img src=x onerror=alert(1)> there.\n");
        assert_only_safe_tags(&html);
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{html}");
        assert!(html.contains("Hi &lt;img src=x onerror=alert(1)&gt; there."), "{html}");
        // A block that HTML parsers would keep open (<pre>, comments) is text as well.
        let html = markdown_to_html("<pre>\n<b>x</b>\n\nstill\n</pre>\n<!-- <script>x</script> -->\n");
        assert_only_safe_tags(&html);
        assert!(html.contains("&lt;b&gt;x&lt;/b&gt;") && html.contains("&lt;!-- &lt;script&gt;"), "{html}");
        let html = markdown_to_html("<svg onload=alert(1)><style>*{}</style><iframe src=//x>");
        assert_only_safe_tags(&html);
    }

    #[test]
    fn html_in_tables_and_lists_is_text_too() {
        let html = markdown_to_html(
            "| a | b |\n|---|---|\n| <script>x()</script> | <a href=\"javascript:x()\">y</a> |\n\n- <b onclick=x>bold?</b>\n",
        );
        assert_only_safe_tags(&html);
        assert!(html.contains("<td>&lt;script&gt;x()&lt;/script&gt;</td>"), "{html}");
        assert!(html.contains("&lt;a href=\"javascript:x()\"&gt;y&lt;/a&gt;"), "{html}");
    }

    #[test]
    fn only_safe_destinations_become_links() {
        let html = markdown_to_html("[ok](https://example.com/a?b=1&c=2) [mail](mailto:a@b.c) [rel](notes/x.md#y)");
        assert!(html.contains("<a href=\"https://example.com/a?b=1&amp;c=2\">ok</a>"), "{html}");
        assert!(
            html.contains("<a href=\"mailto:a@b.c\">mail</a>") && html.contains("<a href=\"notes/x.md#y\">rel</a>")
        );
        for hostile in [
            "[x](javascript:alert(1))",
            "[x](JaVaScRiPt:alert(1))",
            "[x](&#106;avascript:alert(1))",
            "[x](<java\tscript:alert(1)>)",
            "[x](data:text/html;base64,PHNjcmlwdD4=)",
            "[x](vbscript:msgbox)",
            "<javascript:alert(1)>",
            "[x][r]\n\n[r]: javascript:alert(1)",
            "[x](%6Aavascript:alert(1))\n",
        ] {
            let html = markdown_to_html(hostile);
            assert_only_safe_tags(&html);
            assert!(!html.contains("<a"), "{hostile}: {html}");
        }
        // The text of a refused link stays, plain.
        assert_eq!(markdown_to_html("[click *me*](javascript:alert(1))"), "<p>click <em>me</em></p>\n");
        // Quotes cannot break out of the attribute.
        let html = markdown_to_html("[q](https://x.y/\"onmouseover=\"alert(1) \"t\\\"itle\")");
        assert_only_safe_tags(&html);
    }

    #[test]
    fn images_load_nothing() {
        assert_eq!(
            markdown_to_html("![a chart](https://x.y/c.png)"),
            "<p><a href=\"https://x.y/c.png\">a chart</a></p>\n"
        );
        assert_eq!(markdown_to_html("![pixel](javascript:alert(1))"), "<p>pixel</p>\n");
        let html = markdown_to_html("[![inner](https://x.y/i.png)](javascript:x) ![<img src=x onerror=y>](z.png)");
        assert_only_safe_tags(&html);
        assert!(!html.contains("<img"));
    }

    #[test]
    fn the_checker_catches_what_it_must() {
        // The test's own guard fails on markup, or the tests above prove nothing.
        let caught = std::panic::catch_unwind(|| assert_only_safe_tags("<p><img src=x onerror=y></p>"));
        assert!(caught.is_err());
        let caught = std::panic::catch_unwind(|| assert_only_safe_tags("<a href=\"javascript:x\">y</a>"));
        assert!(caught.is_err());
    }
}
