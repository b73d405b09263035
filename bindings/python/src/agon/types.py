"""The shapes that cross the engine boundary, as plain Python values.

WIT records become dicts with snake_case keys, variants become
:class:`Variant` pairs, enums stay strings (``"deliberation"``,
``"judge-failed"``), ``option`` is ``None`` or the value. These hints follow
``wit/debate.wit``; the conversion itself is generic, so a field or case the
engine adds later comes through unchanged.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, TypedDict, Union


class Variant(NamedTuple):
    """A WIT variant case: ``Variant("request", {...})``, ``Variant("idle", None)``."""

    tag: str
    value: Any = None


class Message(TypedDict):
    role: str
    content: str


class _UsageCounts(TypedDict):
    prompt_tokens: int
    completion_tokens: int


class Usage(_UsageCounts, total=False):
    """Tokens as the provider bills them: ``completion_tokens`` includes ``reasoning_tokens``,
    ``prompt_tokens`` includes ``cached_tokens`` (read from its prompt cache)."""

    reasoning_tokens: Optional[int]
    cached_tokens: Optional[int]
    cache_write_tokens: Optional[int]


class ReasoningRequest(TypedDict):
    """What one request asks of a reasoning model: ``effort`` (``low``, ``medium``,
    ``high``), ``budget`` in tokens, and the ``allowance`` it may think beyond ``max_tokens``."""

    effort: Optional[str]
    budget: Optional[int]
    allowance: int


class ModelTraits(TypedDict):
    """What the model catalog knows of one model."""

    reasoning: bool
    temperature: bool
    context: Optional[int]
    max_output: Optional[int]


class ModelRequest(TypedDict):
    """One model call, fully assembled by the engine; send it as is."""

    id: int
    seat: str
    model: str
    purpose: str
    round: int
    phase: str
    messages: list[Message]
    max_tokens: int
    temperature: float
    expect: Optional[str]
    reasoning: Optional[ReasoningRequest]
    #: The catalog's facts for each model of the request's fallback chain: ``(reference, traits)``.
    traits: list[tuple[str, ModelTraits]]


class FailureNote(TypedDict):
    speaker: str
    round: int
    phase: str
    kind: str
    message: str


class Outcome(TypedDict):
    kind: str
    reason: str
    rounds_run: int
    failures: list[FailureNote]


class DebateEvent(TypedDict):
    """An event: ``kind`` is the typed case, ``json`` the canonical form every host emits."""

    seq: int
    kind: Variant
    json: str


class Completion(TypedDict, total=False):
    text: str
    usage: Optional[Usage]
    #: Why the model stopped: ``complete``, ``token-limit`` (the reply is cut), ``other``.
    stop: Optional[str]


#: What ``complete(request)`` may return: the reply text, or text with usage (and stop).
Reply = Union[str, Completion]

#: How a model call can fail, in the engine's terms.
FAILURE_KINDS = frozenset(
    {"timeout", "rate-limited", "provider-error", "refused", "cancelled", "transport", "token-limit"}
)

#: Why a model stopped, in the engine's terms.
STOP_REASONS = frozenset({"complete", "token-limit", "other"})
