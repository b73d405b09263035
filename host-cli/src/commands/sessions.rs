//! `agon sessions`, `agon show` and `agon export`: reading kept sessions.

use std::io::Write;

use agon_cli::cli::{ExportFormat, Format};
use agon_cli::engine::Runtime;
use agon_cli::journal;
use agon_cli::output::{self, Kind, check_writable, document_text};
use agon_cli::runner::document::session_document;
use agon_cli::sessions::{self, SessionDir};
use agon_cli::{bad, sanitize, timings};
use anyhow::{Context, Result};

use super::exit;

pub fn list_sessions(json: bool) -> Result<u8> {
    let root = sessions::root().ok_or_else(|| bad("no sessions folder: set AGON_DATA_DIR (or HOME)"))?;
    let all = sessions::list(&root);
    let mut out = std::io::stdout().lock();
    if json {
        for s in &all {
            writeln!(out, "{}", output::json_text(&serde_json::to_string(&s.summary())?))?;
        }
    } else if all.is_empty() {
        writeln!(out, "no sessions in {} yet", root.display())?;
    } else {
        writeln!(
            out,
            "{:<21} {:<16} {:<19} {:<12} {:>9}  question",
            "id", "created (UTC)", "protocol", "outcome", "cost"
        )?;
        for s in &all {
            writeln!(out, "{}", sanitize::terminal(&s.summary().line()))?;
        }
    }
    Ok(exit::OK)
}

/// The session's named results as the engine renders them in Markdown, and
/// its pictures (the engine's, then the call timeline when timings were
/// kept), from its journal: the stored transcript keeps the data, not these.
fn session_rendered(id: &str) -> Result<(String, Vec<(String, String)>)> {
    let root = sessions::root().ok_or_else(|| bad("no sessions folder: set AGON_DATA_DIR (or HOME)"))?;
    let session = SessionDir::find(&root, id).map_err(bad)?;
    let mut runtime = Runtime::load()?;
    let mut opened = journal::open(&mut runtime, &session.journal(), None)?;
    let mut pictures = opened.council.pictures()?;
    let timings = std::fs::read_to_string(session.dir.join(sessions::TIMINGS)).unwrap_or_default();
    if let Some(svg) = opened.council.timeline_svg(&timings)? {
        pictures.push((sessions::TIMELINE_SVG.to_string(), svg));
    }
    Ok((opened.council.results_markdown()?, pictures))
}

/// The session as an Architecture Decision Record, as the engine renders it.
fn session_adr(id: &str) -> Result<String> {
    let root = sessions::root().ok_or_else(|| bad("no sessions folder: set AGON_DATA_DIR (or HOME)"))?;
    let session = SessionDir::find(&root, id).map_err(bad)?;
    let mut runtime = Runtime::load()?;
    journal::open(&mut runtime, &session.journal(), None)?.council.adr_markdown()
}

/// The session's call timeline as text bars.
fn timeline(id: &str) -> Result<String> {
    let root = sessions::root().ok_or_else(|| bad("no sessions folder: set AGON_DATA_DIR (or HOME)"))?;
    let session = SessionDir::find(&root, id).map_err(bad)?;
    let text = std::fs::read_to_string(session.dir.join(sessions::TIMINGS)).unwrap_or_default();
    Ok(timings::text_bars(&timings::parse(&text), 48))
}

pub fn show(id: &str, format: Format, timeline_only: bool) -> Result<u8> {
    if timeline_only {
        std::io::stdout().lock().write_all(timeline(id)?.as_bytes())?;
        return Ok(exit::OK);
    }
    let document = session_document(id, format.into())?;
    std::io::stdout().lock().write_all(document_text(&document, format.into()).as_bytes())?;
    Ok(exit::OK)
}

pub fn export(id: &str, format: ExportFormat, output: Option<&std::path::Path>) -> Result<u8> {
    if let Some(path) = output {
        check_writable(path, "--output").map_err(bad)?;
    }
    let document = match format {
        ExportFormat::Md => sanitize::terminal(&session_document(id, Kind::Markdown)?).into_owned(),
        ExportFormat::Json => output::json_text(&session_document(id, Kind::Json)?).into_owned(),
        ExportFormat::Html => {
            let (results, pictures) = session_rendered(id)?;
            agon_cli::export::html(&session_document(id, Kind::Json)?, &results, &pictures)?
        }
        ExportFormat::Svg => {
            let (_, svg) = agon_cli::export::main_picture(session_rendered(id)?.1).map_err(bad)?;
            sanitize::terminal(&svg).into_owned()
        }
        ExportFormat::Adr => sanitize::terminal(&session_adr(id)?).into_owned(),
    };
    match output {
        Some(path) => std::fs::write(path, &document).with_context(|| format!("writing {}", path.display()))?,
        None => std::io::stdout().lock().write_all(document.as_bytes())?,
    }
    Ok(exit::OK)
}
