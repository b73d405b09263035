#!/usr/bin/env bash
# The main job: a real debate against the embedded local model (SmolLM2 via
# llama.cpp's server), streamed to the terminal. Sets everything up first.
#
#   scripts/demo.sh ["Your question"] [extra agon run flags...]
#
# AGON_DEMO_PROFILE=debug uses the debug build instead of the release one:
# the test command runs this script that way, to keep it working without a
# release build's minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
case "${AGON_DEMO_PROFILE:-release}" in
  release) cargo build --release --quiet -p agon-cli; agon="${CARGO_TARGET_DIR:-target}/release/agon" ;;
  debug)
    # shellcheck source=scripts/workspace-build.sh
    source scripts/workspace-build.sh
    workspace_build
    agon="$AGON_BIN" ;;
  *) echo "demo.sh: AGON_DEMO_PROFILE is release or debug" >&2; exit 2 ;;
esac
# Start the model only after building: it crawls while cargo holds the cores.
# shellcheck source=scripts/local-model.sh
source scripts/local-model.sh
start_local_model

question="${1:-Should a five-person startup write its backend in Rust or in Go?}"
# One local model plays every seat and judges, on purpose: --allow-one-model
# says so, so the run warns only about what happens in it.
shift || true
"$agon" run "$question" \
  --protocol rotating-challenger \
  --panel openai/smollm2,openai/smollm2,openai/smollm2 \
  --judge openai/smollm2 --allow-one-model \
  --rounds 1 --max-tokens 120 --judge-max-tokens 200 \
  "$@"
