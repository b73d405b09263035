#!/usr/bin/env bash
# Builds the JS and Python SDKs from the workspace, at pinned versions,
# skipping what is already there. Safe to run again. Used by test-sdk.sh.
#
# 1. target/agon.wasm and target/agon-report.wasm, the engine's and the
#    report's components (cargo run -p xtask -- component [--report]);
# 2. bindings/js: npm ci from the lockfile, then jco transpiles both into gen/;
# 3. bindings/python: both components and the model catalog (catalog/models.json)
#    copied into the package, and .venv-sdk with the
#    pinned test tools, Ray (for agon.ray) and the package itself installed
#    (pip install ./bindings/python).
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '[setup-sdk] %s\n' "$*" >&2; }
# scripts/test.sh sets the SDKs up once, then runs their tests and agon.ray's
# at the same time: a second set-up would reinstall the package under them.
if [ "${AGON_SDK_READY:-}" = 1 ]; then
  say "set up already in this run (AGON_SDK_READY=1)"
  exit 0
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
say "building target/agon.wasm and target/agon-report.wasm"
# shellcheck source=scripts/workspace-build.sh
source scripts/workspace-build.sh
workspace_build
"$AGON_XTASK" component --output target/agon.wasm >&2
"$AGON_XTASK" component --report --output target/agon-report.wasm >&2

# JS: the lockfile pins jco-transpile and everything under it, and lists
# jco-node-fs's optional packages for every platform (`npm ci` refuses a
# lockfile without them). `npm install` keeps to an in-sync lockfile and,
# unlike `npm ci`, leaves node_modules in place when only one package moved.
if ! (cd bindings/js && node -e '
  const deps = require("./package.json").devDependencies;
  for (const [name, version] of Object.entries(deps))
    if (require(`./node_modules/${name}/package.json`).version !== version) process.exit(1);' 2>/dev/null); then
  say "npm install in bindings/js (from its lockfile)"
  (cd bindings/js && npm install --no-audit --no-fund --loglevel=error)
fi
say "transpiling the components for JS (bindings/js/gen)"
(cd bindings/js && node scripts/build.mjs ../../target/agon.wasm ../../target/agon-report.wasm >&2)

# Python: the components and the model catalog ship inside the package.
cp target/agon.wasm bindings/python/src/agon/agon.wasm
cp target/agon-report.wasm bindings/python/src/agon/agon-report.wasm
cp catalog/models.json bindings/python/src/agon/models.json
if [ ! -x .venv-sdk/bin/python ]; then
  say "creating .venv-sdk"
  python3 -m venv .venv-sdk
fi
# Each requirements file is skipped when every pin in it is already installed
# at its version: the test tools, and Ray for agon.ray's tests.
for requirements in bindings/python/requirements-test.txt bindings/python/requirements-ray.txt; do
  if ! .venv-sdk/bin/python - "$requirements" <<'PY'
import sys
from importlib.metadata import PackageNotFoundError, version
pins = [l.split("#")[0].strip() for l in open(sys.argv[1])]
try:
    sys.exit(any(version(n) != v for n, v in (p.split("==") for p in pins if p)))
except PackageNotFoundError:
    sys.exit(1)
PY
  then
    say "installing the pinned packages of $requirements into .venv-sdk"
    .venv-sdk/bin/python -m pip install --quiet --disable-pip-version-check -r "$requirements"
  fi
done
say "pip install ./bindings/python into .venv-sdk"
.venv-sdk/bin/python -m pip install --quiet --disable-pip-version-check --no-deps --force-reinstall \
  --no-build-isolation ./bindings/python
