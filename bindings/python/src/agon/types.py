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


class Usage(TypedDict):
    prompt_tokens: int
    completion_tokens: int


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


#: What ``complete(request)`` may return: the reply text, or text with usage.
Reply = Union[str, Completion]

#: How a model call can fail, in the engine's terms.
FAILURE_KINDS = frozenset({"timeout", "rate-limited", "provider-error", "refused", "cancelled", "transport"})
