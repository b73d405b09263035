#!/usr/bin/env bash
# The packages as a registry would get them, each checked from clean:
#
# 1. crates.io: `cargo package` (which builds the packaged crate on its own,
#    from its .crate file) for agon-core, agon-wire, agon-html and agon-cli,
#    the last with the component, catalog and WIT it carries
#    (scripts/package-cli.sh), so `cargo install agon-cli` builds.
# 2. npm: `npm pack` of bindings/js, the tarball installed into a fresh
#    project, which replays a golden case from its journal and must give its
#    transcript byte for byte.
# 3. PyPI: `python -m build --wheel` of bindings/python, the wheel installed
#    into a fresh venv, which replays the same golden case the same way.
# 4. The README's install line, run as written into a fresh
#    CARGO_INSTALL_ROOT: `agon --version` from there.
# 5. PyPI: the CLI's binary wheel (maturin, `bindings = "bin"`, as ruff and
#    uv ship theirs), installed into a fresh venv: `agon --version` on its
#    PATH. Built with the release profile, as release.sh builds it: maturin
#    reuses the release build scripts/check-sizes.sh made (seconds, where a
#    dev build of the CLI alone would rebuild wasmtime).
#
# Both the tarball and the wheel must carry both components and the model
# catalog (catalog/models.json), which buildSpec / build_spec use. Everything is
# built and installed under $TMPDIR (scripts/test.sh gives each run its own),
# removed when this script ends.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
step() { printf '\n--- %s\n' "$*" >&2; }
fail() { echo "test-packages: $*" >&2; exit 1; }

case_name=challenge-partial-escalate
golden="$root/tests/golden/$case_name"
work="$(mktemp -d "${TMPDIR:-/tmp}/agon-packages.XXXXXX")"
trap 'rm -rf "$work"' EXIT

step "set-up: the SDKs (target/agon.wasm and agon-report.wasm, bindings/js/gen, the wheel's copies) and the build tools"
scripts/setup-sdk.sh
scripts/setup-packages.sh

step "cargo package: agon-core, agon-wire, agon-html, agon-cli (each verified: built from its .crate alone)"
# The shared target directory, where the test build's dependencies are
# reused (scripts/test.sh has packed and verified them already, so this is quick there).
cargo_target="${CARGO_TARGET_DIR:-$root/target}"
scripts/package-cli.sh "$cargo_target"
for crate in agon-core agon-wire agon-html agon-cli; do
  ls "$cargo_target/package/$crate-"*.crate >/dev/null || fail "no .crate for $crate"
done

step "npm pack bindings/js, installed into a fresh project, replaying $case_name"
# Packed from a copy that has the licence files beside package.json.
mkdir "$work/js-src"
cp -r bindings/js/package.json bindings/js/README.md bindings/js/src bindings/js/gen LICENSE-MIT LICENSE-APACHE "$work/js-src/"
(cd "$work/js-src" && npm pack --silent --pack-destination "$work" >/dev/null)
tarball="$(ls "$work"/agon-debate-*.tgz)"
# Listed to a file first: `grep -q` quits early, and pipefail would count the lister's SIGPIPE.
tar -tzf "$tarball" >"$work/npm-files"
grep -q '^package/gen/agon\.core\.wasm$' "$work/npm-files" || fail "$tarball carries no engine component (gen/agon.core.wasm)"
grep -q '^package/gen/report\.core\.wasm$' "$work/npm-files" || fail "$tarball carries no report component (gen/report.core.wasm)"
for file in README.md LICENSE-MIT LICENSE-APACHE gen/models.json gen/catalog.js; do
  grep -qx "package/$file" "$work/npm-files" || fail "$tarball carries no $file"
done
mkdir "$work/npm-user"
(cd "$work/npm-user" &&
  printf '{"name":"npm-user","private":true,"type":"module"}\n' >package.json &&
  npm install --no-audit --no-fund --offline --loglevel=error "$tarball" &&
  GOLDEN="$golden" node --input-type=module -e '
    import { readFileSync } from "node:fs";
    import { Session, buildSpec } from "agon-debate";
    import { transcriptMarkdown } from "agon-debate/report";
    const read = (f) => readFileSync(`${process.env.GOLDEN}/${f}`, "utf8");
    const session = Session.fromJournal(read("journal.ndjson"));
    while (session.poll().tag !== "done");
    if (session.transcriptJson() !== read("transcript.json")) throw new Error("transcript.json differs");
    if (transcriptMarkdown(session) !== read("transcript.md")) throw new Error("transcript.md differs");
    const spec = buildSpec({ question: "q", protocol: "round-robin", models: ["openai/gpt-5"] });
    if (!spec.models?.["openai/gpt-5"]?.reasoning) throw new Error("buildSpec did not take the shipped catalog");
    console.log("npm: the installed tarball replays the golden case byte for byte; buildSpec has the catalog");')

step "python -m build --wheel bindings/python, installed into a fresh venv, replaying $case_name"
# --no-isolation: the backend is .venv-pkg's pinned setuptools, not whatever
# PyPI serves today. Built from a copy so no build/ or egg-info is left here.
cp -r bindings/python "$work/python-src"
cp LICENSE-MIT LICENSE-APACHE "$work/python-src/"
.venv-pkg/bin/python -m build --wheel --no-isolation --outdir "$work/dist" "$work/python-src" >/dev/null
wheel="$(ls "$work"/dist/agon_debate-*.whl)"
python3 -m zipfile -l "$wheel" >"$work/wheel-files"
grep -q '^agon/agon.wasm ' "$work/wheel-files" || fail "$wheel carries no component (agon/agon.wasm)"
grep -q '^agon/agon-report.wasm ' "$work/wheel-files" || fail "$wheel carries no report component (agon/agon-report.wasm)"
grep -q '^agon/models.json ' "$work/wheel-files" || fail "$wheel carries no model catalog (agon/models.json)"
grep -q 'dist-info/licenses/LICENSE-MIT ' "$work/wheel-files" || fail "$wheel carries no LICENSE-MIT"
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$wheel"
(cd "$work" && GOLDEN="$golden" "$work/venv/bin/python" - <<'PY'
import os, pathlib
import agon
golden = pathlib.Path(os.environ["GOLDEN"])
read = lambda f: (golden / f).read_text()
assert pathlib.Path(agon.__file__).is_relative_to(pathlib.Path(os.getcwd())), agon.__file__
with agon.Session.from_journal(read("journal.ndjson")) as session:
    while session.poll().tag != "done":
        pass
    assert session.transcript_json() == read("transcript.json"), "transcript.json differs"
    assert session.transcript_markdown() == read("transcript.md"), "transcript.md differs"
spec = agon.build_spec({"question": "q", "protocol": "round-robin", "models": ["openai/gpt-5"]})
assert spec["models"]["openai/gpt-5"]["reasoning"], "build_spec did not take the shipped catalog"
print("wheel: the installed wheel replays the golden case byte for byte; build_spec has the catalog")
PY
)
step "the README's install line, as written, into a fresh CARGO_INSTALL_ROOT: agon --version"
# Taken from the README, and the Quick start must show the same line. A
# --path install builds in the workspace's target directory, so the release
# build scripts/check-sizes.sh made is reused (from a fresh clone it is a
# full release build: BENCHMARKS.md times it).
install_line="$(grep -m1 '^rustup target add wasm32-unknown-unknown && cargo install ' README.md)" ||
  fail "the README shows no install line"
grep -qxF "$install_line" docs/src/quickstart.md || fail "the Quick start's install line is not the README's: $install_line"
CARGO_INSTALL_ROOT="$work/install" bash -c "$install_line" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log" >&2; fail "the README's install line failed: $install_line"; }
installed="$("$work/install/bin/agon" --version | head -n 1)"
[ "$installed" = "agon $(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)" ] ||
  fail "the installed agon says '$installed'"
echo "install: '$install_line' put $installed in \$CARGO_INSTALL_ROOT/bin"

step "maturin build host-cli (the CLI as a binary wheel), installed into a fresh venv: agon --version"
.venv-pkg/bin/maturin build --quiet --release -m host-cli/Cargo.toml --out "$work/cli-dist" >/dev/null
cli_wheel="$(ls "$work"/cli-dist/agon_cli-*.whl)"
python3 -m zipfile -l "$cli_wheel" >"$work/cli-wheel-files"
grep -q '^agon_cli-[^/]*\.data/scripts/agon ' "$work/cli-wheel-files" || fail "$cli_wheel carries no agon binary"
python3 -m venv "$work/cli-venv"
"$work/cli-venv/bin/python" -m pip install --quiet --disable-pip-version-check "$cli_wheel"
version="$(env -i PATH="$work/cli-venv/bin:/usr/bin:/bin" agon --version)"
expected="agon $(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)"
[ "$(printf '%s\n' "$version" | head -n 1)" = "$expected" ] || fail "the wheel's agon says '$version', not '$expected'"
printf '%s\n' "$version" | grep -q '^engine: agon-core ' || fail "the wheel's agon --version names no engine: $version"
echo "cli wheel: $(basename "$cli_wheel") installs agon on the venv's PATH: $(printf '%s' "$version" | tr '\n' ' ')"
echo "test-packages: 5 passed, 0 failed"
