#!/usr/bin/env bash
# agon's benchmarks. Full mode writes BENCHMARKS.md; --quick only checks that
# every benchmark still runs (seconds; used by scripts/test.sh).
#   scripts/bench.sh [--quick] [--peers]
# --peers also runs frontier-council 0.2.1 and llm-council-core 0.53.0 against
# the same test server, installed from PyPI into a throwaway venv outside the
# repository ($AGON_BENCH_PEERS_VENV, default $TMPDIR/agon-bench-peers).
set -euo pipefail
cd "$(dirname "$0")/.."
quick=false peers=()
for arg in "$@"; do
  case "$arg" in
    --quick) quick=true ;;
    --peers)
      venv="${AGON_BENCH_PEERS_VENV:-${TMPDIR:-/tmp}/agon-bench-peers}"
      [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
      "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        frontier-council==0.2.1 llm-council-core==0.53.0
      peers=(--peers "$venv/bin/python") ;;
    *) echo "usage: scripts/bench.sh [--quick] [--peers]" >&2; exit 2 ;;
  esac
done
if $quick; then
  # The workspace's selection, as the tests build it: nothing is rebuilt.
  # shellcheck source=scripts/workspace-build.sh
  source scripts/workspace-build.sh
  workspace_build
  cargo test --quiet --workspace --bench engine          # each criterion bench once
  "$AGON_BENCH_BIN" --quick >/dev/null                   # every table, short latencies
  "$AGON_BENCH_BIN" --quick --launch-only >/dev/null     # the A/B launch mode
  echo "bench quick mode: every benchmark ran"
  exit 0
fi
# The other hosts' rows need their builds; without them the rows say "not built".
scripts/setup-sdk.sh >/dev/null 2>&1 || echo "bench: SDKs not built; their rows will say so" >&2
{ [ -d web-demo/node_modules ] || (cd web-demo && npm ci --no-audit --no-fund --loglevel=error); } &&
  scripts/build-web.sh >/dev/null 2>&1 || echo "bench: web demo not built; its rows will say so" >&2
cargo build --release --quiet -p agon-cli -p agon-bench
load="$(cut -d' ' -f1-3 /proc/loadavg)"
criterion="$(cargo bench --quiet -p agon-bench --bench engine -- --warm-up-time 2 --measurement-time 5 2>&1 | grep -E '^native|time:')"
tables="$(target/release/agon-bench "${peers[@]}")"
{
  echo "# Benchmarks"
  echo
  echo "Produced by \`scripts/bench.sh\` on $(nproc) cores ($(uname -m)), load average $load when it started, $(cut -d' ' -f1-3 /proc/loadavg) when it ended, $(date -u +%Y-%m-%d)."
  echo "Command: \`scripts/bench.sh $*\`. The CLI and the bench runner are release builds; times are medians; instruction counts come from valgrind's callgrind and do not depend on the load. Benchmarks, not tests: nothing asserts on time."
  echo
  echo "## Criterion: the native core"
  echo
  echo '```'
  echo "$criterion"
  echo '```'
  echo
  echo "$tables"
} > BENCHMARKS.md.new
# Keep the hand-written analysis at the end of the file.
if [ -f BENCHMARKS.md ] && grep -q '^## Analysis' BENCHMARKS.md; then
  echo >> BENCHMARKS.md.new
  sed -n '/^## Analysis/,$p' BENCHMARKS.md >> BENCHMARKS.md.new
fi
mv BENCHMARKS.md.new BENCHMARKS.md
echo "wrote BENCHMARKS.md"
