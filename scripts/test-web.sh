#!/usr/bin/env bash
# The browser demo's and the browser extension's checks: clippy for wasm32
# (warnings denied), the builds (page, then the extension and its zip), then
# the browser tests in headless Chromium — the page (replay of every golden
# journal, runs against the test server with faults, a run against the real
# local model, the README's screenshot of a debate replayed from a published
# log, taken into target/web-demo/ and written to web-demo/screenshot.png only
# with AGON_BLESS=1) and the extension
# loaded into Chromium (its side panel page against the test server and the
# local model, saving target/extension/screenshot.png).
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n=== web: %s\n' "$*" >&2; }

# --build-only: set-up, clippy and the builds, no browser (scripts/test.sh's
# lane of builds).
build_only=false
[ "${1:-}" = --build-only ] && build_only=true

step "set-up"
scripts/setup-web.sh

step "clippy for wasm32 (warnings denied)"
cargo clippy --quiet -p agon-web-demo --target wasm32-unknown-unknown -- -D warnings

step "build (the page, then the extension from it)"
scripts/build-extension.sh
$build_only && exit 0
# shellcheck source=scripts/workspace-build.sh
source scripts/workspace-build.sh
workspace_build

step "browser tests in headless Chromium"
# Start the model only after building: it crawls while cargo holds the cores.
# shellcheck source=scripts/local-model.sh
source scripts/local-model.sh
start_local_model
node --test --test-concurrency=1 web-demo/tests/
