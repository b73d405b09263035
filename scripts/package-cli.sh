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

say "cargo package agon-core agon-wire agon-html agon-catalog agon-cli"
# --allow-dirty: bundled/ is git-ignored on purpose (a build product); the
# manifest's `include` packs it all the same.
crates=(agon-core agon-wire agon-html agon-catalog agon-cli)
cargo package --quiet --allow-dirty --no-verify "${crates[@]/#/-p}" --target-dir "$target"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)"

say "each built from its .crate alone"
# What `cargo package` would verify, done here: each .crate unpacked and
# built on its own, taking the others from their .crate files (a [patch], as
# publishing them would), with the lock file agon-cli's .crate carries.
# cargo package's own verification takes them from a registry it keeps in the
# target directory, and cargo never rebuilds a registry crate whose version it
# has built there: a second run would check the first run's code. As paths,
# dated when unpacked, they are built afresh each time (seconds). The build
# takes the dev profile from .cargo/config.toml, as the test build does, so
# in the workspace's target directory it reuses much of that build (not the
# CLI's own wasmtime, whose features the tests widen, nor the build script's
# side: agon-cli alone unifies fewer features than the whole workspace); the
# component is compiled already, in the workspace's component folder (cached
# by its bytes and wasmtime's settings).
verify="$target/package/verify"
rm -rf "$verify" && mkdir -p "$verify"
{
  echo '[workspace]'
  echo 'resolver = "2"'
  printf 'members = [%s]\n' "$(printf '"%s-'"$version"'", ' "${crates[@]}" | sed 's/, $//')"
  echo '[patch.crates-io]'
  for name in "${crates[@]}"; do
    [ "$name" = agon-cli ] || echo "$name = { path = \"$name-$version\" }"
  done
} >"$verify/Cargo.toml"
for name in "${crates[@]}"; do
  # -m: the files dated now. A .crate dates every file alike (2006), and cargo,
  # which compares dates, would take the last run's build as up to date.
  tar -xzmf "$target/package/$name-$version.crate" -C "$verify"
done
cp "$verify/agon-cli-$version/Cargo.lock" "$verify/Cargo.lock"
for name in "${crates[@]}"; do
  AGON_COMPONENT_DIR="${AGON_COMPONENT_DIR:-$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/component}" \
    cargo build --quiet --offline --manifest-path "$verify/Cargo.toml" -p "$name" --target-dir "$target"
done
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
