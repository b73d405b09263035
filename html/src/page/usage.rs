//! What the debate used and cost, as a table: a row per seat, then the total.

use std::fmt::Write;

use agon_core::{UsageReport, Usd};

use super::escape;

/// The usage table, or nothing when no call was made. A seat without a price
/// says "unpriced"; a total that leaves such seats out says "partial" and
/// names their models, so a sum is never read as the whole bill. Tokens
/// estimated for calls that reported no usage are marked ≈.
pub(super) fn table(h: &mut String, u: &UsageReport) {
    if u.seats.is_empty() {
        return;
    }
    h.push_str(
        "<section class=\"usage\" aria-labelledby=\"usage\">\n<h2 id=\"usage\">Usage and cost</h2>\n<div class=\"scroll\">\
<table>\n<thead><tr><th>seat</th><th>model</th><th>calls</th><th>tokens in</th><th>tokens out</th>\
<th>cached</th><th>cost</th></tr></thead>\n<tbody>\n",
    );
    for s in &u.seats {
        let approx = if s.estimated_calls > 0 { "≈" } else { "" };
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{approx}{}</td><td>{approx}{}</td><td>{}</td><td>{}</td></tr>",
            escape(&s.seat),
            escape(&s.model),
            s.calls,
            s.prompt_tokens,
            s.completion_tokens,
            s.cached_tokens,
            s.cost_micro_usd.map_or_else(|| "unpriced".to_string(), Usd::display)
        );
    }
    let t = &u.total;
    let approx = if t.estimated_calls > 0 { "≈" } else { "" };
    let cost = match (t.cost_micro_usd, t.unpriced.is_empty()) {
        (Some(c), true) => c.display(),
        (Some(c), false) => format!("{} (partial)", c.display()),
        (None, _) => "unpriced".to_string(),
    };
    let _ = write!(
        h,
        "</tbody>\n<tfoot><tr><th>total</th><td></td><td>{}</td><td>{approx}{}</td><td>{approx}{}</td><td>{}</td><td>{cost}</td></tr></tfoot>\n\
</table></div>\n",
        t.calls, t.prompt_tokens, t.completion_tokens, t.cached_tokens
    );
    if t.cost_micro_usd.is_some() && !t.unpriced.is_empty() {
        let models: Vec<String> = t.unpriced.iter().map(|m| format!("<code>{}</code>", escape(m))).collect();
        let _ = writeln!(
            h,
            "<p class=\"note\">Partial: no price is known for {}, so {} calls are not in the total.</p>",
            models.join(", "),
            if t.unpriced.len() == 1 { "its" } else { "their" }
        );
    }
    if t.estimated_calls > 0 {
        let _ = writeln!(
            h,
            "<p class=\"note\">≈ {} call(s) came without reported usage; their tokens are estimated as characters / 4.</p>",
            t.estimated_calls
        );
    }
    h.push_str("</section>\n");
}
