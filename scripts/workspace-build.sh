# shellcheck shell=bash
# Sourced by the scripts that need agon, the test server, the bench runner or
# xtask: one dev build of every workspace target, the build the workspace
# tests make. Cargo resolves dependency features per package selection, so a
# script building `-p agon-cli` alone would leave out features the tests turn
# on (agon-core's `testing`, wasmparser's defaults) and rebuild wasmtime and
# everything above it; with one selection everywhere each is built once, and
# after the workspace tests this is a no-op.
#
# Sets AGON_BIN, AGON_TEST_SERVER, AGON_BENCH_BIN and AGON_XTASK.
workspace_build() {
  cargo build --quiet --workspace --all-targets
  local debug
  debug="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/debug"
  export AGON_BIN="$debug/agon" AGON_TEST_SERVER="$debug/agon-test-server"
  export AGON_BENCH_BIN="$debug/agon-bench" AGON_XTASK="$debug/xtask"
}
