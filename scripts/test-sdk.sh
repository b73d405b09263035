#!/usr/bin/env bash
# The JS and Python SDKs' tests: golden cases byte for byte (node:test, pytest),
# the cross-host test (CLI, JS and Python against the test server write the same
# transcript), installing each package as a user would, and each SDK end to end
# against the real local model.
#
# Starts the local model itself unless AGON_LOCAL_MODEL_URL already names one
# (scripts/test.sh passes the one it started).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
step() { printf '\n=== %s\n' "$*" >&2; }

step "SDK set-up"
scripts/setup-sdk.sh
# shellcheck source=scripts/workspace-build.sh
source scripts/workspace-build.sh
workspace_build

step "npm install ./bindings/js into a fresh project"
# In the git-ignored tests/out/, so no exit trap is needed (start_local_model sets its own).
js_user="$root/tests/out/js-user"
rm -rf "$js_user" && mkdir -p "$js_user"
(cd "$js_user" && printf '{"name":"js-user","private":true,"type":"module"}\n' >package.json &&
  npm install --no-audit --no-fund --offline --loglevel=error "$root/bindings/js" &&
  node --input-type=module -e '
    import { runDebate } from "agon-debate";
    const spec = { question: "Tea or coffee?", panel: [{ id: "a", model: "openai/x" }, { id: "b", model: "openai/y" }], protocol: { name: "round-robin" }, rounds: 1 };
    const t = await runDebate(spec, async (r) => `${r.seat} prefers tea.`);
    if (t.turns.length !== 2 || t.outcome.kind !== "completed") throw new Error(JSON.stringify(t.outcome));
    console.log("a fresh project imports agon and runs a debate:", t.outcome.kind);')

if [ -z "${AGON_LOCAL_MODEL_URL:-}" ]; then
  # Start the model only after building: it crawls while cargo holds the cores.
  scripts/setup.sh
  # shellcheck source=scripts/local-model.sh
  source scripts/local-model.sh
  start_local_model
  export AGON_LOCAL_MODEL_URL="$OPENAI_BASE_URL"
fi

step "the book's SDK examples (docs/src/sdks.md), verbatim, against the local model"
python3 - <<'PY'
import pathlib, sys
readme = pathlib.Path("docs/src/sdks.md").read_text()
for example in ("bindings/js/examples/debate.mjs", "bindings/python/examples/debate.py"):
    if pathlib.Path(example).read_text() not in readme:
        sys.exit(f"docs/src/sdks.md does not show {example} verbatim")
PY
(cd bindings/js && OPENAI_BASE_URL="$AGON_LOCAL_MODEL_URL" node examples/debate.mjs | tail -n 3)
(cd "$js_user" && OPENAI_BASE_URL="$AGON_LOCAL_MODEL_URL" "$root/.venv-sdk/bin/python" "$root/bindings/python/examples/debate.py" | tail -n 3)

step "JS SDK: TypeScript declarations (tsc over test/types)"
(cd bindings/js && node_modules/.bin/tsc -p test/types)

step "JS SDK (node:test)"
(cd bindings/js && node --test test/*.test.mjs)

step "Python SDK: type hints (mypy --strict)"
.venv-sdk/bin/python -m mypy --strict --cache-dir tests/out/mypy-cache bindings/python/src/agon

step "Python SDK (pytest, against the installed package)"
# Run from outside the source tree so `import agon` is the installed package.
# agon.ray's tests have their own script (scripts/test-ray.sh, a Ray cluster).
(cd "$js_user" && "$root/.venv-sdk/bin/python" -m pytest -q -p no:cacheprovider "$root/bindings/python/tests" \
  --ignore "$root/bindings/python/tests/test_ray.py")
