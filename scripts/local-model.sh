#!/usr/bin/env bash
# Source this file: start_local_model starts SmolLM2 through llama.cpp's server
# on a free 127.0.0.1 port and exports OPENAI_BASE_URL; it stops when the
# calling shell exits.
# shellcheck shell=bash

start_local_model() {
  local root port log
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  port="$("$root/.venv/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  log="$(mktemp -t agon-local-model.XXXXXX)"
  "$root/.venv/bin/python" "$root/scripts/local_model.py" --port "$port" --parent-pid $$ >"$log" 2>&1 &
  LOCAL_MODEL_PID=$!
  trap 'kill "$LOCAL_MODEL_PID" 2>/dev/null || true' EXIT
  for _ in $(seq 1 300); do
    if grep -q '^ready ' "$log"; then
      export OPENAI_BASE_URL="http://127.0.0.1:$port/v1"
      export OPENAI_API_KEY="${OPENAI_API_KEY:-}"
      printf '[local-model] SmolLM2-135M-Instruct serving at %s\n' "$OPENAI_BASE_URL" >&2
      return 0
    fi
    if ! kill -0 "$LOCAL_MODEL_PID" 2>/dev/null; then
      cat "$log" >&2
      echo "[local-model] the local model server exited; see above" >&2
      return 1
    fi
    sleep 0.2
  done
  cat "$log" >&2
  echo "[local-model] the local model did not become ready within 60 s" >&2
  return 1
}
