"""The Python SDK end to end against the real local model (SmolLM2 through
llama.cpp's server). scripts/test-sdk.sh starts the model and sets
AGON_LOCAL_MODEL_URL; without it these tests are skipped — and fail under CI."""

from __future__ import annotations

import asyncio
import os
from collections import Counter

import pytest
from conftest import unavailable

import agon

BASE_URL = os.environ.get("AGON_LOCAL_MODEL_URL")
@pytest.fixture(autouse=True)
def needs_model() -> None:
    if not BASE_URL:
        unavailable("AGON_LOCAL_MODEL_URL is not set (scripts/test-sdk.sh starts the local model)")

SPEC = {
    "question": "Is it better to walk or to cycle to work?",
    "panel": [{"id": seat, "model": "openai/smollm2"} for seat in ("first", "second", "third")],
    "judge": {"id": "judge", "model": "openai/smollm2"},
    "protocol": {"name": "round-robin"},
    "rounds": 1,
    "seed": 3,
    "limits": {"max_tokens": 60, "judge_max_tokens": 80},
}


def check(transcript: dict) -> None:
    assert transcript["outcome"]["kind"] in ("completed", "consensus"), transcript["outcome"]
    assert len(transcript["turns"]) >= 3
    assert all(isinstance(t.get("usage", {}).get("completion_tokens"), int) for t in transcript["turns"])
    assert "".join(t["text"] for t in transcript["turns"]), "the model said nothing at all"
    assert transcript["synthesis"] and transcript["synthesis"]["text"], "the judge wrote a synthesis"


def test_run_debate_streams_a_round_robin_debate() -> None:
    pieces: Counter[int] = Counter()
    events: list[str] = []
    transcript = agon.run_debate(
        SPEC,
        agon.openai(BASE_URL, on_text=lambda piece, request: pieces.update([request["id"]])),
        on_event=lambda e: events.append(e["kind"].tag),
    )
    check(transcript)
    assert max(pieces.values()) > 1, "replies arrived in several streamed pieces"
    assert events[-1] == "debate-ended"


def test_run_debate_async_runs_a_rotating_challenger_debate_without_streaming() -> None:
    spec = {**SPEC, "protocol": {"name": "rotating-challenger"}}
    transcript = asyncio.run(agon.run_debate_async(spec, agon.openai(BASE_URL, stream=False)))
    check(transcript)
    assert sum(t["phase"] == "blind" for t in transcript["turns"]) == 3
    assert any(t["challenger"] for t in transcript["turns"])
