"""The host loop: drain ``poll()``, perform released requests, feed back what came of them.

``complete(request)`` returns the reply text or ``{"text", "usage", "stop"}``
(``stop: "token-limit"`` marks a cut reply), or raises; an exception's ``kind``
attribute (a WIT failure kind) is kept, any other exception is a
``provider-error``, and its ``usage`` attribute (what a failed call billed) goes
with it. The engine decides what a failure means.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections import deque
from collections.abc import Awaitable
from typing import Any, Callable, Optional, Union, cast

from ._engine import Session, Spec, wit_usage
from .types import FAILURE_KINDS, STOP_REASONS, DebateEvent, ModelRequest, Outcome, Reply, Transcript, Variant

Complete = Callable[[ModelRequest], Reply]
AsyncComplete = Callable[[ModelRequest], Union[Reply, Awaitable[Reply]]]
OnEvent = Callable[[DebateEvent], None]
OnJournal = Callable[[str], None]


def _input(request: ModelRequest, answer: Any = None, error: Optional[BaseException] = None) -> Variant:
    """What came of one call, as the engine's `input` variant."""
    id = request["id"]
    if error is not None:
        kind = getattr(error, "kind", None)
        return Variant("failed", {
            "id": id,
            "kind": kind if kind in FAILURE_KINDS else "provider-error",
            "message": str(error) or type(error).__name__,
            "usage": wit_usage(getattr(error, "usage", None)),
        })
    if isinstance(answer, str):
        return Variant("reply", {"id": id, "text": answer, "usage": None, "stop": None})
    if isinstance(answer, dict) and isinstance(answer.get("text"), str):
        stop = answer.get("stop")
        return Variant("reply", {
            "id": id,
            "text": answer["text"],
            "usage": wit_usage(answer.get("usage")),
            "stop": stop if stop in STOP_REASONS else None,
            # The fallback chain's model that answered, when the caller says.
            "model": answer.get("model") if isinstance(answer.get("model"), str) else None,
        })
    return _input(request, error=TypeError("complete() must return a str or {'text': str, 'usage': ..., 'stop': ...}"))


def _call(complete: Complete, request: ModelRequest) -> Variant:
    try:
        return _input(request, complete(request))
    except Exception as e:  # noqa: BLE001 - every failed call goes to the engine
        return _input(request, error=e)


def _drain(session: Session, waiting: deque[ModelRequest], on_event: Optional[OnEvent]) -> Optional[Outcome]:
    """Poll until ``idle`` (None) or ``done`` (the outcome): requests queue in ``waiting``, events go out.

    One ``poll_all`` per drain: every output up to ``idle`` or ``done`` crosses the boundary at once."""
    for output in session.poll_all():
        if output.tag == "request":
            waiting.append(output.value)
        elif output.tag == "event":
            if on_event is not None:
                on_event(output.value)
        elif output.tag == "done":
            return cast(Outcome, output.value)
    return None


def drive(
    session: Session,
    complete: Complete,
    on_event: Optional[OnEvent] = None,
    on_journal: Optional[OnJournal] = None,
) -> Outcome:
    """Drive a session to the end, one call at a time; returns the outcome.

    1. Drain ``poll()`` until ``idle`` or ``done``, passing events to ``on_event``.
    2. Perform the oldest released request and ``handle`` what came of it
       (the journal line goes to ``on_journal``); go to 1.
    """
    waiting: deque[ModelRequest] = deque()
    while True:
        outcome = _drain(session, waiting, on_event)
        if outcome is not None:
            return outcome
        if not waiting:
            raise RuntimeError("the engine is idle with no request outstanding")
        line = session.handle(_call(complete, waiting.popleft()))
        if on_journal is not None:
            on_journal(line)


def run_debate(
    spec: Spec,
    complete: Complete,
    on_event: Optional[OnEvent] = None,
    on_journal: Optional[OnJournal] = None,
) -> Transcript:
    """Run a whole debate, one call at a time; returns its transcript."""
    with Session.create(spec) as session:
        drive(session, complete, on_event, on_journal)
        return session.transcript()


async def drive_async(
    session: Session,
    complete: AsyncComplete,
    on_event: Optional[OnEvent] = None,
    on_journal: Optional[OnJournal] = None,
    concurrency: Optional[int] = None,
) -> Outcome:
    """Drive a session to the end, running released requests concurrently.

    An ``async def`` complete runs on the event loop; a plain function runs in
    a worker thread (``asyncio.to_thread``), so the blocking providers work
    too. The session itself is only touched from the event loop's thread.
    """
    if concurrency is not None and concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    is_async = inspect.iscoroutinefunction(complete) or inspect.iscoroutinefunction(
        getattr(complete, "__call__", None)
    )

    async def call(request: ModelRequest) -> Variant:
        try:
            if is_async:
                answer = await complete(request)  # type: ignore[misc]
            else:
                answer = await asyncio.to_thread(complete, request)
            return _input(request, answer)
        except Exception as e:  # noqa: BLE001 - every failed call goes to the engine
            return _input(request, error=e)

    waiting: deque[ModelRequest] = deque()
    in_flight: set[asyncio.Task[Variant]] = set()
    try:
        while True:
            outcome = _drain(session, waiting, on_event)
            if outcome is not None:
                return outcome
            while waiting and (concurrency is None or len(in_flight) < concurrency):
                in_flight.add(asyncio.create_task(call(waiting.popleft())))
            if not in_flight:
                raise RuntimeError("the engine is idle with no request outstanding")
            done, in_flight = await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                line = session.handle(task.result())
                if on_journal is not None:
                    on_journal(line)
    finally:
        for task in in_flight:
            task.cancel()


async def run_debate_async(
    spec: Spec,
    complete: AsyncComplete,
    on_event: Optional[OnEvent] = None,
    on_journal: Optional[OnJournal] = None,
    concurrency: Optional[int] = None,
) -> Transcript:
    """Run a whole debate with released requests in flight together; returns its transcript."""
    with Session.create(spec) as session:
        await drive_async(session, complete, on_event, on_journal, concurrency)
        return session.transcript()
