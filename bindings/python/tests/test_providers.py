"""The urllib providers against the project's test server: streaming, usage,
and each fault mapped to the failure kind the engine expects."""

from __future__ import annotations

import json
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_cross_host import TEST_SERVER

import agon
from agon import ProviderError

CONFIG = {
    "models": {
        "ok": {"replies": ["Walking is slower but calmer.", "Second answer."]},
        "broken": {"fault": "server-error"},
        "limited": {"fault": "rate-limited"},
        "cut": {"replies": ["one two three four five six seven eight"], "fault": "cut-stream"},
        "garbage": {"fault": "garbage"},
        "hang": {"fault": "hang"},
    }
}


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    assert TEST_SERVER.is_file(), f"{TEST_SERVER} is missing: cargo build -p agon-testkit --bins"
    config = tmp_path_factory.mktemp("providers") / "config.json"
    config.write_text(json.dumps(CONFIG))
    server = subprocess.Popen([str(TEST_SERVER), "--port", "0", "--config", str(config), "--max-seconds", "60"],
                              stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline().strip()
        assert line.startswith("listening http://127.0.0.1:"), line
        yield line.split(" ", 1)[1]
    finally:
        server.kill()
        server.wait()


def request(model: str) -> dict:
    return {
        "id": 1, "seat": "s", "model": model, "purpose": "turn", "round": 1, "phase": "deliberation",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Walk or cycle?"}],
        "max_tokens": 40, "temperature": 0.2, "expect": None,
    }


def last_seen(url: str) -> dict:
    with urllib.request.urlopen(f"{url}/stats", timeout=10) as r:
        return json.load(r)["requests"][-1]


def test_openai_streams_pieces_with_usage_and_sends_the_key(url: str) -> None:
    pieces: list[str] = []
    answer = agon.openai(f"{url}/v1", "sk-test-1234", on_text=lambda p, r: pieces.append(p))(request("openai/ok"))
    assert answer["text"] == "Walking is slower but calmer."
    assert "".join(pieces) == answer["text"] and len(pieces) > 1
    assert answer["usage"]["prompt_tokens"] > 0 and answer["usage"]["completion_tokens"] > 0
    seen = last_seen(url)
    assert (seen["model"], seen["stream"], seen["max_tokens"], seen["authorization"]) == ("ok", True, 40, "Bearer sk-test-1234")


def test_openai_without_streaming(url: str) -> None:
    answer = agon.openai(f"{url}/v1", stream=False)(request("openai/ok"))
    assert answer["text"] == "Second answer."
    assert answer["usage"]["completion_tokens"] > 0


def test_ollama_streams_ndjson_with_usage(url: str) -> None:
    pieces: list[str] = []
    answer = agon.ollama(url, on_text=lambda p, r: pieces.append(p))(request("ollama/ok"))
    assert len(pieces) > 1 and "".join(pieces) == answer["text"]
    assert answer["usage"]["completion_tokens"] > 0
    assert last_seen(url)["path"] == "/api/chat"


@pytest.mark.parametrize("model, kind, message", [
    ("broken", "provider-error", r"^HTTP 500 from .*injected server error"),
    ("limited", "rate-limited", r"^HTTP 429"),
    ("garbage", "provider-error", r"malformed stream event"),
])
def test_openai_faults_are_failures_of_the_right_kind(url: str, model: str, kind: str, message: str) -> None:
    with pytest.raises(ProviderError, match=message) as raised:
        agon.openai(f"{url}/v1")(request(f"openai/{model}"))
    assert raised.value.kind == kind


def test_a_stream_cut_midway_fails_rather_than_returning_a_partial_reply(url: str) -> None:
    # The test server leaves the cut connection open, so the call's timeout ends it.
    with pytest.raises(ProviderError) as raised:
        agon.openai(f"{url}/v1", timeout=1.5)(request("openai/cut"))
    assert raised.value.kind in ("provider-error", "timeout")


def test_a_call_past_its_timeout_is_a_timeout(url: str) -> None:
    with pytest.raises(ProviderError, match="within 0.3 s") as raised:
        agon.openai(f"{url}/v1", timeout=0.3)(request("openai/hang"))
    assert raised.value.kind == "timeout"


def test_an_unreachable_endpoint_is_a_failure_the_transcript_states() -> None:
    spec = {"question": "Walk or cycle?", "panel": [{"id": s, "model": "openai/x"} for s in ("a", "b", "c")],
            "protocol": {"name": "round-robin"}, "rounds": 1}
    # Port 9 on 127.0.0.1 (discard) is closed here: every call fails fast.
    transcript = agon.run_debate(spec, agon.openai("http://127.0.0.1:9/v1", timeout=5))
    assert transcript["outcome"]["kind"] in ("no-quorum", "degraded"), transcript["outcome"]
    assert "cannot reach http://127.0.0.1:9/v1/chat/completions" in transcript["outcome"]["failures"][0]["message"]


def test_by_provider_routes_by_the_model_reference() -> None:
    complete = agon.by_provider({"openai": lambda r: "from openai", "ollama": lambda r: "from ollama"})
    assert complete(request("ollama/x")) == "from ollama"
    with pytest.raises(ProviderError, match="no provider 'acme'"):
        complete(request("acme/x"))
