#!/usr/bin/env bash
# Installs what scripts/test-packages.sh and scripts/release.sh need beyond
# the SDKs' set-up: .venv-pkg with PyPI's `build` front end and the
# setuptools backend (the SDK's wheel), and maturin (the CLI's wheel), at
# pinned versions, skipping them when they are there.
# Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_VERSION=1.6.1
SETUPTOOLS_VERSION=84.2.1
MATURIN_VERSION=1.16.0

if [ ! -x .venv-pkg/bin/python ]; then
  printf '[setup-packages] creating .venv-pkg\n' >&2
  python3 -m venv .venv-pkg
fi
installed() { .venv-pkg/bin/python -m pip show "$1" 2>/dev/null | sed -n 's/^Version: //p'; }
if [ "$(installed build)" != "$BUILD_VERSION" ] || [ "$(installed setuptools)" != "$SETUPTOOLS_VERSION" ] ||
  [ "$(installed maturin)" != "$MATURIN_VERSION" ]; then
  printf '[setup-packages] installing build==%s setuptools==%s maturin==%s into .venv-pkg\n' \
    "$BUILD_VERSION" "$SETUPTOOLS_VERSION" "$MATURIN_VERSION" >&2
  .venv-pkg/bin/python -m pip install --quiet --disable-pip-version-check \
    "build==$BUILD_VERSION" "setuptools==$SETUPTOOLS_VERSION" "maturin==$MATURIN_VERSION"
fi
