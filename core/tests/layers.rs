//! The core's layers (docs/src/architecture.md): the modules below the
//! protocols never import the protocols or what stands above them, and a
//! protocol never imports the registry that lists it. Read as text, the
//! way a reader follows an import: only the code before a file's tests.

use std::path::Path;

/// Paths a module below the protocols may not name.
const ABOVE_THE_PROTOCOLS: &[&str] = &[
    "crate::protocol",
    "crate::validation",
    "crate::worst_case",
    "crate::diversity",
    "crate::builder",
    "crate::session",
    "crate::batch",
    "crate::eval",
    "crate::picture",
];

/// Layers 1 and 2: plain data and text, the debate so far, what a protocol plans.
const BELOW_THE_PROTOCOLS: &[&str] = &[
    "spec.rs",
    "request.rs",
    "input.rs",
    "outcome.rs",
    "transcript.rs",
    "event.rs",
    "files.rs",
    "parent.rs",
    "reasoning.rs",
    "roles.rs",
    "catalog.rs",
    "cost.rs",
    "tokens.rs",
    "label.rs",
    "quote.rs",
    "order.rs",
    "debate.rs",
    "prompt_kit.rs",
    "plan.rs",
    "budget.rs",
    "vote.rs",
    "consensus/",
    "ledger/",
    "review/",
    "render/results.rs",
    "render/data_blocks.rs",
];

/// A file's code before its tests, without comments.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let before_tests = text.split("#[cfg(test)]").next().unwrap_or_default();
    before_tests.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

/// Every `.rs` file `entry` names: the file, or every file under the folder.
fn files(src: &Path, entry: &str) -> Vec<std::path::PathBuf> {
    let path = src.join(entry);
    if !entry.ends_with('/') {
        assert!(path.is_file(), "{entry} is listed as a layer's module but is no file");
        return vec![path];
    }
    let mut out = Vec::new();
    for file in std::fs::read_dir(&path).unwrap_or_else(|e| panic!("{entry}: {e}")) {
        let file = file.unwrap().path();
        if file.extension().is_some_and(|x| x == "rs") && file.file_name().is_some_and(|n| n != "tests.rs") {
            out.push(file);
        }
    }
    out
}

#[test]
fn modules_below_the_protocols_import_nothing_above_them() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut upward = Vec::new();
    for entry in BELOW_THE_PROTOCOLS {
        for file in files(&src, entry) {
            let code = code(&file);
            for path in ABOVE_THE_PROTOCOLS.iter().filter(|p| code.contains(*p)) {
                upward.push(format!("{} names {path}", file.strip_prefix(&src).unwrap().display()));
            }
        }
    }
    assert!(upward.is_empty(), "imports running up the layers:\n{}", upward.join("\n"));
}

#[test]
fn no_protocol_imports_the_registry_that_lists_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/protocol");
    let mut found = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for file in std::fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            if file.is_dir() {
                stack.push(file);
            } else if file.extension().is_some_and(|x| x == "rs")
                && !file.ends_with("registry.rs")
                // The folder's own file declares the registry's module.
                && file != src.join("mod.rs")
                && code(&file).contains("registry")
            {
                found.push(file.strip_prefix(&src).unwrap().display().to_string());
            }
        }
    }
    assert!(found.is_empty(), "protocols naming the registry: {found:?}");
}
