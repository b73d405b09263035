#!/usr/bin/env bash
# Builds what agon ships — the release `agon`, the engine's and the report's
# components, the page's wasm — and checks each against its budget in bench/size/budgets. A name
# ending in `.gz` is the artifact's size after `gzip -9`: about what the npm
# tarball, the wheel, the extension's zip and a compressing web server carry.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
# --build-only: the release build alone (scripts/test.sh starts it early, in its
# lane of builds, and checks the sizes later).
build_only=false
[ "${1:-}" = --build-only ] && build_only=true

cargo build --release --quiet -p agon-cli
$build_only && exit 0
# shellcheck source=scripts/workspace-build.sh
source scripts/workspace-build.sh
workspace_build
"$AGON_XTASK" component --output "$target/agon.wasm"
"$AGON_XTASK" component --report --output "$target/agon-report.wasm"
scripts/setup-web.sh  # wasm-bindgen and wasm-opt, for the page's wasm
scripts/build-web.sh

declare -A path=(
  [agon]="$target/release/agon"
  [agon.wasm]="$target/agon.wasm"
  [agon.wasm.gz]="$target/agon.wasm"
  [agon-report.wasm]="$target/agon-report.wasm"
  [agon-report.wasm.gz]="$target/agon-report.wasm"
  [web-wasm]="target/web-demo/agon_web_demo_bg.wasm"
  [web-wasm.gz]="target/web-demo/agon_web_demo_bg.wasm"
)
over=0
declare -A seen=()
while read -r name budget _; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  file="${path[$name]:-}"
  [ -n "$file" ] || { echo "check-sizes: bench/size/budgets names '$name', which this script does not know" >&2; exit 2; }
  [ -z "${seen[$name]:-}" ] || { echo "check-sizes: bench/size/budgets gives '$name' twice" >&2; exit 2; }
  seen[$name]=1
  if [[ "$name" == *.gz ]]; then
    bytes="$(gzip -9 -c "$file" | wc -c)"
    what="$file, gzipped,"
  else
    bytes="$(wc -c <"$file")"
    what="$file"
  fi
  if ((bytes > budget)); then
    over=1
    printf 'check-sizes: %s is %d bytes, over its budget of %d (bench/size/budgets): +%d.\n' \
      "$what" "$bytes" "$budget" "$((bytes - budget))" >&2
  else
    printf 'check-sizes: %-53s %9d bytes, budget %9d\n' "$what" "$bytes" "$budget"
  fi
done < bench/size/budgets
for name in "${!path[@]}"; do
  [ -n "${seen[$name]:-}" ] || { echo "check-sizes: bench/size/budgets gives no budget for '$name'" >&2; exit 2; }
done
if ((over)); then
  echo "If the growth is wanted, raise the budget in the same commit and say why in BENCHMARKS.md; scripts/size-profile.sh shows where the component's bytes go." >&2
  exit 1
fi
