"""The engine's pictures through the Python SDK: the same bytes as the core's
blessed pictures in tests/pictures/, so a Python host shows what the CLI writes."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT

import agon

PICTURES = ROOT / "tests" / "pictures"
CASES = sorted(p.name for p in PICTURES.iterdir() if (ROOT / "tests" / "golden" / p.name).is_dir())


def _read(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def test_the_blessed_pictures_have_golden_cases() -> None:
    assert len(CASES) >= 6, f"found {CASES} in {PICTURES}"


@pytest.mark.parametrize("case", CASES)
def test_a_replayed_golden_journal_draws_the_blessed_pictures(case: str) -> None:
    with agon.Session.from_journal(_read(ROOT / "tests" / "golden" / case / "journal.ndjson")) as session:
        drawn = dict(session.pictures())
    blessed = {p.name: _read(p) for p in (PICTURES / case).glob("*.svg")}
    assert drawn == blessed


def test_timings_draw_the_blessed_timeline_and_none_draw_nothing() -> None:
    timeline = PICTURES / "timeline"
    assert agon.timeline_svg(_read(timeline / "timings.ndjson")) == _read(timeline / "timeline.svg")
    assert agon.timeline_svg("") is None
