#!/usr/bin/env bash
# The engine's own cost, held to a budget as the artifacts' sizes are:
# callgrind counts the instructions of the standard workload (a 5-seat,
# 5-round rotating-challenger debate with scripted replies,
# agon_core::workload) natively and through the component, and each count
# must stay within bench/instructions/budgets. Instruction counts do not
# depend on the machine's load, unlike time, so a test can hold them.
#
# Each program plays the debate N times; one debate's count is the
# difference between two values of N over their difference, so start-up
# (and loading the component) cancels out.
#   native:    the core's `workload` example, built with the shipped settings
#              (profile `instructions`, which inherits `release`)
#   component: `agon-bench --instructions component N`, on the dev build
#              (wasmtime is optimized in dev builds; the wasm's machine code
#              is the shipped one)
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
# valgrind from Debian, installed when missing as the web set-up installs Chromium.
if ! command -v valgrind >/dev/null; then
  echo "[check-instructions] installing Debian's valgrind" >&2
  sudo_if_needed() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
  sudo_if_needed apt-get update -qq
  sudo_if_needed apt-get install -y -qq --no-install-recommends valgrind >/dev/null
fi

cargo build --profile instructions --quiet -p agon-core --features testing --example workload
# --build-only: that build alone (scripts/test.sh's lane of builds).
[ "${1:-}" = --build-only ] && exit 0
# shellcheck source=scripts/workspace-build.sh
source scripts/workspace-build.sh
workspace_build

# Instructions one debate costs in the program given.
per_debate() {
  local few many a b
  few=1 many=6
  a="$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" "$few" 2>&1 | sed -n 's/.*Collected : //p')"
  b="$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" "$many" 2>&1 | sed -n 's/.*Collected : //p')"
  [[ -n "$a" && -n "$b" ]] || { echo "check-instructions: callgrind gave no count for $*" >&2; exit 1; }
  echo $(((b - a) / (many - few)))
}

declare -A count
count[native-5x5]="$(per_debate "$target/instructions/examples/workload")"
count[component-5x5]="$(per_debate "$AGON_BENCH_BIN" --instructions component)"

over=0
declare -A seen=()
while read -r name budget _; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  [ -n "${count[$name]:-}" ] || { echo "check-instructions: bench/instructions/budgets names '$name', which this script does not measure" >&2; exit 2; }
  seen[$name]=1
  if ((count[$name] > budget)); then
    over=1
    printf 'check-instructions: %s is %d instructions, over its budget of %d (bench/instructions/budgets): +%d.\n' \
      "$name" "${count[$name]}" "$budget" "$((count[$name] - budget))" >&2
  else
    printf 'check-instructions: %-14s %11d instructions, budget %11d\n' "$name" "${count[$name]}" "$budget"
  fi
done < bench/instructions/budgets
for name in "${!count[@]}"; do
  [ -n "${seen[$name]:-}" ] || { echo "check-instructions: bench/instructions/budgets gives no budget for '$name'" >&2; exit 2; }
done
if ((over)); then
  echo "Find where they go with callgrind_annotate (docs/src/benchmarks.md says how); if the cost buys something, raise the budget in the same commit and say what in BENCHMARKS.md." >&2
  exit 1
fi
