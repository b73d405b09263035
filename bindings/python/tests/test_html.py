"""The page to share through the Python SDK: a golden transcript gives the page
kept in tests/html/, byte for byte, the one `agon export --format html` and the
browser page write. It comes from the report component, loaded apart from the
engine."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT

import agon

KEPT = ROOT / "tests" / "html"
CASES = sorted(p.stem for p in KEPT.glob("*.html"))


def _read(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def test_the_kept_pages_have_golden_cases() -> None:
    assert len(CASES) >= 6, f"found {CASES} in {KEPT}"


@pytest.mark.parametrize("case", CASES)
def test_a_golden_transcript_renders_the_kept_page(case: str) -> None:
    transcript = _read(ROOT / "tests" / "golden" / case / "transcript.json")
    assert agon.html_page(transcript) == _read(KEPT / f"{case}.html")


def test_a_replayed_session_renders_the_same_page() -> None:
    case = CASES[0]
    with agon.Session.from_journal(_read(ROOT / "tests" / "golden" / case / "journal.ndjson")) as session:
        assert session.html_page() == _read(KEPT / f"{case}.html")
        timed = session.html_page(_read(ROOT / "tests" / "pictures" / "timeline" / "timings.ndjson"))
    assert timed != _read(KEPT / f"{case}.html") and "timeline" in timed


def test_a_text_that_is_not_a_transcript_is_refused() -> None:
    with pytest.raises(ValueError, match="not a transcript"):
        agon.html_page('{"version": 2}')
