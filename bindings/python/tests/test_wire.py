"""Real provider replies (tests/wire/recorded, tests/wire/held-out) read through the
component's wire layer, with the rules of wire/tests/recorded.rs: every host reads
them alike. Each body is fed whole and cut into chunks of 1 and of 7 bytes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import pytest
from conftest import ROOT

from agon._engine import Wire, WireFailure

FIXTURES = ROOT / "tests" / "wire"
#: How many held-out fixtures read right the first time they were run (wire/tests/recorded.rs).
HELD_OUT_FIRST_READ = 11
URL = "http://provider"


def fixtures(folder: str) -> list[Path]:
    found = sorted((FIXTURES / folder).glob("*/*.json"))
    assert found, f"no fixtures under {FIXTURES / folder}"
    return found


def read(f: dict[str, Any], size: int) -> tuple[str, dict[str, Any]]:
    """One fixture's reply, its body cut into chunks of ``size`` bytes: ("ok", completion) or ("err", failure)."""
    wire = Wire()
    response = f["response"]
    body: str = response["body"]
    status = response["status"]
    if not 200 <= status < 300:
        return "err", wire.status_failure(status, body, response["headers"].get("retry-after"), URL, "")
    api = {"openai": "openai", "anthropic": "anthropic", "gemini": "gemini", "ollama": "ollama"}[f["wire"]]
    stream = f["stream"]
    sent = {"api": api, "path": [], "query": [], "headers": [], "body": "", "stream": stream,
            "output_limit": 512, "note": None}
    reader = wire.reader(sent, URL, 4 << 20)
    data = body.encode()
    shown = ""
    try:
        for at in range(0, len(data), size):
            shown += "".join(reader.feed(data[at:at + size]))
        done = reader.finish()
    except WireFailure as e:
        return "err", e.failure
    finally:
        reader.close()
    if stream:
        assert shown == done["text"], "the pieces shown are the text kept"
    return "ok", done


def check(f: dict[str, Any]) -> Optional[str]:
    """None when the fixture reads as its `expect` says; else why not."""
    expect = f["expect"]
    if f["endpoint"] == "show":
        got = Wire().parse_show(f["response"]["body"])["context"]
        return None if got == expect.get("context_length") else f"context {got}, expected {expect.get('context_length')}"
    first, *others = [read(f, size) for size in (1, 7, 1 << 20)]
    if any(other != first for other in others):
        return "the result depends on how the body was cut into chunks"
    outcome, value = first
    failure = expect.get("failure")
    empty_cut = expect.get("stop") == "token-limit" and isinstance(expect.get("text"), str) and not expect["text"].strip()
    if outcome == "err" and isinstance(failure, dict):
        want = failure["kind"]
        kind_ok = {
            "overloaded": value["kind"] == "provider-error" and value["retryable"],
            "rate-limited": value["kind"] == "rate-limited" and value["retryable"],
            "refused": value["kind"] == "refused",
            "provider-error": value["kind"] == "provider-error",
        }.get(want)
        if kind_ok is None:
            return f"unknown expected kind {want}"
        after = failure.get("retry_after_s")
        after_ok = after is None or (value["retryable"] and value["retry_after_ms"] == int(after * 1000))
        return None if kind_ok and after_ok else f"failed as {value['kind']} {value['retry_after_ms']}: {value['message']}"
    if outcome == "err" and not isinstance(failure, dict) and empty_cut and value["kind"] == "token-limit":
        return usage_matches(value["usage"], expect, f["wire"])
    if outcome == "err":
        return f"failed ({value['kind']}): {value['message']}"
    if isinstance(failure, dict) or empty_cut:
        return f"answered {value['text']!r} (stop {value['stop']}) where it should have failed"
    if expect.get("text") != value["text"]:
        return f"text {value['text']!r}"
    stop = expect.get("stop")
    if stop in ("complete", "token-limit") and value["stop"] != stop:
        return f"stop {value['stop']}, expected {stop}"
    return usage_matches(value["usage"], expect, f["wire"])


def usage_matches(got: Optional[dict[str, Any]], expect: dict[str, Any], wire: str) -> Optional[str]:
    want = expect.get("usage")
    if not isinstance(want, dict):
        return None
    if got is None:
        return "no usage read"
    # The fixtures record Anthropic's `input_tokens`, which leaves out the cache; agon's
    # prompt tokens are every input token, as OpenAI and Gemini count them.
    prompt = got["prompt_tokens"]
    if wire == "anthropic":
        prompt -= (got["cached_tokens"] or 0) + (got["cache_write_tokens"] or 0)
    fields = {"prompt_tokens": prompt, "completion_tokens": got["completion_tokens"],
              "reasoning_tokens": got["reasoning_tokens"], "cached_tokens": got["cached_tokens"],
              "cache_write_tokens": got["cache_write_tokens"]}
    for name, value in fields.items():
        if want.get(name) is not None and value != want[name]:
            return f"{name} {value}, expected {want[name]}"
    return None


def run(folder: str) -> tuple[int, list[str]]:
    passed, failures = 0, []
    for path in fixtures(folder):
        why = check(json.loads(path.read_text(encoding="utf-8")))
        if why is None:
            passed += 1
        else:
            failures.append(f"{path.parent.name}/{path.name}: {why}")
    return passed, failures


def test_every_recorded_reply_reads_as_recorded() -> None:
    passed, failures = run("recorded")
    assert not failures, f"{passed} read right; these did not:\n" + "\n".join(failures)


def test_the_held_out_replies_read_no_worse_than_at_first(capsys: pytest.CaptureFixture[str]) -> None:
    passed, failures = run("held-out")
    with capsys.disabled():
        print(f"\nheld-out: {passed} of {passed + len(failures)} read right")
        for f in failures:
            print(f"  {f}")
    assert passed >= HELD_OUT_FIRST_READ, f"{passed} of {passed + len(failures)}, below the first reading"
