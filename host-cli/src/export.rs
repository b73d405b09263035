//! A session as one self-contained HTML page, for sharing: agon-html's
//! [`agon_html::session_page`], the page the browser demo offers for
//! download too. Outcome and synthesis first, every reply rendered from its
//! Markdown (model text never becomes markup), the protocol's results and
//! the engine's pictures, usage as a table; its own style inline, no script,
//! and a Content-Security-Policy that lets nothing else run or load.

use anyhow::{Context, Result};

use crate::sanitize;

/// The page for a transcript (its JSON, as the session keeps it); `results`
/// is its named results as the engine renders them in Markdown (empty when
/// there are none), `pictures` the engine's SVGs of it, (file name, SVG).
pub fn html(transcript_json: &str, results: &str, pictures: &[(String, String)]) -> Result<String> {
    let t = agon_core::Transcript::from_json(transcript_json)
        .map_err(anyhow::Error::msg)
        .context("reading the session's transcript for its page")?;
    // The page shows control characters already; this is the gate every text agon writes passes.
    Ok(sanitize::terminal(&agon_html::session_page(&t, results, pictures)).into_owned())
}

/// The picture `agon export --format svg` writes: the first of the session's
/// pictures in the order the engine and the session give them — the stance
/// map when the protocol checked for consensus, else the first chart of its
/// results, else the call timeline — or why there is none.
pub fn main_picture(pictures: Vec<(String, String)>) -> Result<(String, String), &'static str> {
    pictures.into_iter().next().ok_or(
        "this session has no picture: its protocol ran no consensus check and has no result with a chart, \
and no call timings were kept (a run of this version keeps them; a replayed journal has none)",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_is_agon_html_s_for_the_transcript() {
        let json = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/golden/round-robin-priced/transcript.json"
        ))
        .unwrap();
        let t: agon_core::Transcript = serde_json::from_str(&json).unwrap();
        assert_eq!(html(&json, "", &[]).unwrap(), agon_html::session_page(&t, "", &[]));
        let error = html("{\"question\": 1}", "", &[]).unwrap_err();
        assert!(format!("{error:#}").starts_with("reading the session's transcript for its page: "), "{error:#}");
    }

    #[test]
    fn the_main_picture_is_the_first_and_none_is_said_plainly() {
        let pictures =
            vec![("stance-map.svg".to_string(), "<svg/>".to_string()), ("timeline.svg".into(), "<svg/>".into())];
        assert_eq!(main_picture(pictures).unwrap().0, "stance-map.svg");
        assert!(main_picture(vec![]).unwrap_err().starts_with("this session has no picture"));
    }
}
