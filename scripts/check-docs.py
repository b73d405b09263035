#!/usr/bin/env python3
"""Checks the README and the book (docs/src/) offline.

- Every chapter is in docs/src/SUMMARY.md, and every entry there exists.
- Every relative link points at a file or folder of the repository, and
  every anchor (`#…`, in the same page or another Markdown file) at a
  heading that exists, with the ids mdBook (and GitHub) give headings.
  http(s) and mailto links are left alone: nothing here can reach them.
- Every command block (```sh, ```bash, ```shell, ```console, or a block
  whose lines start with `$ `) carries a mark on the line before it:
  `<!-- illustration: why -->` (the reason is required), or
  `<!-- run by: FILE, FILE -->` naming the files that run it. Each named file must exist, and a command that is
  one of the repository's scripts must be a named file or appear in one.

`--self-test` runs the checks on small broken pages and fails unless each
mistake is caught.

Usage: scripts/check-docs.py [--self-test] [ROOT]
"""
import re
import sys
import tempfile
from pathlib import Path

FENCE = re.compile(r"^(`{3,}|~{3,})\s*([\w+-]*)")
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
MARK = re.compile(r"^<!--\s*(illustration(?::.*)?|run by:\s*(.+?))\s*-->$")
SELF_TESTS = []
COMMAND_LANGS = {"sh", "bash", "shell", "console"}


def blocks_and_prose(text):
    """(prose lines with line numbers, fenced blocks as (line, lang, lines))."""
    prose, blocks, fence, current = [], [], None, None
    for number, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
            current = (number, m.group(2).lower(), [])
        elif fence is not None and line.strip() == fence:
            blocks.append(current)
            fence = None
        elif fence is not None:
            current[2].append(line)
        else:
            prose.append((number, line))
    return prose, blocks


def heading_id(title):
    """The id mdBook gives a heading (GitHub's is the same for these)."""
    title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)
    title = title.replace("`", "").replace("*", "")
    out = []
    for ch in title.strip():
        if ch.isalnum() or ch in "_-":
            out.append(ch.lower())
        elif ch.isspace():
            out.append("-")
    return "".join(out)


def anchors(path):
    prose, _ = blocks_and_prose(path.read_text())
    seen, ids = {}, set()
    for _, line in prose:
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            base = heading_id(m.group(1))
            n = seen.get(base, 0)
            ids.add(base if n == 0 else f"{base}-{n}")
            seen[base] = n + 1
    return ids


def check_links(root, page, errors):
    prose, _ = blocks_and_prose(page.read_text())
    # Inline code spans hold no links; a link's text may run over lines.
    text = "\n".join(re.sub(r"`[^`]*`", "", line) for _, line in prose)
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue  # http(s), mailto: not checkable offline
        path, _, anchor = target.partition("#")
        dest = page if path == "" else (page.parent / path).resolve()
        where = f"{page.relative_to(root)}: link {target}"
        if root.resolve() not in (dest.resolve(), *dest.resolve().parents):
            errors.append(f"{where}: leaves the repository")
        elif not dest.exists():
            errors.append(f"{where}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            errors.append(f"{where}: no heading with the id '{anchor}' in {dest.relative_to(root.resolve())}")


def commands(lang, lines):
    """The commands a block runs: `$ ` lines, or a shell block's lines."""
    dollar = [line[2:] for line in lines if line.startswith("$ ")]
    if dollar or lang == "console":
        return dollar
    out, continued = [], False
    for line in lines:
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and not continued:
            out.append(stripped)
        continued = stripped.endswith("\\")
    return out


def check_commands(root, page, errors):
    text = page.read_text()
    lines = text.split("\n")
    _, blocks = blocks_and_prose(text)
    for start, lang, body in blocks:
        has_dollar = any(line.startswith("$ ") for line in body)
        if lang not in COMMAND_LANGS and not has_dollar:
            continue
        where = f"{page.relative_to(root)}:{start}"
        before = start - 2
        while before >= 0 and not lines[before].strip():
            before -= 1
        m = MARK.match(lines[before].strip()) if before >= 0 else None
        if not m:
            errors.append(f"{where}: a command block with no <!-- illustration: … --> or <!-- run by: … --> before it")
            continue
        if m.group(2) is None:
            reason = m.group(1).partition(":")[2].strip()
            if not reason:
                errors.append(f"{where}: an illustration mark gives no reason why the block cannot run")
            continue
        runners = [r.strip() for r in m.group(2).split(",") if r.strip()]
        texts = []
        for runner in runners:
            if not (root / runner).is_file():
                errors.append(f"{where}: run by {runner}, which does not exist")
            else:
                texts.append((root / runner).read_text(errors="replace"))
        for command in commands(lang, body):
            words = [w for w in command.split() if not re.match(r"^[A-Z_][A-Z0-9_]*=", w)]
            program = words[0] if words else ""
            if "/" in program and (root / program).is_file():
                if program not in runners and not any(program in t for t in texts):
                    errors.append(f"{where}: {program} is not run by {', '.join(runners)}")


def check(root):
    root = Path(root).resolve()
    errors = []
    src = root / "docs" / "src"
    summary = (src / "SUMMARY.md").read_text()
    listed = set(re.findall(r"\]\(([^)]+\.md)\)", summary))
    for chapter in listed:
        if not (src / chapter).is_file():
            errors.append(f"docs/src/SUMMARY.md lists {chapter}, which does not exist")
    pages = [root / "README.md"] + sorted(src.rglob("*.md"))
    for page in pages:
        rel = page.relative_to(src).as_posix() if src in page.parents else None
        if rel and rel != "SUMMARY.md" and rel not in listed:
            errors.append(f"docs/src/{rel} is not in SUMMARY.md, so the book leaves it out")
        check_links(root, page, errors)
        check_commands(root, page, errors)
    return errors


def self_test():
    """Each kind of mistake, on a page of its own: the check must name it."""
    cases = {
        "missing file": "[x](nowhere.md)\n",
        "missing anchor": "# Title\n\n[x](#no-such-heading)\n",
        "missing anchor elsewhere": "[x](other.md#nope)\n",
        "leaves the repository": "[x](../../../../etc/passwd)\n",
        "unmarked command": "```sh\nscripts/run.sh\n```\n",
        "unmarked console": "```\n$ agon sessions\n```\n",
        "illustration without a reason": "<!-- illustration -->\n```sh\nagon run Q\n```\n",
        "runner missing": "<!-- run by: scripts/nothing.sh -->\n```sh\nscripts/run.sh\n```\n",
        "script not run by its runner": "<!-- run by: README.md -->\n```sh\nscripts/run.sh\n```\n",
        "chapter not in SUMMARY": None,
    }
    good = (
        "# Title\n\n## A `code` heading: yes\n\n[x](#a-code-heading-yes) [y](other.md#other) "
        "[z](https://example.invalid/) `[not](a-link.md)`\n\n"
        "<!-- run by: scripts/other.sh -->\n```sh\nscripts/run.sh --flag \\\n  more\n```\n\n"
        "<!-- illustration: needs keys -->\n```console\n$ agon run Q\n```\n"
    )
    failures = []
    SELF_TESTS[:] = ["a good page", *cases]
    for name, page in [("a good page", good)] + list(cases.items()):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / "docs/src").mkdir(parents=True)
            (root / "scripts").mkdir()
            (root / "scripts/run.sh").write_text("true\n")
            (root / "scripts/other.sh").write_text("scripts/run.sh\n")
            (root / "docs/src/other.md").write_text("# Other\n")
            (root / "README.md").write_text("# Readme\n")
            chapters = "- [Page](page.md)\n- [Other](other.md)\n"
            if page is None:
                page = "# Title\n"
                (root / "docs/src/stray.md").write_text("# Stray\n")
            (root / "docs/src/SUMMARY.md").write_text("# Summary\n\n" + chapters)
            (root / "docs/src/page.md").write_text(page)
            errors = check(root)
        if (name == "a good page") == bool(errors):
            failures.append(f"{name}: {errors or 'not caught'}")
    return failures


def main(argv):
    if argv and argv[0] == "--self-test":
        failures = self_test()
        for f in failures:
            print(f"check-docs self-test: {f}", file=sys.stderr)
        print(f"check-docs self-test: {len(SELF_TESTS) - len(failures)} passed, {len(failures)} failed")
        return 1 if failures else 0
    root = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent
    errors = check(root)
    for e in errors:
        print(f"check-docs: {e}", file=sys.stderr)
    if errors:
        print(f"check-docs: {len(errors)} problem(s)", file=sys.stderr)
        return 1
    print("check-docs: every link, anchor, chapter and command mark holds")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
