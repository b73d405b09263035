//! Human seats (`human/NAME`): the person at the terminal answers instead of
//! a model. The prompt is shown (sanitized: it is model text too), and the
//! answer is read as lines until one holding only `.`, or the end of input;
//! a first line `:e` opens `$VISUAL` or `$EDITOR` on a file holding the prompt.
//! No call timeout applies: a person takes the time they need.
//!
//! The host loop asks one person at a time and holds the rest of the live view
//! back meanwhile ([`crate::host::drive`]); this module only talks to the
//! person, through whatever reader and writer it is given.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use super::{CallError, Completion, ModelRef};
use crate::engine::wit;
use crate::sanitize;

/// The provider name of a person.
pub const PROVIDER: &str = "human";

/// The line that ends an answer.
pub const END: &str = ".";

/// The first line that opens the editor instead.
pub const EDIT: &str = ":e";

/// Whether a seat's model (a reference or a chain) is a person.
pub fn is_human(model: &str) -> bool {
    model.split('|').any(|m| m.trim().starts_with("human/"))
}

/// Everything the request asks, as the person reads it: who they are, then the prompt.
fn shown_prompt(request: &wit::ModelRequest) -> String {
    let name = ModelRef::parse(&request.model).map_or_else(|_| request.model.clone(), |r| r.model);
    let what = match request.purpose {
        wit::Purpose::Judge => "the judge's synthesis".to_string(),
        _ => format!("round {}, {}", request.round, crate::words::phase_title(request.phase).to_lowercase()),
    };
    format!(
        "\n──── {name}, your turn as seat '{}' ({what}) ────\n{}\n──── Type your answer; end it with a line holding only \"{END}\" (or Ctrl-D). \
         A first line \"{EDIT}\" opens your editor instead. ────\n",
        request.seat,
        super::command::flatten(request).trim_end()
    )
}

/// Ask the person: show the prompt on `out`, read the answer from `input`.
/// `editor` is the command that edits a file (`$VISUAL`, `$EDITOR`).
pub fn ask(
    request: &wit::ModelRequest,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    editor: Option<&str>,
) -> Result<Completion, CallError> {
    let prompt = shown_prompt(request);
    let _ = out.write_all(sanitize::terminal(&prompt).as_bytes());
    let _ = out.flush();
    let mut lines: Vec<String> = Vec::new();
    loop {
        let mut line = String::new();
        match input.read_line(&mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => return Err(CallError::provider(format!("{}: cannot read the answer: {e}", request.model))),
        }
        let line = line.trim_end_matches(['\n', '\r']).to_string();
        if line == END {
            break;
        }
        if lines.is_empty() && line.trim() == EDIT {
            match edit(request, &prompt, editor) {
                Ok(text) if !text.trim().is_empty() => {
                    return Ok(Completion::text(text.trim().to_string()));
                }
                Ok(_) => say(out, "  the editor left no answer; type it here instead, or \":e\" to edit again\n"),
                Err(why) => say(out, &format!("  {why}; type the answer here instead\n")),
            }
            continue;
        }
        lines.push(line);
    }
    let text = lines.join("\n").trim().to_string();
    if text.is_empty() {
        return Err(CallError::provider(format!(
            "{}: no answer was given (the input ended before any text)",
            request.model
        )));
    }
    Ok(Completion::text(text))
}

fn say(out: &mut dyn Write, text: &str) {
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// The line in the editor's file below which nothing is kept.
const SCISSORS: &str = "------------------------ >8 ------------------------";

/// Open the editor on a file holding the prompt below a scissors line; the
/// answer is what the person wrote above it.
fn edit(request: &wit::ModelRequest, prompt: &str, editor: Option<&str>) -> Result<String, String> {
    let editor = editor.filter(|e| !e.trim().is_empty()).ok_or("no editor: set $EDITOR (or $VISUAL)")?;
    let file = TempFile::create(request.id)?;
    let body = format!(
        "\n\n{SCISSORS}\nWrite your answer above the line; everything from it on is left out.\n{}",
        sanitize::terminal(prompt)
    );
    std::fs::write(&file.0, body).map_err(|e| format!("cannot write {}: {e}", file.0.display()))?;
    // The editor is the person's own setting and may carry arguments ("code --wait").
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(&file.0)
        .status()
        .map_err(|e| format!("cannot start the editor '{editor}': {e}"))?;
    if !status.success() {
        return Err(format!("the editor '{editor}' ended with {status}"));
    }
    let text = std::fs::read_to_string(&file.0).map_err(|e| format!("cannot read {}: {e}", file.0.display()))?;
    Ok(text.split(SCISSORS).next().unwrap_or_default().to_string())
}

/// A file of our own (mode 0600), removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn create(id: u64) -> Result<TempFile, String> {
        let dir = std::env::temp_dir();
        for n in 0..100u32 {
            let path = dir.join(format!("agon-answer-{}-{id}-{n}.md", std::process::id()));
            // Yours alone: the prompt may hold the debate's context.
            let mut options = std::fs::OpenOptions::new();
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            match options.write(true).create_new(true).open(&path) {
                Ok(_) => return Ok(TempFile(path)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(format!("cannot create a file for the editor in {}: {e}", dir.display())),
            }
        }
        Err(format!("cannot create a file for the editor in {}", Path::new(&dir).display()))
    }
}

#[cfg(test)]
mod temp_file_tests {
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_editor_file_is_readable_by_its_owner_only() {
        let file = super::TempFile::create(7).unwrap();
        let mode = std::fs::metadata(&file.0).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{mode:o}");
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The editor a person set: `$VISUAL`, else `$EDITOR`.
pub fn editor_from_env() -> Option<String> {
    ["VISUAL", "EDITOR"].iter().find_map(|v| std::env::var(v).ok().filter(|e| !e.trim().is_empty()))
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;

    fn request(content: &str) -> wit::ModelRequest {
        wit::ModelRequest {
            id: 3,
            seat: "alice".into(),
            model: "human/alice".into(),
            purpose: wit::Purpose::Turn,
            round: 1,
            phase: wit::Phase::Opening,
            messages: vec![wit::Message { role: wit::Role::User, content: content.into() }],
            max_tokens: 16,
            temperature: 0.0,
            expect: None,
            reasoning: None,
            traits: Vec::new(),
            cache_marks: Vec::new(),
        }
    }

    fn ask_with(input: &str, editor: Option<&str>) -> (Result<Completion, CallError>, String) {
        let mut out = Vec::new();
        let result = ask(&request("Q?\x1b]52;c;eA==\x07"), &mut Cursor::new(input.as_bytes()), &mut out, editor);
        (result, String::from_utf8(out).unwrap())
    }

    #[test]
    fn reads_lines_until_a_lone_dot_and_shows_the_prompt_sanitized() {
        let (result, shown) = ask_with("first\n\nsecond\n.\nnext turn\n", None);
        assert_eq!(result.unwrap().text, "first\n\nsecond");
        assert!(shown.contains("Q?^[]52;c;eA==^G") && !shown.contains('\x1b'), "{shown}");
        assert!(shown.contains("alice, your turn"), "{shown}");
    }

    #[test]
    fn the_end_of_input_ends_the_answer_and_no_answer_fails_the_call() {
        assert_eq!(ask_with("all I have\n", None).0.unwrap().text, "all I have");
        let error = ask_with("", None).0.unwrap_err();
        assert!(error.message.contains("no answer"), "{}", error.message);
        assert!(ask_with("  \n.\n", None).0.is_err());
    }

    #[test]
    fn the_editor_writes_the_answer_above_the_scissors() {
        // An "editor" that writes its answer on the first line of the file.
        let editor = "f() { printf 'from the editor\\n' | cat - \"$1\" > \"$1.new\" && mv \"$1.new\" \"$1\"; }; f";
        let (result, _) = ask_with(":e\n", Some(editor));
        assert_eq!(result.unwrap().text, "from the editor");
        // A failing editor loses nothing: the answer is typed instead.
        let (result, shown) = ask_with(":e\ntyped\n.\n", Some("false"));
        assert_eq!(result.unwrap().text, "typed");
        assert!(shown.contains("type the answer here instead"), "{shown}");
        let (result, shown) = ask_with(":e\ntyped\n.\n", None);
        assert_eq!(result.unwrap().text, "typed");
        assert!(shown.contains("$EDITOR"), "{shown}");
    }

    #[test]
    fn a_chain_with_a_person_is_a_person() {
        assert!(is_human("human/alice"));
        assert!(!is_human("openai/human"));
    }
}
