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
# in the workspace's target directory it reuses that build's dependencies;
# the component is compiled already, in the workspace's component folder
# (cached by its bytes and wasmtime's settings).
#
# agon-cli is built beside one more member, `unify`. Alone, agon-cli resolves
# fewer features than the workspace's test build (which adds wasmtime's
# compiler, and other members' features of indexmap, semver and the like), so
# cargo would compile wasmtime and everything above it again: 2-3 CPU-minutes
# on a fresh clone. `unify` asks for those features, so the test build's
# dependencies serve. What this step checks is that each .crate builds from
# its own files; that agon-cli's own features suffice is checked by the
# release build (scripts/check-sizes.sh), which builds it alone. The library
# crates are built alone, as cargo package would (seconds).
verify="$target/package/verify"
rm -rf "$verify" && mkdir -p "$verify"
{
  echo '[workspace]'
  echo 'resolver = "2"'
  printf 'members = [%s, "unify"]\n' "$(printf '"%s-'"$version"'", ' "${crates[@]}" | sed 's/, $//')"
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
# `unify` asks for each registry package agon-cli uses with the features the
# workspace's build resolved it to (scripts/mirror-features.py): beside it,
# agon-cli's dependencies resolve as in that build, and are reused.
mkdir -p "$verify/unify/src" && : >"$verify/unify/src/lib.rs"
printf '[package]\nname = "unify"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n' >"$verify/unify/Cargo.toml"
python3 scripts/mirror-features.py . "$verify" agon-cli >"$verify/unify/Cargo.toml.new"
mv "$verify/unify/Cargo.toml.new" "$verify/unify/Cargo.toml"
for name in "${crates[@]}"; do
  beside=()
  [ "$name" = agon-cli ] && beside=(-p unify)
  AGON_COMPONENT_DIR="${AGON_COMPONENT_DIR:-$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/component}" \
    cargo build --quiet --offline --manifest-path "$verify/Cargo.toml" -p "$name" "${beside[@]}" --target-dir "$target"
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
