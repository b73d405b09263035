#!/usr/bin/env bash
# The main job: a real debate against the embedded local model (SmolLM2 via
# llama.cpp's server), streamed to the terminal. Sets everything up first.
#
#   scripts/demo.sh ["Your question"] [extra agon run flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --release --quiet -p agon-cli
# Start the model only after building: it crawls while cargo holds the cores.
# shellcheck source=scripts/local-model.sh
source scripts/local-model.sh
start_local_model

question="${1:-Should a five-person startup write its backend in Rust or in Go?}"
shift || true
target/release/agon run "$question" \
  --protocol rotating-challenger \
  --panel openai/smollm2,openai/smollm2,openai/smollm2 \
  --judge openai/smollm2 \
  --rounds 1 --max-tokens 120 --judge-max-tokens 200 \
  "$@"
