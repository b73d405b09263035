//! The page of a debate, as `agon export --format html` writes it and the
//! browser page offers it: golden pages for a few protocols, compared byte
//! for byte with `tests/html/<case>.html` (rewrite after an intended change
//! with `AGON_BLESS=1 cargo test -p agon-html --test page`, then look at
//! them in a browser), and what every golden transcript's page must hold.

// This test reads AGON_BLESS.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};

use agon_core::Transcript;
use agon_html::{CSP, session_page};
use sha2::{Digest, Sha256};

/// One of each shape: consensus checks and the stance map with a challenger;
/// a result table and its chart; a closing document; a degraded run; a
/// failed judge; a priced run.
const BLESSED: [&str; 6] = [
    "rotating-challenger-judge-overrules",
    "priority-vote-four-items",
    "challenge-tradeoff",
    "rotating-challenger-degraded",
    "round-robin-judge-failed",
    "round-robin-priced",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn transcript(case: &str) -> Transcript {
    let json = std::fs::read_to_string(root().join("tests/golden").join(case).join("transcript.json")).unwrap();
    serde_json::from_str(&json).unwrap()
}

/// The page every host builds for a transcript: the engine's results and pictures.
fn page_of(t: &Transcript) -> String {
    session_page(t, &agon_core::results_markdown(t), &agon_core::picture::pictures(t))
}

fn blessing() -> bool {
    std::env::var_os("AGON_BLESS").is_some_and(|v| v == "1")
}

#[test]
fn golden_pages_are_the_blessed_bytes() {
    let dir = root().join("tests/html");
    for case in BLESSED {
        let path = dir.join(format!("{case}.html"));
        let made = page_of(&transcript(case));
        if blessing() {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &made).unwrap();
        } else {
            let want = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(want == made, "{} differs; AGON_BLESS=1 cargo test -p agon-html --test page", path.display());
        }
    }
}

/// The text of every rendered reply (the turns and the synthesis) on `page`.
fn replies(page: &str) -> Vec<&str> {
    page.split("<div class=\"reply\">").skip(1).map(|rest| &rest[..rest.find("</div>").unwrap()]).collect()
}

/// `html` without what code spans and blocks hold: Markdown there is meant literally.
fn outside_code(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(start) = rest.find("<code>") {
        out.push_str(&rest[..start]);
        rest = rest[start..].split_once("</code>").map_or("", |(_, after)| after);
    }
    out.push_str(rest);
    out
}

#[test]
fn every_golden_page_renders_its_replies_and_puts_the_outcome_first() {
    let mut cases: Vec<String> = std::fs::read_dir(root().join("tests/golden"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    cases.sort();
    let mut markdown_seen = 0;
    for case in &cases {
        let t = transcript(case);
        let page = page_of(&t);
        // Rendered, never raw: no heading marks or bold stars survive in a reply.
        let rendered = replies(&page);
        assert_eq!(rendered.len(), t.turns.len() + usize::from(t.synthesis.is_some()) + final_positions(&t), "{case}");
        for reply in &rendered {
            let prose = outside_code(reply);
            assert!(!prose.contains("**") && !prose.contains("##"), "{case}: raw Markdown in {reply}");
        }
        let sources = t.turns.iter().map(|turn| &turn.text).chain(t.synthesis.iter().map(|s| &s.text));
        markdown_seen += sources.filter(|text| text.contains("**") || text.contains("\n#")).count();
        // The outcome, then the synthesis, before the rounds.
        let outcome = page.find("<section class=\"outcome").unwrap_or_else(|| panic!("{case}: no outcome"));
        let rounds = page.find("<section class=\"rounds\"").unwrap_or_else(|| panic!("{case}: no rounds"));
        assert!(outcome < rounds, "{case}: the outcome comes first");
        assert!(outcome < page.find("<article").unwrap(), "{case}");
        if let Some(synthesis) = page.find("<section class=\"synthesis\"") {
            assert!(outcome < synthesis && synthesis < rounds, "{case}: the synthesis before the rounds");
        }
        if let Some(results) = page.find("<section class=\"results\"") {
            assert!(results < rounds, "{case}: the results before the rounds");
        }
        let full = t.outcome.as_ref().is_some_and(|o| o.kind.is_full());
        assert_eq!(page.contains("<section class=\"outcome ok\""), full, "{case}: a run that fell short says so");
        // Usage as a table, never a dump of the JSON.
        assert!(page.contains("<h2 id=\"usage\">Usage and cost</h2>") && page.contains("<th>cached</th>"), "{case}");
        assert!(!page.contains("prompt_tokens") && !page.contains("\"seats\""), "{case}: no JSON");
        assert_self_contained(case, &page);
    }
    assert!(
        markdown_seen >= 20,
        "the golden replies use Markdown ({markdown_seen} do): the check above means something"
    );
}

/// Replies shown in place of a synthesis when the judge failed or the money ran out.
fn final_positions(t: &Transcript) -> usize {
    use agon_core::OutcomeKind::{CostLimit, JudgeFailed};
    match t.outcome.as_ref().map(|o| o.kind) {
        Some(JudgeFailed | CostLimit) if t.synthesis.is_none() => {
            t.participants.iter().filter(|p| t.turns.iter().any(|turn| turn.speaker == p.id)).count()
        }
        _ => 0,
    }
}

/// No script, nothing loaded, no style but the page's own, no handler, no
/// control character: whatever the models wrote.
fn assert_self_contained(case: &str, page: &str) {
    assert!(page.starts_with("<!doctype html>\n<html lang=\"en\">"), "{case}");
    assert!(page.contains(&format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">")), "{case}");
    assert!(page.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"), "{case}");
    // Every tag on the page is agon's own (text is escaped, so every `<` opens one).
    let tags: Vec<&str> = page.split('<').skip(1).map(|t| t.split('>').next().unwrap_or_default()).collect();
    let mut styles = 0;
    for tag in &tags {
        let name: String = tag.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '!').collect();
        let name = name.to_ascii_lowercase();
        assert!(
            !["script", "img", "iframe", "link", "object", "embed", "foreignobject", "base", "form", "meta"]
                .contains(&name.as_str())
                || (name == "meta" && !tag.contains("refresh")),
            "{case}: <{tag}>"
        );
        styles += usize::from(name == "style");
        let lower = tag.to_ascii_lowercase();
        for attribute in [" src=", " style=", " srcdoc=", " formaction=", " xlink:href="] {
            assert!(!lower.contains(attribute), "{case}: <{tag}>");
        }
        assert!(!lower.split_whitespace().any(|a| a.starts_with("on")), "{case}: a handler in <{tag}>");
    }
    assert_eq!(styles, 1, "{case}: the page's own style, once");
    assert!(!page.chars().any(|c| c.is_control() && c != '\n' && c != '\t'), "{case}: a control character");
    // Every link goes to the web or mail, nowhere else.
    for href in page.split(" href=\"").skip(1) {
        assert!(
            href.starts_with("http://") || href.starts_with("https://") || href.starts_with("mailto:"),
            "{case}: {href}"
        );
    }
}

#[test]
fn the_style_is_allowed_by_its_hash_and_nothing_else_is() {
    let page = page_of(&transcript("round-robin-priced"));
    let style = page.split("<style>").nth(1).unwrap().split("</style>").next().unwrap();
    let hash = base64(&Sha256::digest(style.as_bytes()));
    assert!(CSP.contains(&format!("style-src 'sha256-{hash}';")), "the style's hash is sha256-{hash}: put it in CSP");
    assert!(CSP.starts_with("default-src 'none';") && !CSP.contains("unsafe") && !CSP.contains("script-src"));
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn base64_is_the_standard_one() {
    // RFC 4648's test vectors: the hash check above is only as good as this.
    for (input, encoded) in [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foobar", "Zm9vYmFy")] {
        assert_eq!(base64(input.as_bytes()), encoded);
    }
}

/// A transcript whose every model- or user-written field is hostile.
fn hostile() -> Transcript {
    let evil = "<script>alert(1)</script><img src=x onerror=alert(2)>\u{1b}]52;c;eA==\u{7}\u{202e}";
    let mut t = transcript("round-robin-priced");
    t.question = format!("Ship {evil}?");
    t.context = Some(format!("context {evil}"));
    t.participants[0].name = format!("name {evil}");
    t.participants[0].model = format!("openai/{evil}");
    for turn in &mut t.turns {
        turn.text = format!(
            "## Plan\n\n**Yes** {evil} [x](javascript:alert(3)) ![p](https://x.y/p.png)\n\n<div onmouseover=\"a()\">hi</div>"
        );
    }
    if let Some(s) = &mut t.synthesis {
        s.text = format!("# Verdict\n\n{evil}");
    }
    t.usage.seats[0].model = format!("m{evil}");
    t
}

#[test]
fn nothing_a_model_or_a_user_wrote_becomes_markup() {
    let page = page_of(&hostile());
    assert_self_contained("hostile", &page);
    assert!(page.contains("<title>Ship &lt;script&gt;alert(1)&lt;/script&gt;"), "{page}");
    assert!(page.contains("&lt;img src=x onerror=alert(2)&gt;") && page.contains("&lt;div onmouseover="));
    // Control characters shown as a terminal shows them; a bidirectional override named.
    assert!(page.contains("^[]52;c;eA==^G[U+202E]"), "{page}");
    // The Markdown around it still renders.
    assert!(
        page.contains("<h2>Plan</h2>") && page.contains("<strong>Yes</strong>") && page.contains("<h1>Verdict</h1>")
    );
    assert!(page.contains("<a href=\"https://x.y/p.png\">p</a>"), "an image is a link, never loaded");
}

#[test]
fn a_run_that_fell_short_says_so_first_in_the_engine_s_words() {
    let t = transcript("rotating-challenger-degraded");
    let page = page_of(&t);
    let first = &page[page.find("<main>").unwrap()..];
    assert!(first.starts_with("<main>\n<section class=\"outcome bad\""), "{first}");
    assert!(first.contains("<h2 id=\"outcome\">Degraded: not every participant answered</h2>"), "{first}");
    assert!(page.contains("<h2 id=\"synthesis\">Synthesis of an incomplete debate</h2>"));
    let failure = &t.outcome.as_ref().unwrap().failures[0];
    assert!(page.contains(&format!("({} round {}): {}", failure.phase.as_str(), failure.round, failure.kind.as_str())));

    // The judge failed: each seat's last word instead, and the reader told to weigh them.
    let page = page_of(&transcript("round-robin-judge-failed"));
    assert!(page.contains("<h2 id=\"synthesis\">Final positions, side by side (no synthesis)</h2>"));
    assert!(page.contains("The judge failed: weigh these positions yourself."));

    // A journal that ends before the debate did.
    let mut t = transcript("round-robin-priced");
    t.outcome = None;
    let page = page_of(&t);
    let first = &page[page.find("<main>").unwrap()..];
    assert!(first.starts_with(
        "<main>\n<section class=\"outcome bad\" aria-labelledby=\"outcome\">\n<h2 id=\"outcome\">Unfinished</h2>"
    ));
}

#[test]
fn usage_is_a_table_and_a_partial_total_says_so() {
    let t = transcript("round-robin-priced");
    let page = page_of(&t);
    let usage = &page[page.find("<section class=\"usage\"").unwrap()..];
    let seat = &t.usage.seats[0];
    assert!(usage.contains(&format!(
        "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        seat.seat,
        seat.model,
        seat.calls,
        seat.prompt_tokens,
        seat.completion_tokens,
        seat.cached_tokens,
        seat.cost_micro_usd.unwrap().display()
    )));
    assert!(usage.contains("<tfoot><tr><th>total</th><td></td><td>7</td><td>1980</td><td>247</td><td>0</td><td>$0.00606</td></tr></tfoot>"), "{usage}");
    assert!(!usage.contains("partial"));

    // One seat unpriced: its row says so, and the total is partial, naming its model.
    let mut t = t;
    t.usage.seats[1].cost_micro_usd = None;
    let model = t.usage.seats[1].model.clone();
    t.usage.total.unpriced = vec![model.clone()];
    let page = page_of(&t);
    assert!(page.contains("<td>unpriced</td></tr>"));
    assert!(page.contains("<td>$0.00606 (partial)</td></tr></tfoot>"), "{page}");
    assert!(
        page.contains(&format!(
            "Partial: no price is known for <code>{model}</code>, so its calls are not in the total."
        ))
    );

    // Estimated tokens are marked.
    let page = page_of(&transcript("round-robin-judge-failed"));
    assert!(page.contains("<td>≈") && page.contains("≈ 2 call(s) came without reported usage"), "{page}");
}

#[test]
fn each_round_s_consensus_check_follows_it_once() {
    let t = transcript("rotating-challenger-judge-overrules");
    let page = page_of(&t);
    assert_eq!(page.matches("<div class=\"check\">").count(), t.consensus.len());
    assert!(page.contains("<strong>Consensus check, round 1</strong>"), "{page}");
    let challenger = page.find("<span class=\"tag\">challenger</span>").expect("the challenger is marked");
    assert!(challenger > page.find("<section class=\"rounds\"").unwrap());
    assert!(page.contains("<figure data-name=\"stance-map.svg\"><svg "), "the engine's stance map, inline");
}
