#!/usr/bin/env bash
# The browser demo's checks: clippy for wasm32 (warnings denied), the build,
# then the browser tests in headless Chromium — replay of every golden
# journal, a run against the test server with a failing model, and a run
# against the real local model (SmolLM2) that saves a screenshot to
# target/web-demo/screenshot.png.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n=== web: %s\n' "$*" >&2; }

step "set-up"
scripts/setup-web.sh

step "clippy for wasm32 (warnings denied)"
cargo clippy --quiet -p agon-web-demo --target wasm32-unknown-unknown -- -D warnings

step "build"
scripts/build-web.sh
cargo build --quiet -p agon-testkit --bin agon-test-server

step "browser tests in headless Chromium"
# Start the model only after building: it crawls while cargo holds the cores.
# shellcheck source=scripts/local-model.sh
source scripts/local-model.sh
start_local_model
node --test --test-concurrency=1 web-demo/tests/
