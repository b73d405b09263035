#!/usr/bin/env bash
# Builds the browser demo and serves it on 127.0.0.1 (default port 8000).
# Point its Endpoint at any OpenAI-compatible server that allows the page's
# origin (CORS), e.g. the local model: source scripts/local-model.sh, then
# start_local_model, and use the URL it prints.
#
#   scripts/serve-demo.sh [PORT]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-web.sh
scripts/build-web.sh
exec node web-demo/tests/serve.mjs target/web-demo "${1:-8000}"
