#!/usr/bin/env bash
# Builds every release artifact into target/release-artifacts/, with their
# SHA-256 checksums in SHA256SUMS:
#
#   agon-VERSION-TARGET          the CLI binary (release profile)
#   agon_cli-VERSION-*.whl       the same binary as a wheel (`pipx install`, `uv tool install`)
#   agon-*-VERSION.crate         agon-core, agon-wire, agon-html, agon-cli for crates.io
#                                (scripts/package-cli.sh; agon-cli carries its component)
#   agon-debate-VERSION.tgz      the npm package (the component inside)
#   agon_debate-VERSION-*.whl    the Python wheel (the component inside)
#   agon-extension-VERSION.zip   the Chrome extension (scripts/build-extension.sh)
#   agon-web-demo-VERSION.tar.gz the browser page, built (scripts/build-web.sh)
#
#   scripts/release.sh [--skip-binary]
#
# --skip-binary leaves out the CLI (the binary and its wheel), whose release
# build (fat LTO) takes many minutes on two cores. The binary runs on the glibc it is built against and
# newer (packed relocations need 2.36: host-cli/build/packed_relocations.rs);
# build it on the oldest system it is for, or with AGON_PACK_RELOCATIONS=0. Not part of the test command: scripts/test-packages.sh
# checks the npm package and the wheel the same way, from clean.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '[release] %s\n' "$*" >&2; }

skip_binary=false
[ "${1:-}" = "--skip-binary" ] && skip_binary=true
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)"
out=target/release-artifacts
work="$(mktemp -d "${TMPDIR:-/tmp}/agon-release.XXXXXX")"
trap 'rm -rf "$work"' EXIT
rm -rf "$out" && mkdir -p "$out"

say "the SDKs' set-up (the component, jco's transpile) and the build tools"
scripts/setup-sdk.sh
scripts/setup-packages.sh

if ! $skip_binary; then
  say "the CLI, release profile, as a wheel (maturin) and as the binary inside it"
  .venv-pkg/bin/maturin build --quiet --release -m host-cli/Cargo.toml --out "$out" >/dev/null
  host="$(rustc -vV | sed -n 's/^host: //p')"
  python3 -m zipfile -e "$out"/agon_cli-"$version"-*.whl "$work/cli-wheel"
  cp "$work/cli-wheel/agon_cli-$version.data/scripts/agon" "$out/agon-$version-$host"
  chmod +x "$out/agon-$version-$host"
fi

say "the crates (agon-cli with the component it carries)"
scripts/package-cli.sh "${CARGO_TARGET_DIR:-target}"
cp "${CARGO_TARGET_DIR:-target}"/package/agon-*-"$version".crate "$out/"

say "the npm package"
mkdir "$work/js"
cp -r bindings/js/package.json bindings/js/README.md bindings/js/src bindings/js/gen LICENSE-MIT LICENSE-APACHE "$work/js/"
(cd "$work/js" && npm pack --silent --pack-destination "$work" >/dev/null)
cp "$work"/agon-debate-*.tgz "$out/"

say "the Python wheel"
cp -r bindings/python "$work/python"
rm -rf "$work/python/build" "$work/python"/src/*.egg-info
cp LICENSE-MIT LICENSE-APACHE "$work/python/"
.venv-pkg/bin/python -m build --wheel --no-isolation --outdir "$out" "$work/python" >/dev/null

say "the browser extension"
scripts/setup-web.sh  # wasm-bindgen-cli and wasm-opt for the page's build
scripts/build-extension.sh
cp target/extension/agon-extension.zip "$out/agon-extension-$version.zip"

say "the browser page"
# build-extension.sh built it into target/web-demo/; a reproducible tarball.
# (build-web.sh's note of what it was built from is not part of it.)
tar --sort=name --mtime='2026-01-01 00:00Z' --owner=0 --group=0 --numeric-owner \
  --exclude=web-demo/.built-from -C target -czf "$out/agon-web-demo-$version.tar.gz" web-demo

(cd "$out" && sha256sum -- * >SHA256SUMS)
say "done: $out"
cat "$out/SHA256SUMS"
