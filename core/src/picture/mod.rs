//! Pictures of a debate, as SVG text: pure functions of the transcript (or,
//! for the timeline, of the timings a host measured), so every host shows
//! the same bytes. Model-written text in them (seat ids, labels, item texts)
//! is untrusted: clipped, and escaped. Each picture says in its `<title>` and
//! `<desc>` what it shows, marks verdicts and gaps with letters and hatching
//! as well as colour, and scales to the page (a viewBox, width 100%).

mod charts;
mod stance_map;
pub(crate) mod svg;
mod timeline;

pub use charts::charts;
pub use stance_map::stance_map;
pub use timeline::{CallTiming, timeline, timings_from_ndjson};

use crate::Transcript;

/// The call timeline's file name beside a debate's other pictures.
pub const TIMELINE_FILE: &str = "timeline.svg";

/// Every picture of `t` as (file name, SVG): `stance-map.svg` when the
/// protocol checked for consensus, `chart-<result>.svg` for each result that
/// has a chart. The names are safe as file names.
pub fn pictures(t: &Transcript) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(svg) = stance_map(t) {
        out.push(("stance-map.svg".to_string(), svg));
    }
    for (key, svg) in charts(t) {
        let name: String = key.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
        out.push((format!("chart-{name}.svg"), svg));
    }
    out
}
