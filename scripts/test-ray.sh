#!/usr/bin/env bash
# agon.ray's tests: a real two-node Ray cluster on this machine (`ray start
# --head` and a second node joined to it, on loopback addresses, torn down by
# the tests however they end), against the test server. 200 debates must give
# the lines `agon batch` gives, byte for byte; one in-flight limit must hold
# over both nodes as the server sees it; a killed runner must lose nothing;
# a rerun must skip finished debates and resume the rest from their journals.
# Under faults: a second run on the same output is refused; a dead limiter
# leaves journals, not error lines; a killed limiter is restarted with its
# leases kept; a bad journal is set aside and its debate run afresh.
#
# Set-up through scripts/setup-sdk.sh (ray, pinned, into .venv-sdk; skipped
# when already there). AGON_RAY_DEBATES changes the sweep's size (default 200).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
step() { printf '\n=== %s\n' "$*" >&2; }

step "SDK set-up (ray included)"
scripts/setup-sdk.sh
# shellcheck source=scripts/workspace-build.sh
source scripts/workspace-build.sh
workspace_build

step "agon.ray on a two-node Ray cluster (pytest)"
# From outside the source tree, so `import agon` is the installed package.
mkdir -p tests/out
(cd tests/out && "$root/.venv-sdk/bin/python" -m pytest -q -p no:cacheprovider "$root/bindings/python/tests/test_ray.py")
