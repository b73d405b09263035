#!/usr/bin/env bash
# Installs what the browser demo's build and tests need, at pinned versions,
# skipping what is already there: the wasm-bindgen CLI (equal to the crate's
# pinned wasm-bindgen), Debian's Chromium, and the npm tools (wasm-opt from
# binaryen, playwright-core) from web-demo/package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130   # must equal `wasm-bindgen = "=…"` in Cargo.toml

say() { printf '[setup-web] %s\n' "$*" >&2; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
  # No prebuilt binary is reachable from crates.io, PyPI or npm. --debug: it
  # compiles in well under half the time, and binding a 1 MB wasm takes it
  # a second or two either way. Not --locked: its lock file names a
  # webpki-roots version the registry no longer has.
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (compiled, unoptimized)"
  cargo install --quiet --debug wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

if [ ! -x /usr/bin/chromium ]; then
  say "installing Debian's chromium"
  sudo_if_needed() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
  sudo_if_needed apt-get update -qq
  sudo_if_needed apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi

# npm ci is exact to the lock file; skip it when node_modules already matches.
if ! cmp -s web-demo/package-lock.json web-demo/node_modules/.package-lock-copy.json 2>/dev/null; then
  say "installing npm tools (npm ci)"
  (cd web-demo && npm ci --no-audit --no-fund --loglevel=error)
  cp web-demo/package-lock.json web-demo/node_modules/.package-lock-copy.json
fi
