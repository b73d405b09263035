"""Shared helpers: where the golden cases are, and the golden replay rule."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from agon import Session, Variant

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "tests" / "golden"


def unavailable(reason: str) -> None:
    """A tool this test needs is missing: a skip on a developer's machine, a
    failure under CI (CI=true), where a skipped test would pass unseen."""
    if os.environ.get("CI", "") not in ("", "0", "false"):
        pytest.fail(f"{reason} (under CI a test may not be skipped)")
    pytest.skip(reason)


def golden_cases() -> list[str]:
    return sorted(p.name for p in GOLDEN.iterdir() if (p / "script.json").is_file())


def read(case: str, name: str) -> str:
    # newline="" keeps the bytes as written: no newline translation.
    with open(GOLDEN / case / name, encoding="utf-8", newline="") as f:
        return f.read()


def same_name(a: str, b: str) -> bool:
    """Script phases are written as the core serializes them; WIT enum cases are kebab-case."""
    return a.replace("_", "-") == b.replace("_", "-")


def script_input(entry: dict[str, Any], id: int) -> Variant:
    """A script entry as the engine's input (agon_core::script's `input_for`): a reply with its
    usage and why it stopped, or a failure with what it billed all the same."""
    if entry.get("fail"):
        fail = entry["fail"]
        return Variant("failed", {"id": id, "kind": fail["kind"].replace("_", "-"), "message": fail["message"],
                                  "usage": entry.get("usage")})
    stop = entry.get("stop")
    return Variant("reply", {"id": id, "text": entry.get("text", ""), "usage": entry.get("usage"),
                             "stop": stop.replace("_", "-") if stop else None, "model": entry.get("model")})


def find_entry(script: list[dict[str, Any]], used: list[bool], request: dict[str, Any]) -> int:
    for i, e in enumerate(script):
        if not used[i] and e["seat"] == request["seat"] and same_name(e["phase"], request["phase"]) and e["round"] == request["round"]:
            return i
    return -1


@pytest.fixture(scope="session")
def cases() -> list[str]:
    found = golden_cases()
    assert len(found) >= 6, f"found {len(found)} golden cases in {GOLDEN}"
    return found


def replay(spec: str, script: list[dict[str, Any]]) -> tuple[Session, list[str], str]:
    """The golden replay rule (agon_core::script), step by step, on the raw Session."""
    session, events, journal, _ = replay_outputs(spec, script, bulk=False)
    return session, events, journal


def drain_one_by_one(session: Session) -> list[Variant]:
    outputs = [session.poll()]
    while outputs[-1].tag not in ("idle", "done"):
        outputs.append(session.poll())
    return outputs


def replay_outputs(
    spec: str, script: list[dict[str, Any]], bulk: bool
) -> tuple[Session, list[str], str, list[Variant]]:
    """The replay rule, draining with ``poll`` one output at a time or with ``poll_all``
    (``bulk``); also gives every output in the order it came."""
    session = Session.create(spec)
    used = [False] * len(script)
    outstanding: list[dict[str, Any]] = []
    events: list[str] = []
    outputs: list[Variant] = []
    journal = session.journal()
    while True:
        # 1. Drain poll until idle or done.
        drained = session.poll_all() if bulk else drain_one_by_one(session)
        outputs += drained
        for out in drained:
            if out.tag == "request":
                outstanding.append(out.value)
            elif out.tag == "event":
                events.append(out.value["json"])
        if out.tag == "done":
            return session, events, journal, outputs
        # 2. The first unused entry that matches an outstanding request answers it.
        pick = None
        for i, e in enumerate(script):
            if used[i]:
                continue
            k = next((k for k, r in enumerate(outstanding) if e["seat"] == r["seat"]
                      and same_name(e["phase"], r["phase"]) and e["round"] == r["round"]), None)
            if k is not None:
                pick = (i, k)
                break
        assert pick is not None, f"no script entry for {[(r['seat'], r['phase'], r['round']) for r in outstanding]}"
        i, k = pick
        used[i] = True
        request = outstanding.pop(k)
        # 3. Repeat until done.
        journal += session.handle(script_input(script[i], request["id"]))


def load_script(case: str) -> list[dict[str, Any]]:
    return json.loads(read(case, "script.json"))
