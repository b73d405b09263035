"""The shapes that cross the engine boundary, as plain Python values.

WIT records become dicts with snake_case keys, variants become
:class:`Variant` pairs, enums stay strings (``"deliberation"``,
``"judge-failed"``), ``option`` is ``None`` or the value. These hints follow
``wit/debate.wit``; the conversion itself is generic, so a field or case the
engine adds later comes through unchanged.
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple, Optional, TypedDict, Union


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


# --- the transcript (format 2) ----------------------------------------------------------------
#
# What ``run_debate`` returns and ``json.loads(session.transcript_json())`` reads: the same
# JSON in every host. Fields written only when set are optional keys (``total=False``).


class SeatInfo(TypedDict):
    """A seat (or the judge): its id, the name prompts show, its model reference."""

    id: str
    name: str
    model: str


class _TurnFields(TypedDict):
    round: int
    phase: str
    speaker: str
    model: str
    challenger: bool
    text: str


class Turn(_TurnFields, total=False):
    """One answered turn. ``cut``: the model ran into its token limit and the text is where
    it stopped; ``answered_by``: the fallback chain's model that answered, when not its first."""

    usage: Usage
    cut: bool
    answered_by: str


class _SynthesisFields(TypedDict):
    speaker: str
    model: str
    text: str


class Synthesis(_SynthesisFields, total=False):
    """The judge's synthesis; ``cut`` as for a turn."""

    usage: Usage
    cut: bool
    answered_by: str


#: How a protocol's result is shown: one closed vocabulary, the core's ``ResultKind``.
ResultKind = Literal["document", "table", "ranking", "scorecard", "findings", "gate"]


class TranscriptResult(TypedDict):
    """One of a protocol's results: its kind, then its data (a shape of that kind)."""

    kind: ResultKind
    data: Any


class _OutcomeFields(TypedDict):
    kind: str
    #: Whether the debate ran in full (``completed`` or ``consensus``).
    complete: bool
    headline: str
    #: The heading its synthesis is shown under.
    synthesis_heading: str
    reason: str
    rounds_run: int


class TranscriptOutcome(_OutcomeFields, total=False):
    """How the debate ended; ``failures`` (the calls that failed) only when there were any."""

    failures: list[FailureNote]


class _SeatUsageFields(TypedDict):
    seat: str
    model: str
    calls: int
    prompt_tokens: int
    completion_tokens: int


class SeatUsage(_SeatUsageFields, total=False):
    """Tokens (as billed, or estimated for ``estimated_calls``) and cost of one seat;
    no ``cost_micro_usd`` when its model has no price."""

    cached_tokens: int
    cache_write_tokens: int
    estimated_calls: int
    cost_micro_usd: int


class _UsageTotalFields(TypedDict):
    calls: int
    prompt_tokens: int
    completion_tokens: int


class UsageTotal(_UsageTotalFields, total=False):
    """The debate's totals; ``cost_micro_usd`` covers the priced seats, ``unpriced`` names the rest."""

    cached_tokens: int
    cache_write_tokens: int
    estimated_calls: int
    cost_micro_usd: int
    unpriced: list[str]


class UsageReport(TypedDict):
    seats: list[SeatUsage]
    total: UsageTotal


class _TranscriptFields(TypedDict):
    version: int
    protocol: str
    question: str
    seed: int
    participants: list[SeatInfo]
    judge: Optional[SeatInfo]
    turns: list[Turn]
    #: The protocol's results by name, each with its kind.
    results: dict[str, TranscriptResult]
    synthesis: Optional[Synthesis]
    #: ``None`` while the debate runs.
    outcome: Optional[TranscriptOutcome]
    usage: UsageReport


class Transcript(_TranscriptFields, total=False):
    """A debate's record (format 2). The optional keys are written only when set: the
    context and its files, the session it follows up, whether round 1 was blind, the
    consensus checks, the seed's choices, rolling summaries and warnings; their shapes are
    in the transcript chapter of the docs."""

    context: str
    files: list[dict[str, Any]]
    parent: dict[str, Any]
    blind: bool
    consensus: list[dict[str, Any]]
    choices: list[dict[str, Any]]
    summaries: list[dict[str, Any]]
    warnings: list[dict[str, Any]]
