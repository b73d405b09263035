#!/usr/bin/env bash
# The checks beyond clippy: the docs build with warnings denied, and
# cargo-deny (licenses, banned crates, sources), installed at a pinned version.
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO_DENY_VERSION=0.20.2

echo "[lint] docs (warnings denied)" >&2
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet

if [ "$(cargo deny --version 2>/dev/null | awk '{print $2}')" != "$CARGO_DENY_VERSION" ]; then
  echo "[lint] installing cargo-deny $CARGO_DENY_VERSION" >&2
  cargo install cargo-deny --version "$CARGO_DENY_VERSION" --locked --quiet
fi
echo "[lint] cargo-deny: bans, licenses, sources" >&2
cargo deny --log-level error check bans licenses sources
