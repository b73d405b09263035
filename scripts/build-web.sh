#!/usr/bin/env bash
# Builds the browser demo into target/web-demo/: agon-core and the Rust host
# loop for wasm32, bound with wasm-bindgen, shrunk with wasm-opt, next to the
# static page. Prints the wasm's size raw and gzipped.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/web-demo

cargo build --quiet -p agon-web-demo --target wasm32-unknown-unknown --profile web
built="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/web/agon_web_demo.wasm"
wasm=$out/agon_web_demo_bg.wasm
wasm_opt=web-demo/node_modules/.bin/wasm-opt
# What is bound and shrunk follows from the built wasm, this script and the
# two tools alone: when none changed, the last result stands (binding and
# shrinking take about 20 s, and the test command asks for the page twice).
from="$(cat "$built" "$0" | sha256sum | cut -d' ' -f1) $(wasm-bindgen --version) $("$wasm_opt" --version)"
if [ ! -f "$wasm" ] || [ "$(cat "$out/.built-from" 2>/dev/null)" != "$from" ]; then
  rm -rf "$out" && mkdir -p "$out"
  wasm-bindgen --target web --no-typescript --out-dir "$out" "$built"
  # Features are read from the target_features section wasm-bindgen keeps.
  "$wasm_opt" -Oz --strip-debug --strip-producers "$wasm" -o "$wasm.opt"
  mv "$wasm.opt" "$wasm"
  printf '%s\n' "$from" >"$out/.built-from"
fi
cp web-demo/www/* "$out/"
printf '[build-web] %s: %s bytes, %s gzipped\n' "$wasm" "$(wc -c <"$wasm")" "$(gzip -9 -c "$wasm" | wc -c)" >&2
