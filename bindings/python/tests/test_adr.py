"""The Architecture Decision Record through the Python SDK: a replayed golden
journal gives the bytes kept in tests/adr/, the ones `agon export --format adr`
writes, so a Python host hands a team the same record as the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT

import agon

KEPT = ROOT / "tests" / "adr"
CASES = sorted(p.stem for p in KEPT.glob("*.md"))


def _read(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def test_the_kept_adrs_have_golden_cases() -> None:
    assert len(CASES) >= 6, f"found {CASES} in {KEPT}"


@pytest.mark.parametrize("case", CASES)
def test_a_replayed_golden_journal_renders_the_kept_adr(case: str) -> None:
    with agon.Session.from_journal(_read(ROOT / "tests" / "golden" / case / "journal.ndjson")) as session:
        assert session.adr_markdown() == _read(KEPT / f"{case}.md")
