#!/usr/bin/env bash
# agon's benchmarks. Full mode writes BENCHMARKS.md; --quick only checks that
# every benchmark still runs (seconds; used by scripts/test.sh).
#   scripts/bench.sh [--quick]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--quick" ]; then
  cargo test --quiet -p agon-bench --benches            # each criterion bench once
  cargo build --quiet -p agon-cli -p agon-bench
  cargo run --quiet -p agon-bench -- --quick >/dev/null  # every table, short latencies
  echo "bench quick mode: every benchmark ran"
  exit 0
fi
cargo build --release --quiet -p agon-cli -p agon-bench
criterion="$(cargo bench --quiet -p agon-bench --bench engine -- --warm-up-time 2 --measurement-time 5 2>&1 | grep -E '^native|time:')"
tables="$(target/release/agon-bench)"
{
  echo "# Benchmarks"
  echo
  echo "Produced by \`scripts/bench.sh\` on $(nproc) cores ($(uname -m)), load average $(cut -d' ' -f1-3 /proc/loadavg) when it started, $(date -u +%Y-%m-%d)."
  echo "The CLI and the bench runner are release builds; times are medians. Benchmarks, not tests: nothing asserts on time."
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
  sed -n '/^## Analysis/,$p' BENCHMARKS.md >> BENCHMARKS.md.new
fi
mv BENCHMARKS.md.new BENCHMARKS.md
echo "wrote BENCHMARKS.md"
