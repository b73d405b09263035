#!/usr/bin/env bash
# Packs agon-cli for crates.io, with the workspace crates it takes from there
# (agon-core, agon-wire, agon-html, agon-catalog), as `cargo publish` would, and builds each
# from its .crate alone (cargo package's verification: no path into the
# workspace).
#
# A .crate has no workspace around it, so agon-cli's cannot build the
# component from the core's sources: it carries the component, the model
# catalog and the WIT it was packed with, in host-cli/bundled/ (git-ignored, written
# here), and its build script takes them when the workspace is absent
# (host-cli/build/component.rs). `cargo install agon-cli` then needs no wasm
# target.
#
#   scripts/package-cli.sh [TARGET_DIR]   # .crate files in TARGET_DIR/package/
#
# Publishing is then `cargo publish -p` of each, in this order, from this state.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:-${CARGO_TARGET_DIR:-target}}"
say() { printf '[package-cli] %s\n' "$*" >&2; }

say "the component, the catalog and the WIT, into host-cli/bundled/"
rm -rf host-cli/bundled && mkdir -p host-cli/bundled/wit
# shellcheck source=scripts/workspace-build.sh
source scripts/workspace-build.sh
workspace_build
"$AGON_XTASK" component --output host-cli/bundled/agon.wasm >/dev/null
cp catalog/models.json host-cli/bundled/models.json
cp wit/*.wit host-cli/bundled/wit/

say "cargo package agon-core agon-wire agon-html agon-catalog agon-cli (each built from its .crate)"
# --allow-dirty: bundled/ is git-ignored on purpose (a build product); the
# manifest's `include` packs it all the same.
# The verification builds in the dev profile, which .cargo/config.toml gives
# every build under the repository, so in the workspace's target directory it
# reuses the test build's dependencies (all but the CLI's own wasmtime, whose
# features the tests widen). Its component is compiled already, in the
# workspace's component folder (the cache is keyed by the component's bytes
# and wasmtime's settings).
AGON_COMPONENT_DIR="${AGON_COMPONENT_DIR:-$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/component}" \
  cargo package --quiet --allow-dirty \
  -p agon-core -p agon-wire -p agon-html -p agon-catalog -p agon-cli --target-dir "$target"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)"
crate="$target/package/agon-cli-$version.crate"
tar -tzf "$crate" >"$target/package/agon-cli-files"
for file in bundled/agon.wasm bundled/models.json bundled/wit/debate.wit build/component.rs README.md; do
  grep -qx "agon-cli-$version/$file" "$target/package/agon-cli-files" || { echo "package-cli: $crate carries no $file" >&2; exit 1; }
done
if grep -q "^agon-cli-$version/tests/" "$target/package/agon-cli-files"; then
  echo "package-cli: $crate carries the integration tests, which need the workspace" >&2
  exit 1
fi
say "done: $(ls "$target"/package/agon-*-"$version".crate | tr '\n' ' ')"
