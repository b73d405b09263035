#!/usr/bin/env bash
# Every test agon has, from a fresh clone: set-up, formatting, lints, the
# workspace tests (core, component parity, CLI end to end against the test
# server), then the end-to-end runs against the real local model.
#
#   scripts/test.sh           everything (what CI runs)
#   scripts/test.sh --quick   the loop while changing the engine or the CLI:
#                             rustfmt, clippy, rustdoc and the tests of agon-core and
#                             agon-cli (a few minutes once built)
set -euo pipefail
cd "$(dirname "$0")/.."

# Everything the tests write to a temp folder (servers' configs, browser
# profiles, sessions, Ray's session files) goes into one folder for this run,
# removed when the run ends however it ends: the stages run in a child so
# their own exit traps (the local model's) cannot replace this one.
if [[ -z "${AGON_RUN_TMPDIR:-}" ]]; then
  AGON_RUN_TMPDIR="$(mktemp -d "${TMPDIR:-/tmp}/agon-run.XXXXXX")"
  export AGON_RUN_TMPDIR TMPDIR="$AGON_RUN_TMPDIR"
  trap 'rm -rf "$AGON_RUN_TMPDIR"' EXIT
  "$0" "$@"
  exit
fi
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
# The whole test command is CI, wherever it runs: a test whose tool is
# missing fails instead of skipping, and no expected file is rewritten.
export CI=true
# Each stage's heading says how long the run has taken so far, so a log shows
# where the time goes, and the CPU its finished commands took (a lane's when
# it is joined), which, unlike the wall time, does not depend on what else runs.
started=$SECONDS
step() {
  # `times` in this shell: a subshell's would count none of the children.
  local user sys
  times >"$AGON_RUN_TMPDIR/times"
  { read -r _; read -r user sys; } <"$AGON_RUN_TMPDIR/times"
  printf '\n=== [%dm%02ds, cpu %s user %s sys] %s\n' $(((SECONDS - started) / 60)) $(((SECONDS - started) % 60)) \
    "$user" "$sys" "$*" >&2
}

quick=false
case "${1:-}" in
  --quick) quick=true ;;
  "") ;;
  *) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
esac

step "set-up"
scripts/setup.sh
# Each test in its own process, two at a time (cargo-nextest, from setup.sh).
nextest() { .venv/bin/cargo-nextest nextest run --no-fail-fast --cargo-quiet "$@"; }

if $quick; then
  step "rustfmt"
  cargo fmt --all -- --check
  # The full command's selections (--workspace), so neither loop rebuilds
  # what the other built with other dependency features; only the tests run
  # are narrowed.
  step "clippy (warnings denied)"
  cargo clippy --workspace --all-targets --quiet -- -D warnings
  step "rustdoc (warnings denied)"
  RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
  step "tests, agon-core and agon-cli"
  nextest --workspace -E 'package(agon-core) | package(agon-cli)'
  step "done"
  exit 0
fi

# Lanes: builds that no stage before them needs, run in a session of their
# own beside the stages, each joined (its log shown if it failed) where a
# stage first needs it. Much of a build on two cores keeps one busy (a fat LTO
# link, the component's precompile, one large crate), so a lane keeps the
# other core working.
declare -A lane_pids=() lane_started=()
# lane_start NAME COMMANDS [NICENESS]
lane_start() {
  local name="$1" commands="$2" niceness="${3:-0}"
  step "lane '$name' started beside the stages (its log is shown if it fails)"
  # In a session of its own, so an early exit stops its whole process tree.
  # Where the kernel groups each session's processes for scheduling
  # (autogroup), `nice` counts only inside the group: the group's own
  # niceness is set too.
  setsid bash -ec "echo $niceness >/proc/self/autogroup 2>/dev/null || true
    renice -n $niceness -p \$\$ >/dev/null
    $commands
    echo \$SECONDS >'$AGON_RUN_TMPDIR/lane-$name.took'" >"$AGON_RUN_TMPDIR/lane-$name.log" 2>&1 &
  lane_pids[$name]=$!
  lane_started[$name]=$((SECONDS - started))
}
lane_join() {
  local name="$1" pid="${lane_pids[$1]:-}"
  [ -n "$pid" ] || return 0
  unset "lane_pids[$name]"
  if ! wait "$pid"; then
    cat "$AGON_RUN_TMPDIR/lane-$name.log" >&2
    echo "test.sh: lane '$name' failed (its log is above)" >&2
    exit 1
  fi
  local ended=$((${lane_started[$name]} + $(cat "$AGON_RUN_TMPDIR/lane-$name.took")))
  step "lane '$name' joined: it ended at [$((ended / 60))m$(printf %02d $((ended % 60)))s]"
}
stop_lanes() {
  local pid
  for pid in "${lane_pids[@]}"; do kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true; done
}
trap stop_lanes EXIT

# The instruction workload, the fuzz targets and the page's wasm: beside
# clippy and the workspace build; the workspace tests wait for them, so they
# run on quiet cores. (The fuzz targets' build was tried in a niced lane
# beside the browser and local-model stages: they leave it too little CPU,
# and it ended last.)
lane_start builds 'scripts/check-instructions.sh --build-only
  scripts/fuzz.sh --build-only
  scripts/test-web.sh --build-only'

# What ships: the release agon (sizes; the README's install line and the
# CLI's wheel reuse it), in a lane from the start, niced: the stages, the
# local model's above all, come first, and it takes what they leave. Its
# last step, the fat-LTO link of agon (about 1.5 CPU-minutes on one core),
# can only start once everything else in it is built; started after clippy
# (as before 2026-11-29), that link ran after the stages ended. Its build
# script finds the component and its machine code in the content-keyed
# cache that clippy's build fills (niced, it reaches its build script long
# after clippy's; were it first, it would compile them itself).
lane_start shipped 'scripts/check-sizes.sh --build-only' 19

step "rustfmt"
cargo fmt --all -- --check

step "clippy (warnings denied)"
cargo clippy --workspace --all-targets --quiet -- -D warnings

step "docs and dependencies (cargo doc and cargo-deny, warnings denied)"
scripts/lint.sh

step "the book (docs/): mdBook builds it; links, anchors and command marks checked"
scripts/test-docs.sh

step "workspace tests"
# Built first, then run once the lane's builds are done: the tests run on quiet cores.
cargo test --workspace --no-run --quiet
lane_join builds
nextest --workspace
cargo test --workspace --doc --quiet

step "the engine's instruction counts within their budgets (bench/instructions/budgets)"
scripts/check-instructions.sh

step "the crates packed as for crates.io, each built from its .crate alone"
# Here, not in a lane: it builds in the dev profile and the workspace's target
# directory, reusing the test build's dependencies (about a minute on a fresh
# clone, where a directory of its own took 6.9 CPU-minutes), and the stages
# after it would wait on that directory's lock.
scripts/package-cli.sh

# MCP clients against agon mcp, mostly waiting on a slow scripted seat and
# the conformance suite's scenarios: beside the stages, its log shown when joined.
lane_start mcp 'scripts/test-mcp.sh'

step "the SDKs, built once for the stages and the lane that use them"
# The component, the JS bindings and .venv-sdk, then left as they are
# (AGON_SDK_READY): the Ray lane's tests and the SDK stage's run at once.
scripts/setup-sdk.sh
export AGON_SDK_READY=1
# agon.ray on a two-node Ray cluster against the test server: mostly waiting
# on the scripted seats' latency, beside the stages (niced a little: the local
# model's stages come first); its log shown when joined.
lane_start ray 'scripts/test-ray.sh' 5

step "benchmarks, quick mode (they still run; numbers come from scripts/bench.sh)"
scripts/bench.sh --quick

step "fuzzing, bounded"
scripts/fuzz.sh 20

step "browser demo (web-demo/) in headless Chromium"
scripts/test-web.sh

step "end to end against the real local model"
# shellcheck source=scripts/local-model.sh
source scripts/local-model.sh
start_local_model
# --workspace: the dependency features of the build the tests above made (one
# package alone resolves others, and would rebuild wasmtime).
cargo test --workspace --test cli --quiet local_model:: -- --include-ignored --test-threads 1
# The README's first command, on the debug build (its release build takes minutes).
# Flags after the question replace the script's own (a flag given again wins).
AGON_DEMO_PROFILE=debug AGON_DATA_DIR="$TMPDIR/demo-sessions" scripts/demo.sh "Tea or coffee?" \
  --max-tokens 40 --judge-max-tokens 60 --quiet

step "JS and Python SDKs (golden, cross-host, local model)"
AGON_LOCAL_MODEL_URL="$OPENAI_BASE_URL" scripts/test-sdk.sh

step "agon mcp: the MCP Python SDK as a client, and the MCP conformance suite (its lane's log)"
lane_join mcp
cat "$AGON_RUN_TMPDIR/lane-mcp.log" >&2

step "agon.ray: Python SDK debates on a two-node Ray cluster (its lane's log)"
lane_join ray
cat "$AGON_RUN_TMPDIR/lane-ray.log" >&2
# The packages' step sets the SDKs up again, from clean.
unset AGON_SDK_READY

lane_join shipped
step "sizes: the release agon, the component and the page's wasm within their budgets (bench/size/budgets)"
scripts/check-sizes.sh

step "packages: cargo package, npm pack and python -m build, each installed from clean and replaying a golden case"
scripts/test-packages.sh

step "done"
