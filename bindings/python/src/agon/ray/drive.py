"""The runners: each drives many debates at once on its event loop, every call under its
provider's lease, every journal line sent to the keeper as the engine writes it."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import uuid
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Optional

import ray

from .._drive import AsyncComplete, _drain, _input
from .._engine import AgonError, Session, validate_spec
from ..types import ModelRequest, Outcome, Variant
from .limits import HEARTBEAT_SECONDS, StaleLease
from .results import error_line, result_line

CompleteFactory = Callable[[], AsyncComplete]


class _EngineIdle(Exception):
    """The engine waits with no request outstanding: a fault of the debate's own, not of the cluster."""


class _Runner:
    """Drives many debates at once on one event loop; the engine is only touched from it."""

    def __init__(
        self, sweep: str, index: int, complete_factory: CompleteFactory, limiters: dict[str, Any],
        journals: Any, calls: int,
    ) -> None:
        # Owners are per sweep: runner 0 of another sweep sharing a limiter is someone else.
        self.sweep, self.owner, self.token = sweep, f"{sweep}/{index}", uuid.uuid4().hex
        self.complete = complete_factory()
        self.is_async = inspect.iscoroutinefunction(self.complete) or inspect.iscoroutinefunction(
            getattr(self.complete, "__call__", None))
        self.pool = ThreadPoolExecutor(max_workers=calls, thread_name_prefix="agon-call")
        self.limiters, self.journals = limiters, journals
        #: The leases this runner holds, by provider, renewed by the heartbeat.
        self.held: dict[str, set[str]] = {provider: set() for provider in limiters}
        self.heartbeat: Optional[asyncio.Task[None]] = None
        self.node = ray.get_runtime_context().get_node_id()
        # Frees whatever a dead incarnation of this runner held.
        ray.get([limiter.register.remote(self.owner, self.token) for limiter in limiters.values()])

    async def where(self) -> tuple[str, int]:
        return self.node, os.getpid()

    async def debate(self, id: str, spec: str, question: str) -> tuple[str, str, str]:
        """One debate to its end: ``(results line, outcome kind or "error", node id)``, or
        ``(why, "fault", node id)`` when the cluster failed it (no line: a rerun resumes it)."""
        if self.heartbeat is None and self.limiters:
            self.heartbeat = asyncio.ensure_future(self._beat())
        try:
            session = await self._session(id, spec)
        except AgonError as e:  # the spec itself is bad: a rerun would say the same
            return error_line(id, question, str(e)), "error", self.node
        except Exception as e:  # noqa: BLE001 - the keeper failed us: not the debate's fault
            return _fault(e), "fault", self.node
        try:
            outcome = await self._drive(id, session)
            line = result_line(id, question, outcome, session.transcript_json())
            return line, outcome["kind"], self.node
        except StaleLease:
            raise  # this runner was replaced: the debate goes on from its journal elsewhere
        except (AgonError, _EngineIdle) as e:  # the engine's own verdict on this debate, as in agon batch
            return error_line(id, question, str(e)), "error", self.node
        except Exception as e:  # noqa: BLE001 - a limiter or keeper gone, anything else: resumable
            return _fault(e), "fault", self.node
        finally:
            session.close()

    async def _session(self, id: str, spec: str) -> Session:
        journal = await self.journals.read.remote(id)
        if journal:
            try:
                session = Session.from_journal(journal)
            except AgonError as e:
                await self.journals.set_aside.remote(id, f"could not be resumed ({e})")
            else:
                try:
                    same = json.loads(session.spec_json()) == json.loads(validate_spec(spec))
                except AgonError:
                    same = False  # the spec is bad: Session.create says so below
                if same:
                    return session
                session.close()  # another spec's: kept aside by start() below
        session = Session.create(spec)
        await self.journals.start.remote(id, session.journal())
        return session

    async def _drive(self, id: str, session: Session) -> Outcome:
        waiting: deque[ModelRequest] = deque()
        in_flight: set[asyncio.Task[Variant]] = set()
        try:
            while True:
                outcome = _drain(session, waiting, None)
                if outcome is not None:
                    return outcome
                while waiting:
                    in_flight.add(asyncio.create_task(self._call(waiting.popleft())))
                if not in_flight:
                    raise _EngineIdle("the engine is idle with no request outstanding")
                done, in_flight = await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    line = session.handle(task.result())
                    await self.journals.append.remote(id, line)
        finally:
            for task in in_flight:
                task.cancel()

    async def _call(self, request: ModelRequest) -> Variant:
        provider = request["model"].split("/", 1)[0]
        limiter = self.limiters.get(provider)
        lease = uuid.uuid4().hex
        if limiter is not None:
            try:
                # A StaleLease (this runner was replaced) propagates: the debate stops unjournaled.
                await limiter.acquire.remote(self.owner, self.token, lease)
            except BaseException:
                # Cancelled or failed while waiting: the limiter may have granted it all the same,
                # and a lease given back by id is never granted after.
                limiter.release.remote(lease)
                raise
            self.held[provider].add(lease)
        try:
            if self.is_async:
                answer = await self.complete(request)  # type: ignore[misc]
            else:
                answer = await asyncio.get_running_loop().run_in_executor(self.pool, self.complete, request)
            return _input(request, answer)
        except Exception as e:  # noqa: BLE001 - every failed call goes to the engine
            return _input(request, error=e)
        finally:
            if limiter is not None:
                self.held[provider].discard(lease)
                limiter.release.remote(lease)

    async def _beat(self) -> None:
        """Renews the leases held, so they do not expire, and re-registers them with a restarted limiter."""
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            beats = [limiter.hold.remote(self.sweep, self.owner, self.token, sorted(self.held[provider]))
                     for provider, limiter in self.limiters.items()]
            for beat in beats:
                try:
                    await beat
                except Exception:  # noqa: BLE001,S110 - a limiter gone: its callers find out themselves
                    pass


def _fault(e: BaseException) -> str:
    """Why the cluster failed a debate, in one line (Ray's errors run to many)."""
    first = (str(e).strip().splitlines() or [""])[0]
    return f"{type(e).__name__}: {first}"[:500]


# Ray's actor class (typed loosely: ray's stubs do not cover .options on a decorated class).
_RemoteRunner: Any = ray.remote(_Runner)
