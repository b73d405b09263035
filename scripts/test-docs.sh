#!/usr/bin/env bash
# The book: mdBook builds docs/ into target/book/ (a broken SUMMARY or a
# missing chapter fails it), then scripts/check-docs.py checks every relative
# link and anchor of the README and the book, that every chapter is in the
# SUMMARY, and that every command shown is run by a test or marked as an
# illustration. The checker first proves on broken pages that it catches each
# mistake.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n--- %s\n' "$*" >&2; }

scripts/setup-docs.sh

step "mdbook build docs"
rm -rf target/book
.venv/bin/mdbook build docs
for chapter in $(sed -n 's/.*](\([a-z-]*\)\.md).*/\1/p' docs/src/SUMMARY.md); do
  [ -s "target/book/$chapter.html" ] || { echo "test-docs: target/book/$chapter.html was not built" >&2; exit 1; }
done

step "links, anchors, chapters, command marks"
python3 scripts/check-docs.py --self-test
python3 scripts/check-docs.py
