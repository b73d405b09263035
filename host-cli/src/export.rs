//! A session as one self-contained HTML page, for sharing: inline CSS, no
//! scripts, no external assets. Every model-written string is escaped (the
//! text is untrusted), and shown as preformatted text, so a reply can neither
//! inject markup nor lose its own formatting. A strict Content-Security-Policy
//! says the same to the browser: should anything ever slip through the
//! escaping, the page still runs no script, loads nothing and sends nothing.
//! Control characters are shown, as on a terminal (the page is text too).
//!
//! Built from the transcript JSON (its documented shape), so it renders any
//! protocol's transcript: turns by round and phase, each seat in its own
//! colour with the challenger marked, failures and the outcome said plainly,
//! the synthesis and consensus checks. The protocol's named results come as
//! the engine renders them in Markdown (`results-markdown`: rankings and
//! scorecards as tables, reviews under headings), turned into HTML by
//! agon-html, the renderer the browser page uses too: raw HTML in it stays
//! text, links go only to http(s), mailto or relative places, images load
//! nothing.

use std::fmt::Write;

use serde_json::Value;

use crate::sanitize;

/// Nothing but the page's own inline style: no script, no fetch, no frame, no form.
pub const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Seat colours: distinct hues that keep dark text readable.
const PALETTE: [&str; 8] = ["#dbeafe", "#dcfce7", "#fef3c7", "#fce7f3", "#e0e7ff", "#ccfbf1", "#fee2e2", "#ede9fe"];

pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if agon_core::hidden::is_hidden(c) => {
                out.push_str(&agon_core::hidden::reveal(c.encode_utf8(&mut [0; 4])))
            }
            c => out.push(c),
        }
    }
    out
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or_default()
}

/// The page for a transcript; `results` is its named results as the engine
/// renders them in Markdown (empty when there are none), `pictures` the
/// engine's SVG pictures of it (file name, SVG), shown inline as they are:
/// the engine escaped every model-written text in them.
pub fn html(t: &Value, results: &str, pictures: &[(String, String)]) -> String {
    let mut seats: Vec<&str> = t["participants"].as_array().into_iter().flatten().map(|p| str_of(p, "id")).collect();
    if let Some(j) = t["judge"].as_object() {
        seats.push(j.get("id").and_then(Value::as_str).unwrap_or("judge"));
    }
    let colour =
        |speaker: &str| seats.iter().position(|s| *s == speaker).map_or("#f3f4f6", |i| PALETTE[i % PALETTE.len()]);
    let outcome = &t["outcome"];
    let kind = str_of(outcome, "kind");
    let healthy = matches!(kind, "completed" | "consensus");

    let mut h = String::new();
    let _ = write!(
        h,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>agon · {}</title><style>{CSS}</style></head><body>\n",
        escape(str_of(t, "question"))
    );
    let _ = write!(
        h,
        "<header><p class=\"meta\">agon · {} · seed {}</p><h1>{}</h1>",
        escape(str_of(t, "protocol")),
        t["seed"],
        escape(str_of(t, "question"))
    );
    if let Some(context) = t["context"].as_str() {
        let _ = write!(h, "<pre class=\"context\">{}</pre>", escape(context));
    }
    // The files the speakers read: path, size, hash (their text is in the session's spec).
    if let Some(files) = t["files"].as_array().filter(|f| !f.is_empty()) {
        h.push_str("<ul class=\"files\">");
        for f in files {
            let _ = write!(
                h,
                "<li><code>{}</code> · {} bytes · <code>{}</code></li>",
                escape(str_of(f, "path")),
                f["bytes"],
                escape(str_of(f, "sha256"))
            );
        }
        h.push_str("</ul>");
    }
    h.push_str("<ul class=\"panel\">");
    for p in t["participants"].as_array().into_iter().flatten() {
        let id = str_of(p, "id");
        let _ = write!(
            h,
            "<li style=\"background:{}\"><b>{}</b> {}</li>",
            colour(id),
            escape(id),
            escape(str_of(p, "model"))
        );
    }
    if let Some(j) = t["judge"].as_object() {
        let id = j.get("id").and_then(Value::as_str).unwrap_or("judge");
        let model = j.get("model").and_then(Value::as_str).unwrap_or_default();
        let _ = write!(h, "<li style=\"background:{}\"><b>judge</b> {}</li>", colour(id), escape(model));
    }
    h.push_str("</ul></header>\n");

    // The outcome first when something went wrong: nobody should read a partial run as a full one.
    let outcome_box = format!(
        "<section class=\"outcome {}\"><h2>Outcome: {}</h2><p>{}</p>{}</section>\n",
        if healthy { "ok" } else { "bad" },
        // The engine's words; a transcript from before it wrote them has the kind.
        escape(outcome.get("headline").and_then(Value::as_str).unwrap_or(kind)),
        escape(str_of(outcome, "reason")),
        failures(outcome)
    );
    if !healthy {
        h.push_str(&outcome_box);
    }

    let mut last_heading = String::new();
    for turn in t["turns"].as_array().into_iter().flatten() {
        let heading = match str_of(turn, "phase") {
            "blind" => "Blind answers".to_string(),
            phase => format!("Round {} · {phase}", turn["round"]),
        };
        if heading != last_heading {
            let _ = writeln!(h, "<h2 class=\"round\">{}</h2>", escape(&heading));
            last_heading = heading;
        }
        let speaker = str_of(turn, "speaker");
        let challenger = turn["challenger"].as_bool() == Some(true);
        let _ = writeln!(
            h,
            "<article class=\"turn{}\" style=\"background:{}\"><p class=\"who\"><b>{}</b> {}{}</p><pre>{}</pre></article>",
            if challenger { " challenger" } else { "" },
            colour(speaker),
            escape(speaker),
            escape(str_of(turn, "model")),
            if challenger { " <span class=\"tag\">challenger</span>" } else { "" },
            escape(str_of(turn, "text"))
        );
    }

    if let Some(checks) = t["consensus"].as_array().filter(|c| !c.is_empty()) {
        h.push_str("<h2>Consensus checks</h2><ul class=\"checks\">");
        for c in checks {
            let judged = c["judge"].is_object();
            let verdict = match (c["reached"].as_bool() == Some(true), judged) {
                (true, true) => "reached, confirmed by the judge",
                (false, true) => "not reached: the reader saw agreement, the judge did not confirm it",
                (true, false) => "reached",
                (false, false) => "not reached",
            };
            let _ = write!(
                h,
                "<li>round {} ({} mode): {verdict} — {}<ul>",
                c["round"],
                escape(str_of(c, "mode")),
                escape(str_of(c, "reason"))
            );
            for s in c["seats"].as_array().into_iter().flatten() {
                let quote = s["evidence"]["quote"].as_str().map(|q| format!(" — “{}”", escape(q))).unwrap_or_default();
                let _ = write!(
                    h,
                    "<li>{}: {} ({}){quote}</li>",
                    escape(str_of(s, "seat")),
                    escape(&str_of(s, "verdict").replace('-', " ")),
                    escape(str_of(s, "source"))
                );
            }
            let _ = write!(h, "</ul><p class=\"rule\">Rule: {}.</p></li>", escape(str_of(c, "rule")));
        }
        h.push_str("</ul>\n");
    }

    for (key, title) in [("warnings", "Warnings"), ("choices", "Seeded choices"), ("summaries", "Summaries")] {
        if let Some(items) = t[key].as_array().filter(|i| !i.is_empty()) {
            let _ = writeln!(
                h,
                "<h2>{title}</h2><pre class=\"data\">{}</pre>",
                escape(&pretty(&Value::Array(items.clone())))
            );
        }
    }

    match t["synthesis"].as_object() {
        Some(s) if healthy || kind == "degraded" => {
            let title = outcome.get("synthesis_heading").and_then(Value::as_str).unwrap_or(if healthy {
                "Synthesis"
            } else {
                "Synthesis of an incomplete debate"
            });
            let _ = writeln!(
                h,
                "<section class=\"synthesis\"><h2>{title}</h2><p class=\"who\">{}</p><pre>{}</pre></section>",
                escape(s.get("model").and_then(Value::as_str).unwrap_or_default()),
                escape(s.get("text").and_then(Value::as_str).unwrap_or_default())
            );
        }
        _ => {}
    }

    if !results.trim().is_empty() {
        let _ = writeln!(
            h,
            "<section class=\"results\"><h2>Results</h2>\n{}</section>",
            agon_html::markdown_to_html(results)
        );
    }
    if !pictures.is_empty() {
        h.push_str("<section class=\"pictures\"><h2>Pictures</h2>\n");
        for (name, svg) in pictures {
            let _ = writeln!(h, "<figure data-name=\"{}\">{svg}</figure>", escape(name));
        }
        h.push_str("</section>\n");
    }
    if let Some(usage) = t.get("usage") {
        let _ = writeln!(h, "<h2>Usage and cost</h2><pre class=\"data\">{}</pre>", escape(&pretty(usage)));
    }

    if healthy {
        h.push_str(&outcome_box);
    }
    h.push_str("<footer>Exported by agon. Model text is shown as written, escaped.</footer></body></html>\n");
    sanitize::terminal(&h).into_owned()
}

fn failures(outcome: &Value) -> String {
    let list: Vec<String> = outcome["failures"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            format!(
                "<li><b>{}</b> ({}, round {}): {} — {}</li>",
                escape(str_of(f, "speaker")),
                escape(str_of(f, "phase")),
                f["round"],
                escape(str_of(f, "kind")),
                escape(str_of(f, "message"))
            )
        })
        .collect();
    if list.is_empty() { String::new() } else { format!("<ul class=\"failures\">{}</ul>", list.concat()) }
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

const CSS: &str = "body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#111}\
h1{font-size:1.5rem;margin:.2rem 0}.meta{color:#555;margin:0}.panel{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.5rem}\
.panel li{padding:.2rem .6rem;border-radius:.4rem}h2.round{border-bottom:1px solid #ddd;font-size:1.1rem;margin-top:2rem}\
.turn{border-radius:.5rem;padding:.5rem .9rem;margin:.8rem 0}.turn.challenger{border-left:6px solid #b91c1c}\
.tag{background:#b91c1c;color:#fff;border-radius:.3rem;padding:0 .4rem;font-size:.8rem}.who{margin:.2rem 0;color:#333}\
pre{white-space:pre-wrap;word-wrap:break-word;font:inherit;margin:.3rem 0}pre.data,pre.context{font:13px/1.4 ui-monospace,monospace;background:#f9fafb;padding:.5rem}\
.synthesis{border:2px solid #111;border-radius:.5rem;padding:.5rem .9rem;margin-top:2rem}\
.outcome{border-radius:.5rem;padding:.5rem .9rem;margin:1rem 0}.outcome.ok{background:#ecfdf5}.outcome.bad{background:#fef2f2;border:2px solid #b91c1c}\
.results table{border-collapse:collapse;margin:.5rem 0}.results th,.results td{border:1px solid #ccc;padding:.2rem .5rem;text-align:left;vertical-align:top}\
.results blockquote{margin:.3rem 0;padding-left:.7rem;border-left:3px solid #ccc;color:#333}\
figure{margin:1rem 0;max-width:40rem}figure svg{display:block;height:auto}\
footer{color:#777;font-size:.8rem;margin-top:3rem}";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn transcript(kind: &str, reply: &str) -> Value {
        json!({
            "version": 1, "protocol": "rotating-challenger", "question": "Ship <it>?", "seed": 0,
            "participants": [{"id": "a", "name": "A", "model": "openai/a"}, {"id": "b", "name": "B", "model": "openai/b"}],
            "judge": {"id": "judge", "name": "Judge", "model": "openai/j"},
            "turns": [
                {"round": 1, "phase": "blind", "speaker": "a", "model": "openai/a", "challenger": false, "text": reply},
                {"round": 2, "phase": "deliberation", "speaker": "b", "model": "openai/b", "challenger": true, "text": "I object."}
            ],
            "synthesis": {"speaker": "judge", "model": "openai/j", "text": "Ship it."},
            "outcome": {"kind": kind, "reason": "the reason", "rounds_run": 2,
                "failures": if kind == "degraded" { json!([{"speaker": "c", "round": 1, "phase": "blind", "kind": "timeout", "message": "no answer"}]) } else { json!([]) }},
            "ranking": [{"seat": "a"}]
        })
    }

    #[test]
    fn model_text_cannot_inject_markup() {
        let page = html(&transcript("completed", "<script>alert('x')</script> & \"quoted\""), "", &[]);
        assert!(!page.contains("<script>"), "a reply's script tag must come out inert");
        assert!(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot;"));
        assert!(page.contains("<title>agon · Ship &lt;it&gt;?</title>"));
        // Self-contained: no external assets, no scripts of our own.
        assert!(!page.contains("src=") && !page.contains("href=") && !page.contains("<script"));
        // And the browser is told so: no script runs, nothing loads.
        let head = &page[..page.find("</head>").unwrap()];
        assert!(head.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"), "{head}");
        assert!(!CSP.contains("script-src"), "default-src 'none' covers scripts");
        let page = html(&transcript("completed", "\u{1b}]52;c;eA==\u{7}"), "", &[]);
        assert!(page.contains("^[]52;c;eA==^G") && !page.contains('\u{1b}'));
    }

    #[test]
    fn rounds_seats_and_the_challenger_are_marked() {
        let page = html(&transcript("completed", "Yes."), RESULTS, &[]);
        assert!(page.contains("<h2 class=\"round\">Blind answers</h2>"));
        assert!(page.contains("<h2 class=\"round\">Round 2 · deliberation</h2>"));
        assert!(page.contains("class=\"turn challenger\" style=\"background:#dcfce7\""), "b's colour, marked");
        assert!(page.contains("class=\"turn\" style=\"background:#dbeafe\""), "a's colour");
        assert!(page.contains("<h2>Synthesis</h2>"));
        assert!(page.contains("<h3>Aggregate ranking</h3>"), "named results are shown: {page}");
    }

    /// The engine's rendering of a result, with a model's hostile text in a cell.
    const RESULTS: &str = "### Aggregate ranking\n\n| rank | seat | points |\n|---|---|---|\n\
| 1 | a | 4 |\n| 2 | b \\<img src=x onerror=alert(1)> | 2 |\n\n> [why](javascript:alert(1)) <script>x()</script>\n";

    #[test]
    fn results_are_tables_never_json_and_never_markup() {
        let page = html(&transcript("completed", "Yes."), RESULTS, &[]);
        let results = &page[page.find("<h2>Results</h2>").expect("a results section")..];
        assert!(
            results.contains("<table>") && results.contains("<tr><td>1</td><td>a</td><td>4</td></tr>"),
            "{results}"
        );
        assert!(results.contains("&lt;img src=x onerror=alert(1)&gt;"), "{results}");
        assert!(results.contains("&lt;script&gt;x()&lt;/script&gt;") && !results.contains("javascript:"), "{results}");
        assert!(!page.contains("<img") && !page.contains("<script") && !page.contains("href="));
        assert!(!page.contains("\"ranking\""), "no JSON dump of the data");
        // No results, no section.
        assert!(!html(&transcript("completed", "Yes."), "\n", &[]).contains("<h2>Results</h2>"));
    }

    #[test]
    fn the_engine_pictures_are_shown_inline_and_only_when_there_are_some() {
        let svg = "<svg role=\"img\"><title>Stance map</title></svg>".to_string();
        let page = html(&transcript("completed", "Yes."), "", &[("stance-map.svg".into(), svg.clone())]);
        let pictures = &page[page.find("<h2>Pictures</h2>").expect("a pictures section")..];
        assert!(pictures.contains(&format!("<figure data-name=\"stance-map.svg\">{svg}</figure>")), "{pictures}");
        assert!(!html(&transcript("completed", "Yes."), "", &[]).contains("<h2>Pictures</h2>"));
    }

    #[test]
    fn a_degraded_run_says_so_first_and_never_under_the_normal_heading() {
        let page = html(&transcript("degraded", "Yes."), "", &[]);
        let outcome = page.find("Outcome: degraded").unwrap();
        assert!(outcome < page.find("Blind answers").unwrap(), "the outcome comes before the turns");
        assert!(page.contains("<b>c</b> (blind, round 1): timeout — no answer"));
        // A transcript from before the engine wrote its headings still gets a degraded one.
        assert!(page.contains("Synthesis of an incomplete debate") && !page.contains("<h2>Synthesis</h2>"));
        // The engine's words, when the transcript has them, are the ones shown.
        let mut t = transcript("degraded", "Yes.");
        t["outcome"]["headline"] = json!("Headline <from> the engine");
        t["outcome"]["synthesis_heading"] = json!("Heading from the engine");
        let page = html(&t, "", &[]);
        assert!(page.contains("Outcome: Headline &lt;from&gt; the engine"), "escaped, as all text");
        assert!(page.contains("<h2>Heading from the engine</h2>") && !page.contains("<h2>Synthesis</h2>"));
        let page = html(&transcript("no-quorum", "Yes."), "", &[]);
        assert!(!page.contains("Synthesis"), "no quorum: no synthesis section at all");
    }
}
