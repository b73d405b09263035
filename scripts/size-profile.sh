#!/usr/bin/env bash
# Where the component's bytes go: builds its core module as the shipped one
# is built (the `wasm` profile), but with the name section kept, into its own
# target directory, then prints code per crate and function and the data
# segments (bench/size/wasm_profile.py).
#   scripts/size-profile.sh [--report] [--top N]
# --report: the report component's module instead of the engine's.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
package=agon-component
if [ "${1:-}" = --report ]; then
  package=agon-report-component
  shift
fi
target_dir=target/size-profile
CARGO_PROFILE_WASM_STRIP=none cargo build --quiet -p "$package" --target wasm32-unknown-unknown \
  --profile wasm --target-dir "$target_dir"
python3 bench/size/wasm_profile.py "$target_dir/wasm32-unknown-unknown/wasm/${package//-/_}.wasm" "$@"
