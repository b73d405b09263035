#!/usr/bin/env bash
# Installs mdBook, which builds the book in docs/, at a pinned version,
# skipping it when that version is already installed. Safe to run again.
# Without the default features `serve` and `watch` (a web server and a file
# watcher the test command does not use), it compiles in about half the time.
set -euo pipefail
cd "$(dirname "$0")/.."

MDBOOK_VERSION=0.5.4

if [ "$(mdbook --version 2>/dev/null)" != "mdbook v$MDBOOK_VERSION" ]; then
  printf '[setup-docs] installing mdbook %s (cargo install, a few minutes on 2 cores)\n' "$MDBOOK_VERSION" >&2
  cargo install --locked mdbook --version "$MDBOOK_VERSION" --no-default-features --features search
fi
