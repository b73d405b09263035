"""Providers over urllib: a ModelRequest in, ``{"text", "usage"}`` out.

A failed call raises :class:`ProviderError` whose ``kind`` is the WIT failure
kind, so the engine records it as what it is. They block, so
``run_debate_async`` runs them in worker threads; ``on_text`` is then called
from those threads.
"""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from typing import Any, Callable, Optional

from .types import Completion, ModelRequest, Usage

OnText = Callable[[str, ModelRequest], None]


class ProviderError(Exception):
    """A failed model call; ``kind`` is one of the WIT failure kinds."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def openai(
    base_url: str = "https://api.openai.com/v1",
    api_key: Optional[str] = None,
    *,
    stream: bool = True,
    on_text: Optional[OnText] = None,
    timeout: float = 120.0,
) -> Callable[[ModelRequest], Completion]:
    """Any OpenAI-compatible ``/chat/completions`` endpoint, streamed as SSE by default."""
    url = base_url.rstrip("/") + "/chat/completions"

    def complete(request: ModelRequest) -> Completion:
        body: dict[str, Any] = {
            "model": _model_name(request["model"], "openai"),
            "messages": [{"role": m["role"], "content": m["content"]} for m in request["messages"]],
            # Always sent: some local servers generate without end otherwise.
            "max_tokens": request["max_tokens"],
            "temperature": request["temperature"],
            "stream": stream,
        }
        if stream:
            body["stream_options"] = {"include_usage": True}
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        deadline = time.monotonic() + timeout
        with _post(url, headers, body, timeout, api_key) as response:
            if not stream:
                reply = _parse(_read(response, url, timeout), f"malformed JSON from {url}")
                if "error" in reply:
                    raise ProviderError("provider-error", f"{url} answered with an error: {json.dumps(reply['error'])}")
                choice = (reply.get("choices") or [{}])[0]
                if choice.get("finish_reason") == "content_filter":
                    raise _refused(url)
                text = (choice.get("message") or {}).get("content")
                if not isinstance(text, str):
                    raise ProviderError("provider-error", f"{url} sent no choices[0].message.content")
                if on_text:
                    on_text(text, request)
                return {"text": text, "usage": _openai_usage(reply.get("usage"))}
            text, usage, finished = "", None, False
            for data in _sse_data(response, url, timeout, deadline):
                if data.strip() == "[DONE]":
                    finished = True
                    break
                chunk = _parse(data, f"malformed stream event from {url}")
                if "error" in chunk:
                    raise ProviderError("provider-error", f"{url} reported an error mid-stream: {json.dumps(chunk['error'])}")
                usage = _openai_usage(chunk.get("usage")) or usage
                choice = (chunk.get("choices") or [{}])[0]
                piece = (choice.get("delta") or {}).get("content")
                if isinstance(piece, str) and piece:
                    text += piece
                    if on_text:
                        on_text(piece, request)
                if choice.get("finish_reason") == "content_filter":
                    raise _refused(url)
                if choice.get("finish_reason"):
                    finished = True
            if not finished:
                raise ProviderError("provider-error", f"the stream from {url} ended before the reply was complete")
            return {"text": text, "usage": usage}

    return complete


def ollama(
    host: str = "http://127.0.0.1:11434",
    *,
    stream: bool = True,
    on_text: Optional[OnText] = None,
    timeout: float = 120.0,
) -> Callable[[ModelRequest], Completion]:
    """Ollama's native ``/api/chat``, streamed as NDJSON by default."""
    base = host if "://" in host else f"http://{host}"
    url = base.rstrip("/") + "/api/chat"

    def complete(request: ModelRequest) -> Completion:
        body = {
            "model": _model_name(request["model"], "ollama"),
            "messages": [{"role": m["role"], "content": m["content"]} for m in request["messages"]],
            "stream": stream,
            "options": {"num_predict": request["max_tokens"], "temperature": request["temperature"]},
        }
        deadline = time.monotonic() + timeout
        text = ""
        with _post(url, {"Content-Type": "application/json"}, body, timeout) as response:
            for line in _lines(response, url, timeout, deadline):
                if not line.strip():
                    continue
                chunk = _parse(line, f"malformed NDJSON from {url}")
                if "error" in chunk:
                    raise ProviderError("provider-error", f"{url} answered with an error: {json.dumps(chunk['error'])}")
                piece = (chunk.get("message") or {}).get("content")
                if isinstance(piece, str) and piece:
                    text += piece
                    if on_text:
                        on_text(piece, request)
                if chunk.get("done") is True:
                    p, c = chunk.get("prompt_eval_count"), chunk.get("eval_count")
                    usage: Optional[Usage] = (
                        {"prompt_tokens": p, "completion_tokens": c} if isinstance(p, int) and isinstance(c, int) else None
                    )
                    return {"text": text, "usage": usage}
        raise ProviderError("provider-error", f"the stream from {url} ended before the reply was complete")

    return complete


def by_provider(providers: Mapping[str, Callable[[ModelRequest], Any]]) -> Callable[[ModelRequest], Any]:
    """Route each request by its model reference's provider (``openai/gpt-4o`` → ``providers["openai"]``)."""

    def complete(request: ModelRequest) -> Any:
        name = request["model"].split("/", 1)[0]
        if name not in providers:
            known = ", ".join(providers)
            raise ProviderError("provider-error", f"no provider '{name}' for model '{request['model']}' (known: {known})")
        return providers[name](request)

    return complete


def _model_name(reference: str, provider: str) -> str:
    # `openai/gpt-4o` → `gpt-4o`; a reference without this provider's prefix is sent as is.
    prefix = provider + "/"
    return reference[len(prefix):] if reference.startswith(prefix) else reference


def _post(url: str, headers: dict[str, str], body: Any, timeout: float, secret: Optional[str] = None) -> Any:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    try:
        return urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as e:
        detail = " ".join(e.read(2048).decode("utf-8", "replace").split())[:300]
        if secret and len(secret) >= 4:
            detail = detail.replace(secret, "[redacted]")
        kind = "rate-limited" if e.code == 429 else "provider-error"
        raise ProviderError(kind, f"HTTP {e.code} from {url}: {detail}") from None
    except urllib.error.URLError as e:
        if isinstance(e.reason, (TimeoutError, socket.timeout)):
            raise _timed_out(url, timeout) from None
        raise ProviderError("provider-error", f"cannot reach {url} ({e.reason}): is the endpoint running?") from None
    except (TimeoutError, socket.timeout):
        raise _timed_out(url, timeout) from None


def _timed_out(url: str, timeout: float) -> ProviderError:
    return ProviderError("timeout", f"no complete answer from {url} within {timeout:g} s")


def _read(response: Any, url: str, timeout: float) -> str:
    try:
        return str(response.read().decode("utf-8"))
    except (TimeoutError, socket.timeout):
        raise _timed_out(url, timeout) from None
    except OSError as e:
        raise ProviderError("provider-error", f"the reply from {url} broke off: {e}") from None


def _lines(response: Any, url: str, timeout: float, deadline: float) -> Iterator[str]:
    """The body's lines as they arrive, within the call's deadline."""
    while True:
        if time.monotonic() > deadline:
            raise _timed_out(url, timeout)
        try:
            raw = response.readline()
        except (TimeoutError, socket.timeout):
            raise _timed_out(url, timeout) from None
        except OSError as e:
            raise ProviderError("provider-error", f"the reply from {url} broke off: {e}") from None
        if not raw:
            return
        yield raw.decode("utf-8").rstrip("\r\n")


def _sse_data(response: Any, url: str, timeout: float, deadline: float) -> Iterator[str]:
    """Server-sent events: the ``data`` of each event (its ``data:`` lines joined by newlines)."""
    data: list[str] = []
    for line in _lines(response, url, timeout, deadline):
        if line == "":
            if data:
                yield "\n".join(data)
            data = []
        elif line.startswith("data:"):
            value = line[5:]
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        yield "\n".join(data)


def _parse(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ProviderError("provider-error", f"{what}: {e}: {text[:120]}") from None


def _refused(url: str) -> ProviderError:
    return ProviderError("refused", f"{url} refused to answer (content filter)")


def _openai_usage(u: Any) -> Optional[Usage]:
    if isinstance(u, dict) and isinstance(u.get("prompt_tokens"), int) and isinstance(u.get("completion_tokens"), int):
        return {"prompt_tokens": u["prompt_tokens"], "completion_tokens": u["completion_tokens"]}
    return None
