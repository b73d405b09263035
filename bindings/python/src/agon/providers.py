"""Providers over urllib: a ModelRequest in, ``{"text", "usage", "stop"}`` out.

What to send and how to read the reply is agon-wire's, inside the component
(the WIT interface ``wire``), the same code the CLI, the browser page and the
JS SDK use: OpenAI's chat completions (and compatible servers), Anthropic's
Messages, Gemini and Ollama, each call shaped by the model's traits from the
catalog. A call is the wire layer's exchange (which API, whether and when to
try again, what the reply says); this module keeps only the transport: the
URL, the key, the timeout, the body read in chunks and handed over.

Each provider tries once unless given ``retries``: then a failure worth another
try (a rate limit, a server error, a dropped connection) is tried again after
the wait the provider asks, or a growing one, never longer than
``max_retry_wait`` seconds, as the CLI's ``--retries`` does.

A failed call raises :class:`ProviderError` whose ``kind`` is the WIT failure
kind, so the engine records it as what it is. They block, so
``run_debate_async`` runs them in worker threads; ``on_text`` is then called
from those threads.
"""

from __future__ import annotations

import http.client
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import warnings
from collections.abc import Mapping
from typing import Any, Callable, Optional

from ._engine import Exchange, Wire, WireFailure
from .types import Completion, ModelRequest, Usage

OnText = Callable[[str, ModelRequest], None]
OnNote = Callable[[str, ModelRequest], None]

#: The most reply text a call accepts by default, in bytes (as the CLI's `max_reply`).
MAX_REPLY = 4 << 20


class ProviderError(Exception):
    """A failed model call. ``kind`` is one of the WIT failure kinds (``token-limit``
    included); ``retryable`` says whether another attempt may pass, ``retry_after_ms``
    after how long when the provider said; ``usage`` is what the call billed all the same."""

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        retryable: bool = False,
        retry_after_ms: Optional[int] = None,
        usage: Optional[Usage] = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.retryable = retryable
        self.retry_after_ms = retry_after_ms
        self.usage = usage

    def __reduce__(self) -> Any:
        # Pickled whole (a call made in another process, as on Ray), not from `args` alone.
        return (ProviderError, (self.kind, str(self)), self.__dict__)


def openai(
    base_url: str = "https://api.openai.com/v1",
    api_key: Optional[str] = None,
    *,
    api: Optional[str] = None,
    stream: bool = True,
    on_text: Optional[OnText] = None,
    on_note: Optional[OnNote] = None,
    timeout: float = 120.0,
    max_reply: int = MAX_REPLY,
    retries: int = 0,
    max_retry_wait: float = 60.0,
) -> Callable[[ModelRequest], Completion]:
    """OpenAI's chat completions, or any server that speaks them (``/chat/completions``
    under ``base_url``), streamed as SSE by default.

    OpenAI's own conventions (``max_completion_tokens``, no temperature for a model not
    known to take one, ``reasoning_effort``) hold at api.openai.com and for ``openai/…``
    models the request's traits know; anything else gets the compatible shape
    (``max_tokens``). ``api="openai"`` or ``"openai-compatible"`` decides it yourself."""
    if api not in (None, "openai", "openai-compatible"):
        raise ValueError(f"api must be 'openai' or 'openai-compatible', not {api!r}")
    return _provider("openai", base_url, api_key, api, stream, on_text, on_note, timeout, max_reply, retries,
                     max_retry_wait)


def anthropic(
    base_url: str = "https://api.anthropic.com",
    api_key: Optional[str] = None,
    *,
    stream: bool = True,
    on_text: Optional[OnText] = None,
    on_note: Optional[OnNote] = None,
    timeout: float = 120.0,
    max_reply: int = MAX_REPLY,
    retries: int = 0,
    max_retry_wait: float = 60.0,
) -> Callable[[ModelRequest], Completion]:
    """Anthropic's Messages API (``/v1/messages``), streamed as SSE by default."""
    return _provider("anthropic", base_url, api_key, None, stream, on_text, on_note, timeout,
                     max_reply, retries, max_retry_wait)


def gemini(
    base_url: str = "https://generativelanguage.googleapis.com/v1beta",
    api_key: Optional[str] = None,
    *,
    stream: bool = True,
    on_text: Optional[OnText] = None,
    on_note: Optional[OnNote] = None,
    timeout: float = 120.0,
    max_reply: int = MAX_REPLY,
    retries: int = 0,
    max_retry_wait: float = 60.0,
) -> Callable[[ModelRequest], Completion]:
    """Google's Gemini API (``models/M:generateContent``, or ``:streamGenerateContent?alt=sse``
    streamed, the default); the key goes in a header, never the URL."""
    return _provider("gemini", base_url, api_key, None, stream, on_text, on_note, timeout, max_reply, retries,
                     max_retry_wait)


def ollama(
    host: str = "http://127.0.0.1:11434",
    *,
    api_key: Optional[str] = None,
    stream: bool = True,
    on_text: Optional[OnText] = None,
    on_note: Optional[OnNote] = None,
    timeout: float = 120.0,
    max_reply: int = MAX_REPLY,
    retries: int = 0,
    max_retry_wait: float = 60.0,
) -> Callable[[ModelRequest], Completion]:
    """Ollama's native ``/api/chat``, streamed as NDJSON by default. Each model's context
    length and whether it thinks are asked of the server once (``/api/show``), so the
    call sets ``num_ctx`` and ``think`` to fit; ``on_note`` hears of a prompt too long
    for the model's context."""
    base = host if "://" in host else f"http://{host}"
    return _provider("ollama", base, api_key, None, stream, on_text, on_note, timeout, max_reply, retries,
                     max_retry_wait)


def by_provider(providers: Mapping[str, Callable[[ModelRequest], Any]]) -> Callable[[ModelRequest], Any]:
    """Route each request by its model reference's provider (``openai/gpt-4o`` → ``providers["openai"]``)."""

    def complete(request: ModelRequest) -> Any:
        name = request["model"].split("/", 1)[0]
        if name not in providers:
            known = ", ".join(providers)
            raise ProviderError("provider-error", f"no provider '{name}' for model '{request['model']}' (known: {known})")
        return providers[name](request)

    return complete


# --- the transport ------------------------------------------------------------------------------


def _provider(
    name: str,
    base_url: str,
    api_key: Optional[str],
    api: Optional[str],
    stream: bool,
    on_text: Optional[OnText],
    on_note: Optional[OnNote],
    timeout: float,
    max_reply: int,
    retries: int,
    max_retry_wait: float,
) -> Callable[[ModelRequest], Completion]:
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise ValueError(f"retries must be a whole number, 0 or more, not {retries!r}")
    if not max_retry_wait >= 0:
        raise ValueError(f"max_retry_wait must be seconds, 0 or more, not {max_retry_wait!r}")
    base = _Base(base_url)
    secrets = [s for s in [api_key or "", *base.secrets] if len(s) >= 4]
    servers: dict[str, dict[str, Any]] = {}
    # One attempt unless `retries`: the exchange waits what the provider asks
    # (up to `max_retry_wait`) between them; a ProviderError says whether and
    # when another may pass.
    settings = {
        "attempts": retries + 1, "base_ms": 500, "max_wait_ms": int(max_retry_wait * 1000), "stream": stream,
        "max_reply": max_reply,
        "limits": [{"ms": int(timeout * 1000), "what": f"the call's timeout of {timeout:g} s"}],
        "raise_wait": " (max_retry_wait)", "raise_reply": "",
    }

    def complete(request: ModelRequest) -> Completion:
        try:
            return _complete(request)
        except WireFailure as e:
            raise _provider_error(e.failure, secrets) from None
        except ProviderError as e:
            e.args = (_redact(str(e), secrets),)
            raise

    def _complete(request: ModelRequest) -> Completion:
        wire = Wire()
        reference = request["model"]
        model = _model_name(reference, name)
        server = None
        if name == "ollama":
            server = servers.get(model)
            if server is None:
                server = servers[model] = _ask_server(wire, base, model, timeout)
        # The WIT `target`'s `http` case: wasmtime-py tells a record from the `host` case's string untagged.
        target = {
            "reference": reference, "model": model, "family": name, "api": api, "base_url": base.url,
            "server": server, "key_var": "the API key", "url_var": "the base URL",
        }
        exchange = wire.exchange(request, [target], settings)
        try:
            while True:
                action = exchange.next(int(time.time() * 1000))
                if action.tag == "note":
                    if on_note is not None:
                        on_note(action.value, request)
                    else:
                        warnings.warn(action.value, stacklevel=3)
                elif action.tag == "wait":
                    time.sleep(max(0.0, action.value / 1000 - time.time()))
                elif action.tag == "send":
                    _send(wire, exchange, action.value["request"], request)
                elif action.tag == "done":
                    done = action.value["completion"]
                    if not stream and on_text is not None:
                        on_text(done["text"], request)
                    return {"text": done["text"], "usage": done["usage"], "stop": done["stop"]}
                elif action.tag == "failed":
                    raise WireFailure(action.value)
                else:
                    raise ProviderError("provider-error", f"the exchange asked for {action.tag}, which this provider does not do")
        finally:
            exchange.close()

    def _send(wire: Wire, exchange: Exchange, sent: Mapping[str, Any], request: ModelRequest) -> None:
        """One attempt: send it, hand over the status and the bytes as they arrive."""
        url, shown = base.join(sent["path"], sent["query"])
        headers = dict(sent["headers"])
        if api_key:
            key_name, key_value = wire.auth_header(sent["api"], api_key)
            headers[key_name] = key_value
        deadline = time.monotonic() + timeout
        post = urllib.request.Request(url, data=sent["body"].encode(), headers=headers, method="POST")
        try:
            response = urllib.request.urlopen(post, timeout=timeout)
        except urllib.error.HTTPError as e:
            # A failed status: its body read for the message, as far as the exchange wants it.
            exchange.status(e.code, list(e.headers.items()) if e.headers else [], shown)
            try:
                while exchange.wants_more():
                    chunk = e.read(4096)
                    if not chunk:
                        break
                    exchange.body(chunk)
            except OSError:
                pass
            exchange.body_end()
            return
        except urllib.error.URLError as e:
            if isinstance(e.reason, (TimeoutError, socket.timeout)):
                return exchange.transport_failed(_failure(_timed_out(shown, timeout)))
            if isinstance(e.reason, ConnectionError) and not isinstance(e.reason, ConnectionRefusedError):
                return exchange.transport_failed(_failure(_closed(shown, e.reason)))
            unreachable = ProviderError("transport", f"cannot reach {shown} ({e.reason}): is the endpoint running?",
                                        retryable=True)
            return exchange.transport_failed(_failure(unreachable))
        except (TimeoutError, socket.timeout):
            return exchange.transport_failed(_failure(_timed_out(shown, timeout)))
        except (OSError, http.client.HTTPException) as e:
            return exchange.transport_failed(_failure(_closed(shown, e)))
        with response:
            exchange.status(response.status, list(response.headers.items()), shown)
            while exchange.wants_more():
                if time.monotonic() > deadline:
                    return exchange.transport_failed(_failure(_timed_out(shown, timeout)))
                try:
                    chunk = response.read1(8192) if stream else response.read(65536)
                except (TimeoutError, socket.timeout):
                    return exchange.transport_failed(_failure(_timed_out(shown, timeout)))
                except (OSError, http.client.HTTPException) as e:
                    broke = ProviderError("transport", f"the reply from {shown} broke off: {e!r}", retryable=True)
                    return exchange.transport_failed(_failure(broke))
                if not chunk:
                    break
                for piece in exchange.body(chunk):
                    if on_text is not None:
                        on_text(piece, request)
        exchange.body_end()

    return complete


class _Base:
    """A provider's base URL: path segments are added to its path (each percent-encoded
    as one segment, as the CLI does), its own query stays; shown with query values redacted."""

    def __init__(self, raw: str) -> None:
        parts = urllib.parse.urlsplit(raw.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"a provider's base URL must be an http:// or https:// URL, not {raw!r}")
        self._parts = parts._replace(path=parts.path.rstrip("/"), fragment="")
        #: The base URL as given (its host decides OpenAI's own API).
        self.url = raw.strip()
        self._query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
        #: The query's values: a server may echo them.
        self.secrets = [v for _, v in self._query]

    def join(self, segments: list[str], query: list[tuple[str, str]]) -> tuple[str, str]:
        path = self._parts.path + "".join("/" + urllib.parse.quote(s, safe=_SEGMENT_SAFE) for s in segments)
        # The base's own query as written, then the call's.
        raw = "&".join(q for q in (self._parts.query, urllib.parse.urlencode(list(query))) if q)
        url = self._parts._replace(path=path, query=raw).geturl()
        shown = [(k, v if k == "alt" else "***") for k, v in self._query + list(query)]
        return url, self._parts._replace(path=path, query=urllib.parse.urlencode(shown, safe="*")).geturl()


# What a URL path segment keeps as is (the WHATWG path-segment set, as the CLI's `url` crate encodes).
_SEGMENT_SAFE = "!$&'()*+,;=:@[]\\^|~"


def _ask_server(wire: Wire, base: _Base, model: str, timeout: float) -> dict[str, Any]:
    """What an Ollama server says of ``model`` (``/api/show``): its context length and
    whether it thinks; nothing when it cannot say, and the call goes on without it."""
    path, body = wire.show_request(model)
    url, _ = base.join(path, [])
    post = urllib.request.Request(url, data=body.encode(), headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(post, timeout=min(timeout, 10.0)) as response:
            return wire.parse_show(response.read(1 << 20).decode("utf-8", "replace"))
    except (OSError, ValueError):
        return {"context": None, "thinking": None}


def _model_name(reference: str, provider: str) -> str:
    # `openai/gpt-4o` → `gpt-4o`; a reference without this provider's prefix is sent as is.
    prefix = provider + "/"
    return reference[len(prefix):] if reference.startswith(prefix) else reference


def _provider_error(failure: Mapping[str, Any], secrets: list[str]) -> ProviderError:
    return ProviderError(
        failure["kind"],
        _redact(failure["message"], secrets),
        retryable=failure["retryable"],
        retry_after_ms=failure["retry_after_ms"],
        usage=failure["usage"],
    )


def _redact(message: str, secrets: list[str]) -> str:
    for secret in secrets:
        message = message.replace(secret, "[redacted]")
    return message


def _failure(e: ProviderError) -> dict[str, Any]:
    """A transport failure as the exchange takes it (the WIT ``wire-failure``)."""
    return {"kind": e.kind, "message": str(e), "retryable": e.retryable, "retry_after_ms": e.retry_after_ms,
            "usage": e.usage}


def _closed(url: str, e: BaseException) -> ProviderError:
    """The connection failed before any reply came: the request cannot have been answered."""
    return ProviderError("transport", f"the connection to {url} was closed before any reply: {e!r}", retryable=True)


def _timed_out(url: str, timeout: float) -> ProviderError:
    return ProviderError("timeout", f"no complete answer from {url} within {timeout:g} s")
