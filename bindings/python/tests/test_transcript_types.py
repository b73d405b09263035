"""The transcript's type hints (agon.types.Transcript and the types under it)
against what the engine writes: every golden transcript's keys, at every level,
are declared, and every key the hints require is there. A field the engine adds
or drops fails here until the hints follow."""

from __future__ import annotations

import json
from typing import Any, get_type_hints

import pytest
from conftest import GOLDEN, golden_cases

from agon.types import (
    SeatInfo,
    SeatUsage,
    Synthesis,
    Transcript,
    TranscriptOutcome,
    TranscriptResult,
    Turn,
    UsageReport,
    UsageTotal,
)


def _keys(hinted: Any) -> tuple[frozenset[str], frozenset[str]]:
    return hinted.__required_keys__, hinted.__optional_keys__


def _check(where: str, value: dict[str, Any], hinted: Any) -> None:
    required, optional = _keys(hinted)
    assert required <= value.keys(), f"{where}: missing {sorted(required - value.keys())}"
    assert value.keys() <= required | optional, f"{where}: not declared {sorted(value.keys() - required - optional)}"


@pytest.mark.parametrize("case", golden_cases())
def test_every_golden_transcript_fits_the_hints(case: str) -> None:
    t = json.loads((GOLDEN / case / "transcript.json").read_text(encoding="utf-8"))
    _check("transcript", t, Transcript)
    for p in t["participants"] + ([t["judge"]] if t["judge"] else []):
        _check("seat", p, SeatInfo)
    for i, turn in enumerate(t["turns"]):
        _check(f"turns[{i}]", turn, Turn)
    if t["synthesis"]:
        _check("synthesis", t["synthesis"], Synthesis)
    if t["outcome"]:
        _check("outcome", t["outcome"], TranscriptOutcome)
    for name, result in t["results"].items():
        _check(f"results.{name}", result, TranscriptResult)
        assert result["kind"] in get_type_hints(TranscriptResult)["kind"].__args__, result["kind"]
    _check("usage", t["usage"], UsageReport)
    _check("usage.total", t["usage"]["total"], UsageTotal)
    for s in t["usage"]["seats"]:
        _check("usage.seats[]", s, SeatUsage)


def test_the_hints_are_not_empty() -> None:
    # A TypedDict that lost its fields would accept any transcript above.
    assert {"turns", "outcome", "results", "usage"} <= _keys(Transcript)[0]
    assert {"speaker", "text", "round"} <= _keys(Turn)[0]
