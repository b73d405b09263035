"""The urllib providers against the project's test server: every API they speak
(through the component's wire layer), streaming, usage, each fault mapped to the
failure kind the engine expects, and a debate of reasoning models against the
strict emulator, which refuses what the real APIs refuse."""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_cross_host import TEST_SERVER

import agon
from agon import ProviderError

CONFIG = {
    "models": {
        # context_length: what Ollama's /api/show says of it.
        "ok": {"replies": ["Walking is slower but calmer.", "Second answer."], "context_length": 2048},
        "tiny": {"context_length": 16},
        "broken": {"fault": "server-error"},
        "limited": {"fault": "rate-limited"},
        "cut": {"replies": ["one two three four five six seven eight"], "fault": "cut-stream"},
        "garbage": {"fault": "garbage"},
        "hang": {"fault": "hang"},
        "dropped": {"fault": "drop"},
        "claude-a": {"replies": ["Cycle when it is dry."]},
        "gem-a": {"replies": ["Walk if it is under two kilometres."]},
        "gem-busy": {"fault": "rate-limited-body", "retry_delay_s": 15},
        # A real reasoning family: it thinks 100 tokens before answering, more than a 40-token limit.
        "gpt-5-2025-08-07": {"reasoning_tokens": 100},
    }
}


def start(config: dict[str, Any], folder: Path) -> tuple[subprocess.Popen[str], str]:
    assert TEST_SERVER.is_file(), f"{TEST_SERVER} is missing: cargo build -p agon-testkit --bins"
    (folder / "config.json").write_text(json.dumps(config))
    server = subprocess.Popen([str(TEST_SERVER), "--port", "0", "--config", str(folder / "config.json"),
                               "--max-seconds", "120"], stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    line = server.stdout.readline().strip()
    assert line.startswith("listening http://127.0.0.1:"), line
    return server, line.split(" ", 1)[1]


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server, address = start(CONFIG, tmp_path_factory.mktemp("providers"))
    try:
        yield address
    finally:
        server.kill()
        server.wait()


def request(model: str, **traits: Any) -> dict[str, Any]:
    """A request as the engine releases it; ``traits`` as the catalog would give them."""
    return {
        "id": 1, "seat": "s", "model": model, "purpose": "turn", "round": 1, "phase": "deliberation",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Walk or cycle?"}],
        "max_tokens": 40, "temperature": 0.2, "expect": None, "reasoning": None,
        "traits": [(model, traits)] if traits else [],
    }


def stats(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{url}/stats", timeout=10) as r:
        return dict(json.load(r))


def last_seen(url: str) -> dict[str, Any]:
    return dict(stats(url)["requests"][-1])


def test_openai_streams_pieces_with_usage_and_sends_the_key(url: str) -> None:
    pieces: list[str] = []
    answer = agon.openai(f"{url}/v1", "sk-test-1234", on_text=lambda p, r: pieces.append(p))(request("openai/ok"))
    assert answer["text"] == "Walking is slower but calmer."
    assert "".join(pieces) == answer["text"] and len(pieces) > 1
    assert answer["usage"]["prompt_tokens"] > 0 and answer["usage"]["completion_tokens"] > 0
    assert answer["stop"] == "complete"
    seen = last_seen(url)
    assert (seen["model"], seen["stream"], seen["max_tokens"], seen["authorization"]) == ("ok", True, 40, "Bearer sk-test-1234")
    # A model the catalog does not know, behind a URL that is not OpenAI's: the compatible shape.
    assert seen["body"]["max_tokens"] == 40 and seen["body"]["temperature"] == 0.2


def test_openai_without_streaming(url: str) -> None:
    texts: list[str] = []
    answer = agon.openai(f"{url}/v1", stream=False, on_text=lambda p, r: texts.append(p))(request("openai/ok"))
    assert answer["text"] == "Second answer." and texts == [answer["text"]]
    assert answer["usage"]["completion_tokens"] > 0


def test_a_reasoning_model_gets_openais_own_shape_from_its_traits(url: str) -> None:
    gpt5 = request("openai/gpt-5", reasoning=True, temperature=False, context=400000, max_output=128000)
    # The wire layer gives a reasoning model its family's room to think beyond the reply:
    # OpenAI's models reason by default, at effort low, with 1,024 tokens of room (the
    # engine's allowance is the same plan's).
    gpt5["reasoning"] = {"effort": None, "budget": None, "allowance": 1024}
    answer = agon.openai(f"{url}/v1")(gpt5)
    body = last_seen(url)["body"]
    assert "max_tokens" not in body and "temperature" not in body, body
    assert body["max_completion_tokens"] == 40 + 1024 and body["reasoning_effort"] == "low", body
    assert answer["stop"] == "complete" and answer["usage"]["reasoning_tokens"] > 0


def test_a_reply_cut_before_any_answer_is_a_token_limit_failure_with_its_usage(url: str) -> None:
    model = "openai/gpt-5-2025-08-07"
    with pytest.raises(ProviderError) as raised:
        agon.openai(f"{url}/v1")(request(model, reasoning=True, temperature=False, context=None, max_output=None))
    e = raised.value
    assert e.kind == "token-limit" and not e.retryable, str(e)
    assert e.usage is not None and e.usage["completion_tokens"] == 40 and e.usage["reasoning_tokens"] == 40
    assert "spent all 40 output tokens" in str(e)


def test_anthropic_streams_and_sends_its_key_and_version(url: str) -> None:
    pieces: list[str] = []
    answer = agon.anthropic(url, "sk-ant-test", on_text=lambda p, r: pieces.append(p))(request("anthropic/claude-a"))
    assert answer["text"] == "Cycle when it is dry." and "".join(pieces) == answer["text"]
    assert answer["usage"]["completion_tokens"] > 0 and answer["stop"] == "complete"
    seen = last_seen(url)
    assert (seen["path"], seen["auth_header"], seen["authorization"]) == ("/v1/messages", "x-api-key", "sk-ant-test")
    assert seen["anthropic_version"] and seen["body"]["system"] == "Be brief."


def test_gemini_streams_with_its_key_in_a_header(url: str) -> None:
    answer = agon.gemini(f"{url}/v1beta", "gm-test-key")(request("gemini/gem-a"))
    assert answer["text"] == "Walk if it is under two kilometres." and answer["usage"]["completion_tokens"] > 0
    seen = last_seen(url)
    assert seen["path"] == "/v1beta/models/gem-a:streamGenerateContent?alt=sse"
    assert (seen["auth_header"], seen["authorization"]) == ("x-goog-api-key", "gm-test-key")
    answer = agon.gemini(f"{url}/v1beta", stream=False)(request("gemini/gem-a"))
    assert last_seen(url)["path"] == "/v1beta/models/gem-a:generateContent"


def test_gemini_says_when_to_come_back_in_its_body(url: str) -> None:
    with pytest.raises(ProviderError) as raised:
        agon.gemini(f"{url}/v1beta")(request("gemini/gem-busy"))
    assert (raised.value.kind, raised.value.retryable, raised.value.retry_after_ms) == ("rate-limited", True, 15000)


def test_ollama_streams_ndjson_with_usage(url: str) -> None:
    pieces: list[str] = []
    answer = agon.ollama(url, on_text=lambda p, r: pieces.append(p))(request("ollama/ok"))
    assert len(pieces) > 1 and "".join(pieces) == answer["text"]
    assert answer["usage"]["completion_tokens"] > 0
    seen = last_seen(url)
    # The window asked for is within the context length /api/show reported.
    assert seen["path"] == "/api/chat" and seen["body"]["options"]["num_ctx"] == 2048, seen["body"]


def test_ollama_tells_of_a_prompt_longer_than_the_models_context(url: str) -> None:
    notes: list[str] = []
    agon.ollama(url, stream=False, on_note=lambda note, r: notes.append(note))(request("ollama/tiny"))
    assert len(notes) == 1 and notes[0].startswith("ollama/tiny: the prompt") and "context of 16" in notes[0]


@pytest.mark.parametrize("model, kind, message", [
    ("broken", "provider-error", r"^HTTP 500 from .*injected server error"),
    ("limited", "rate-limited", r"^HTTP 429"),
    ("garbage", "provider-error", r"malformed stream event"),
])
def test_openai_faults_are_failures_of_the_right_kind(url: str, model: str, kind: str, message: str) -> None:
    with pytest.raises(ProviderError, match=message) as raised:
        agon.openai(f"{url}/v1")(request(f"openai/{model}"))
    assert raised.value.kind == kind
    if model == "limited":
        assert raised.value.retryable and raised.value.retry_after_ms == 1000


def test_with_retries_a_rate_limited_call_is_tried_again_after_the_wait_asked_then_gives_up(url: str) -> None:
    notes: list[str] = []
    before = len(stats(url)["requests"])
    complete = agon.openai(f"{url}/v1", retries=1, on_note=lambda note, _request: notes.append(note))
    with pytest.raises(ProviderError, match=r"^HTTP 429.*\(after 2 attempts\)$") as raised:
        complete(request("openai/limited"))
    assert raised.value.kind == "rate-limited"
    assert notes == ["openai/limited: waiting 1 s before trying again", "openai/limited: attempt 2"]
    assert len(stats(url)["requests"]) - before == 2, "the server saw both attempts"


def test_retries_are_checked_when_the_provider_is_made() -> None:
    with pytest.raises(ValueError, match="retries"):
        agon.openai(retries=-1)
    with pytest.raises(ValueError, match="max_retry_wait"):
        agon.anthropic(max_retry_wait=-5)


def test_the_key_never_appears_in_a_message(url: str) -> None:
    with pytest.raises(ProviderError) as raised:
        agon.openai(f"{url}/v1?token=s3cr3t-token", "sk-test-1234")(request("openai/broken"))
    assert "s3cr3t-token" not in str(raised.value) and "token=***" in str(raised.value)


def test_a_stream_cut_midway_fails_rather_than_returning_a_partial_reply(url: str) -> None:
    # The test server leaves the cut connection open, so the call's timeout ends it.
    with pytest.raises(ProviderError) as raised:
        agon.openai(f"{url}/v1", timeout=1.5)(request("openai/cut"))
    assert raised.value.kind in ("transport", "provider-error", "timeout")


def test_a_connection_closed_before_any_reply_is_a_transport_failure_worth_another_try(url: str) -> None:
    with pytest.raises(ProviderError, match="closed before any reply") as raised:
        agon.openai(f"{url}/v1")(request("openai/dropped"))
    assert (raised.value.kind, raised.value.retryable) == ("transport", True)


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


# --- reasoning models against the strict emulator ------------------------------------------------


@pytest.fixture(scope="module")
def strict(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # No scripts: every model is served by its real family's rules.
    server, address = start({"models": {}}, tmp_path_factory.mktemp("strict"))
    try:
        yield address
    finally:
        server.kill()
        server.wait()


def test_a_debate_of_reasoning_models_runs_against_the_strict_emulator(strict: str) -> None:
    spec = agon.build_spec({"question": "Run our own Kubernetes?", "protocol": "round-robin", "rounds": 2,
                            "models": ["openai/gpt-5", "openai/o3", "anthropic/claude-opus-4-7"],
                            "judge": "openai/gpt-5"})
    # The shipped catalog's traits are in the spec, so every request carries them.
    assert spec["models"]["openai/gpt-5"] == {"reasoning": True, "temperature": False, "context": 400000,
                                              "max_output": 128000}
    assert set(spec["models"]) == {"openai/gpt-5", "openai/o3", "anthropic/claude-opus-4-7"}
    complete = agon.by_provider({"openai": agon.openai(f"{strict}/v1", "sk-test"),
                                 "anthropic": agon.anthropic(strict, "sk-ant-test")})
    transcript = agon.run_debate(spec, complete)
    assert transcript["outcome"]["kind"] == "completed", transcript["outcome"]
    seen = stats(strict)["requests"]
    assert len(seen) == 7 and not [s["refusal"] for s in seen if s["refusal"]]
    for s in seen:
        assert "temperature" not in s["body"], s["body"]
        if s["path"] == "/v1/chat/completions":
            assert "max_tokens" not in s["body"] and s["body"]["max_completion_tokens"] > 0


def test_the_strict_emulator_refuses_the_old_request_shape(strict: str) -> None:
    # What the SDKs sent before the wire layer: max_tokens and a temperature, whatever the model.
    old = {"model": "gpt-5", "messages": [{"role": "user", "content": "Walk or cycle?"}],
           "max_tokens": 40, "temperature": 0.7, "stream": False}
    post = urllib.request.Request(f"{strict}/v1/chat/completions", data=json.dumps(old).encode(),
                                  headers={"Content-Type": "application/json"}, method="POST")
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(post, timeout=10)
    assert raised.value.code == 400
    assert "Unsupported parameter: 'max_tokens'" in raised.value.read().decode()
    # The compatible shape, chosen by hand for OpenAI's own reasoning model, is refused the same way.
    gpt5 = request("openai/gpt-5", reasoning=True, temperature=False, context=400000, max_output=128000)
    with pytest.raises(ProviderError, match="HTTP 400 .*Unsupported parameter: 'max_tokens'") as refused:
        agon.openai(f"{strict}/v1", api="openai-compatible")(gpt5)
    assert refused.value.kind == "provider-error" and not refused.value.retryable
