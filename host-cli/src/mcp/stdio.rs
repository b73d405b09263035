//! `agon mcp` over stdio, with a line reader in front of rmcp's: a line that
//! is not JSON (bad UTF-8, a syntax error, nesting deeper than 100 levels,
//! longer than rmcp's line limit) is answered with the JSON-RPC parse
//! error (-32700, id null), as JSON-RPC 2.0 requires. rmcp drops such lines
//! without a word, and the client then waits for ever.
//!
//! Every other line goes to rmcp as it came; its output and these errors
//! reach stdout whole lines at a time, never interleaved.

use anyhow::{Context, Result};
use rmcp::ServiceExt;
use rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;
use serde_json::json;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::server::Agon;

/// Bytes of one request at most, as rmcp's own reader allows.
const MAX_LINE: usize = DEFAULT_MAX_LINE_LENGTH;

pub async fn serve(agon: Agon) -> Result<()> {
    let (to_rmcp, rmcp_in) = tokio::io::duplex(64 * 1024);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(64 * 1024);
    let (errors_tx, errors) = mpsc::unbounded_channel();
    tokio::spawn(read(BufReader::new(tokio::io::stdin()), to_rmcp, errors_tx));
    let writer = tokio::spawn(write(BufReader::new(from_rmcp), errors));
    let running = agon.serve((rmcp_in, rmcp_out)).await.context("starting the MCP session")?;
    running.waiting().await.context("the MCP session")?;
    // rmcp's output ended with it; what it wrote last still reaches stdout.
    writer.await.context("writing to stdout")?.context("writing to stdout")
}

/// Passes each well-formed line on; answers the others.
async fn read(
    mut stdin: impl AsyncBufRead + Unpin,
    mut to_rmcp: tokio::io::DuplexStream,
    errors: mpsc::UnboundedSender<String>,
) -> std::io::Result<()> {
    let mut line = Vec::new();
    loop {
        line.clear();
        match read_line(&mut stdin, &mut line).await? {
            Line::End => return Ok(()),
            Line::TooLong => {
                let _ = errors.send(parse_error(&format!("a request longer than {} MiB", MAX_LINE >> 20)));
            }
            Line::Whole => match check(&line) {
                Check::Blank => {}
                Check::Json => {
                    to_rmcp.write_all(&line).await?;
                    to_rmcp.write_all(b"\n").await?;
                }
                Check::Not(why) => {
                    let _ = errors.send(parse_error(&why));
                }
            },
        }
    }
}

enum Line {
    Whole,
    TooLong,
    End,
}

/// One line without its newline, never holding more than [`MAX_LINE`]
/// bytes: the rest of a longer line is read and dropped.
async fn read_line(input: &mut (impl AsyncBufRead + Unpin), line: &mut Vec<u8>) -> std::io::Result<Line> {
    let mut too_long = false;
    loop {
        let buffer = input.fill_buf().await?;
        if buffer.is_empty() {
            // A last line without its newline still counts.
            return Ok(if too_long {
                Line::TooLong
            } else if line.is_empty() {
                Line::End
            } else {
                Line::Whole
            });
        }
        let (chunk, done) = match buffer.iter().position(|b| *b == b'\n') {
            Some(end) => (&buffer[..end], end + 1),
            None => (buffer, buffer.len()),
        };
        let ended = done > chunk.len();
        if !too_long && line.len() + chunk.len() <= MAX_LINE {
            line.extend_from_slice(chunk);
        } else {
            too_long = true;
            line.clear();
        }
        input.consume(done);
        if ended {
            return Ok(if too_long { Line::TooLong } else { Line::Whole });
        }
    }
}

enum Check {
    Blank,
    Json,
    Not(String),
}

fn check(line: &[u8]) -> Check {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Check::Blank;
    }
    if let Err(e) = std::str::from_utf8(line) {
        return Check::Not(format!("the request is not UTF-8 ({e})"));
    }
    if too_deep(line) {
        return Check::Not(format!("the request nests deeper than {MAX_DEPTH}"));
    }
    // Parsed only to check it, keeping nothing.
    match serde_json::from_slice::<serde::de::IgnoredAny>(line) {
        Ok(_) => Check::Json,
        Err(e) => Check::Not(format!("the request is not JSON ({e})")),
    }
}

/// Nesting allowed: below serde_json's own limit (128), past which rmcp
/// drops a line silently; no MCP message comes near it.
const MAX_DEPTH: usize = 100;

/// Whether arrays and objects nest deeper than [`MAX_DEPTH`], strings skipped.
/// (Checking with serde_json's `IgnoredAny` would not: it skips without a limit.)
fn too_deep(line: &[u8]) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in line {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

fn parse_error(why: &str) -> String {
    json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": format!("Parse error: {why}")}})
        .to_string()
}

/// rmcp's lines and the parse errors, to stdout, a whole line at a time.
async fn write(
    mut from_rmcp: BufReader<tokio::io::DuplexStream>,
    mut errors: mpsc::UnboundedReceiver<String>,
) -> std::io::Result<()> {
    let mut stdout = tokio::io::stdout();
    let mut line = Vec::new();
    loop {
        tokio::select! {
            read = from_rmcp.read_until(b'\n', &mut line) => {
                if read? == 0 {
                    // rmcp is done: the errors still queued go out, then stdout is flushed.
                    while let Ok(e) = errors.try_recv() {
                        stdout.write_all(format!("{e}\n").as_bytes()).await?;
                    }
                    return stdout.flush().await;
                }
                if line.ends_with(b"\n") {
                    stdout.write_all(&line).await?;
                    stdout.flush().await?;
                    line.clear();
                }
            }
            Some(e) = errors.recv() => {
                stdout.write_all(format!("{e}\n").as_bytes()).await?;
                stdout.flush().await?;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_that_are_not_json_are_named() {
        assert!(matches!(check(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), Check::Json));
        assert!(matches!(check(b"  \r"), Check::Blank));
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n)).into_bytes();
        assert!(matches!(check(&deep(MAX_DEPTH)), Check::Json));
        assert!(matches!(check(&deep(MAX_DEPTH + 1)), Check::Not(_)));
        let quoted = format!(r#"{{"a":"{}\"{}"}}"#, "[".repeat(500), "{".repeat(500));
        assert!(matches!(check(quoted.as_bytes()), Check::Json), "brackets in strings do not count");
        for bad in [&b"{not json"[..], b"\xff\xfe{}", &[b'['; 200000], b"{\"a\":1} trailing"] {
            assert!(matches!(check(bad), Check::Not(_)), "{}", String::from_utf8_lossy(&bad[..bad.len().min(20)]));
        }
    }

    #[tokio::test]
    async fn long_lines_are_dropped_not_held() {
        let mut input = vec![b'x'; MAX_LINE + 10];
        input.extend_from_slice(b"\n{}\n");
        let mut reader = BufReader::new(&input[..]);
        let mut line = Vec::new();
        assert!(matches!(read_line(&mut reader, &mut line).await.unwrap(), Line::TooLong));
        line.clear();
        assert!(matches!(read_line(&mut reader, &mut line).await.unwrap(), Line::Whole));
        assert_eq!(line, b"{}");
        line.clear();
        assert!(matches!(read_line(&mut reader, &mut line).await.unwrap(), Line::End));
    }
}
