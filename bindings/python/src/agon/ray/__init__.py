"""Many debates over a Ray cluster: ``agon.ray.run_batch``.

``pip install agon-debate[ray]`` adds Ray (PyPI ``ray``, pinned). The same
``agon.wasm`` runs on every worker; Ray only places the work:

* **Runners**: a few async Ray actors (one per CPU of the cluster by default,
  spread over its nodes). Each debate is one Ray actor task on a runner, and a
  runner drives up to ``debates_per_runner`` debates at once on its event loop,
  each with its requests in flight together. (A plain Ray task per debate would
  reserve a CPU for the whole debate, which is mostly waiting on models: a
  2-core node would run two debates at a time.)
* **Limits**: one named Ray actor per provider (``agon-limit-<provider>``)
  holds that provider's global ``in_flight`` and ``per_minute`` limits; every
  call on every node takes a lease from it first and gives it back after.
* **Journals**: every journal line goes, as the engine writes it, to one
  keeper actor on the driver's machine, which appends it to
  ``journals/<id>.ndjson``: the folder need not be shared between machines.
* **Results**: one line per finished debate, appended to ``output`` and
  flushed at once, in the shape ``agon batch`` writes (the same bytes for the
  same spec and replies). A rerun skips the ids already in ``output`` and
  resumes unfinished debates from their journals: an answered call is never
  asked again. A runner that dies (its process killed, its node lost) is
  restarted by Ray, and its debates resume from their journals in the same way.

Under faults:

* **Locks.** A run holds an OS file lock (``flock``) on ``<output>.lock``,
  beside the results (the lock ``agon batch`` takes on its results, so the two
  exclude each other too), and on ``lock`` inside the journals folder, for the
  whole run. A second run on the same output or the same journals raises
  :class:`OutputLocked` at once, naming the holder's pid and the lock file,
  before it reads, repairs or pays for anything. The OS drops a lock when its
  process dies, so a lock is never stale.
* **What is final.** A line is written to ``output`` only for what a rerun
  would give again: an outcome (any kind), or an error of the debate's own,
  raised by the engine (an invalid spec, a reply or state it refuses, a
  trap). Every other exception is a fault of the infrastructure: a
  limiter or journal keeper that died or is gone (``RayActorError`` and the
  like), a runner lost more than three times, a file that could not be
  written, anything else. Such a debate gets no line; its journal stays, it is
  counted in ``BatchSummary.unfinished`` with its reason in
  ``BatchSummary.faults``, and a rerun resumes it from its journal.
* **Limiter.** The limiter actor is restarted by Ray (``max_restarts``) and
  the calls sent to it are retried on the new one. Each lease has an id, chosen
  by its caller, and an expiry (``LEASE_SECONDS``): runners renew the leases
  they hold every ``HEARTBEAT_SECONDS``. A restarted limiter grants nothing
  for two heartbeats, while the runners' renewals re-register the leases they
  still hold (under the same ids: never counted twice); a lease nobody renews
  (its holder died) expires and is reclaimed. A lease given back, even before
  it was granted, is never granted or re-registered afterwards, so a call
  cancelled while it waited returns its lease however the race fell.
* **Bad journals.** A journal that cannot be read (not UTF-8, unreadable) or
  that the engine cannot resume from is renamed ``<id>.ndjson.bad`` (``.bad.1``
  …), a ``RuntimeWarning`` names it (the paths are also in
  ``BatchSummary.set_aside``), and its debate starts afresh; the sweep goes on.

    from agon.ray import run_batch, specs_from_questions
    import agon
    specs = specs_from_questions(template, [{"id": "q1", "question": "Tabs or spaces?"}])
    run_batch(specs, lambda: agon.openai(url, key, stream=False), output="results.jsonl",
              journals="journals", limits={"openai": {"in_flight": 50, "per_minute": 3000}})
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import sys
import time
import urllib.parse
import uuid
import warnings
from collections import deque
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable, Optional, TypedDict, Union, cast

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ._drive import AsyncComplete, _drain, _input
from ._engine import AgonError, Session, Spec, spec_text, validate_spec
from .types import ModelRequest, Outcome, Variant

__all__ = ["BatchSummary", "Limit", "Limits", "OutputLocked", "StaleLease", "result_line", "run_batch",
           "specs_from_questions"]

CompleteFactory = Callable[[], AsyncComplete]


class Limit(TypedDict, total=False):
    """One provider's global limits: requests ``in_flight`` at once, requests started ``per_minute``."""

    in_flight: int
    per_minute: int


@dataclass
class BatchSummary:
    """How a sweep went: debates ``full`` (completed or consensus), ``partial``
    (degraded, no quorum, judge failed, cost limit), ``errors`` (could not run;
    their lines say why), ``skipped`` (already in the results), ``unfinished``
    (failed by the cluster, not by the debate: no line, journal kept, a rerun
    resumes them; ``faults`` says why, by id), how many debates each Ray node
    ran, and the journals ``set_aside`` as unreadable."""

    full: int = 0
    partial: int = 0
    errors: int = 0
    skipped: int = 0
    unfinished: int = 0
    nodes: dict[str, int] = field(default_factory=dict)
    faults: dict[str, str] = field(default_factory=dict)
    set_aside: list[str] = field(default_factory=list)


class StaleLease(Exception):
    """A lease asked for by a runner that has since been restarted, or given back before it was granted."""


class OutputLocked(RuntimeError):
    """Another run (``run_batch`` or ``agon batch``) is writing the same results or journals."""


# --- locks -------------------------------------------------------------------------------------


class _Lock:
    """An OS file lock (``flock``), taken at once or not at all, as ``agon batch``
    takes ``RESULTS.lock``: the holder writes its pid into the file, and removes
    the file (while still holding it) when it lets go. The OS drops the lock when
    its process dies, however it dies, so a lock is never stale."""

    def __init__(self, path: Path, what: str) -> None:
        self.path = path
        while True:
            file = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held until release()
            if not _try_lock(file):
                try:
                    file.seek(0)
                    pid = file.read().strip()
                except OSError:
                    pid = ""
                file.close()
                holder = f" (pid {pid})" if pid.isdigit() else ""
                raise OutputLocked(
                    f"{what} is being written by another run{holder}, which holds the lock {path}: "
                    "wait for it to end (or stop it), then run this again"
                )
            try:
                now, held = os.stat(path), os.fstat(file.fileno())
                same = (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)
            except FileNotFoundError:
                same = False
            if same:
                break
            file.close()  # its last holder removed it between our open and our lock: again
        file.truncate(0)
        file.write(str(os.getpid()))
        file.flush()
        self.file: IO[str] = file

    def release(self) -> None:
        # Removed while still held, so nobody can lock this file after we let it go.
        try:
            self.path.unlink()
        except OSError:
            pass
        self.file.close()  # closing drops the lock


if sys.platform == "win32":
    import msvcrt

    def _try_lock(file: IO[str]) -> bool:
        try:
            file.seek(0)  # every taker locks the same first byte
            msvcrt.locking(file.fileno(), msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False
else:
    import fcntl

    def _try_lock(file: IO[str]) -> bool:
        try:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False


# --- results, in agon batch's shape -----------------------------------------------------------


def result_line(id: str, question: str, outcome: Outcome, transcript_json: str) -> str:
    """One results line, byte for byte as ``agon batch`` writes it: compact JSON with
    sorted keys (serde_json's map), raw UTF-8, and U+007F–U+009F escaped."""
    transcript = json.loads(transcript_json)
    line = {
        "id": id,
        "question": question,
        "outcome": outcome["kind"],
        "reason": outcome["reason"],
        "synthesis": (transcript.get("synthesis") or {}).get("text"),
        "cost_micro_usd": ((transcript.get("usage") or {}).get("total") or {}).get("cost_micro_usd"),
        "transcript": transcript,
    }
    return _json_text(line)


def _error_line(id: str, question: str, error: str) -> str:
    return _json_text({"id": id, "question": question, "error": error})


def _json_text(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return "".join(f"\\u{ord(c):04x}" if "\x7f" <= c <= "\x9f" else c for c in text)


def specs_from_questions(template: Spec, questions: Iterable[Mapping[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """``(id, spec)`` for each ``{"id", "question", "context"?}``, as ``agon batch`` builds
    them: the template with the question set, and the context set or removed."""
    base = json.loads(spec_text(template))
    out = []
    for n, q in enumerate(questions, 1):
        id, question = q.get("id"), q.get("question")
        if not isinstance(id, str) or not id:
            raise ValueError(f"question {n}: \"id\" must be a non-empty string")
        if not isinstance(question, str) or not question.strip():
            raise ValueError(f"question {n} ({id}): \"question\" must be a non-empty string")
        spec = dict(base, question=question)
        spec.pop("context", None)
        if q.get("context") is not None:
            if not isinstance(q["context"], str):
                raise ValueError(f"question {n} ({id}): \"context\" must be a string")
            spec["context"] = q["context"]
        out.append((id, spec))
    return out


def _finished_ids(path: Path) -> set[str]:
    """Ids already in a results file. A torn last line (a crash mid-write) is set
    aside in ``RESULTS.torn`` and cut; its debate runs again."""
    if not path.exists():
        return set()
    data = path.read_bytes()
    keep = data[: data.rfind(b"\n") + 1]
    if keep != data:
        with open(f"{path}.torn", "ab") as aside:
            aside.write(data[len(keep):] + b"\n")
        with open(path, "r+b") as f:
            f.truncate(len(keep))
    ids = set()
    for raw in keep.splitlines():
        try:
            id = json.loads(raw).get("id")
        except (ValueError, AttributeError):
            continue
        if isinstance(id, str):
            ids.add(id)
    return ids


# --- limits ------------------------------------------------------------------------------------


#: How long a lease lives without being renewed; its holder renews it every HEARTBEAT_SECONDS.
LEASE_SECONDS = 30.0
HEARTBEAT_SECONDS = 2.0


class Limits:
    """In-flight and per-minute limits for one provider, as the limiter actor keeps them.

    Leases are granted first come, first served. ``per_minute`` spaces request
    starts evenly (60 s / N apart), as ``agon batch --rate`` does. Each lease
    has an id its caller chose, an owner (a runner) in one incarnation
    (``token``), and an expiry: when a runner restarts, :meth:`register` frees
    what its dead incarnation held; :meth:`hold` renews what a live one holds
    (re-registering leases a restarted limiter does not know); a lease not
    renewed for ``ttl`` seconds is reclaimed. A lease given back is never
    granted or re-registered after, whatever order the calls arrive in.
    """

    def __init__(
        self, in_flight: Optional[int] = None, per_minute: Optional[int] = None,
        clock: Callable[[], float] = time.monotonic, ttl: float = LEASE_SECONDS,
    ) -> None:
        for name, value in (("in_flight", in_flight), ("per_minute", per_minute)):
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                raise ValueError(f"{name} must be a whole number of at least 1, not {value!r}")
        self.in_flight, self.per_minute = in_flight, per_minute
        self.spacing = 60.0 / per_minute if per_minute else 0.0
        self.clock, self.ttl = clock, ttl
        #: lease id -> (owner, token, expires at)
        self.leases: dict[str, tuple[str, str, float]] = {}
        self.current: dict[str, str] = {}
        self.waiters: deque[tuple[asyncio.Future[str], str, str, str]] = deque()
        #: Leases given back, and when: so a late grant or renewal of one is refused.
        self.returned: dict[str, float] = {}
        self.next_start = 0.0
        self.paused_until = 0.0
        self.timer: Optional[asyncio.TimerHandle] = None
        self.timer_at = 0.0
        self.most_in_flight = 0

    def config(self) -> tuple[Optional[int], Optional[int]]:
        return self.in_flight, self.per_minute

    def pause(self, seconds: float) -> None:
        """Grant nothing for ``seconds``: after a restart, while holders re-register their leases."""
        self.paused_until = self.clock() + seconds

    async def acquire(self, owner: str, token: str, lease: str) -> str:
        """Wait for a place under the id ``lease``; returns it, to give back with :meth:`release`."""
        if self.current.get(owner, token) != token:
            raise StaleLease(f"runner {owner} was restarted")
        if lease in self.returned:
            raise StaleLease(f"lease {lease} was given back before it was granted")
        if lease in self.leases:
            return lease
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.waiters.append((future, owner, token, lease))
        self._grant()
        try:
            return await future
        except asyncio.CancelledError:
            # Cancelled while waiting, or after the grant but before this resumed: give it back either way.
            self.release(lease)
            raise

    def release(self, lease: str) -> None:
        """Give a lease back: held, still waited for, or not yet asked for."""
        self.returned.pop(lease, None)  # kept in order of return, for _reclaim
        self.returned[lease] = self.clock()
        for future, _, _, waited in self.waiters:
            if waited == lease and not future.done():
                future.set_exception(StaleLease(f"lease {lease} was given back before it was granted"))
        self.leases.pop(lease, None)
        self._grant()

    def hold(self, owner: str, token: str, leases: Iterable[str]) -> None:
        """A live runner still holds ``leases``: renew them, re-registering any this limiter does not know."""
        if self.current.setdefault(owner, token) != token:
            return  # an earlier incarnation, already replaced
        expires = self.clock() + self.ttl
        for lease in leases:
            if lease not in self.returned:
                self.leases[lease] = (owner, token, expires)
        self.most_in_flight = max(self.most_in_flight, len(self.leases))
        self._grant()

    def register(self, owner: str, token: str) -> None:
        """A runner (re)started: leases of its earlier incarnations are freed."""
        self.current[owner] = token
        for lease, (o, t, _) in list(self.leases.items()):
            if o == owner and t != token:
                del self.leases[lease]
        self._grant()

    def tick(self) -> None:
        """Reclaim expired leases, forget old returns, and grant what can be granted now."""
        self._grant()

    def _reclaim(self, now: float) -> None:
        for lease, (_, _, expires) in list(self.leases.items()):
            if expires <= now:
                del self.leases[lease]
        # A return is remembered for as long as a lease can live: older ones can no longer matter.
        for lease, at in list(self.returned.items()):
            if at + self.ttl > now:
                break  # in order of return
            del self.returned[lease]

    def _grant(self) -> None:
        now = self.clock()
        self._reclaim(now)
        while self.waiters:
            future, owner, token, lease = self.waiters[0]
            if future.done():  # its caller went away, or gave it back
                self.waiters.popleft()
                continue
            if self.current.get(owner, token) != token:
                self.waiters.popleft()
                future.set_exception(StaleLease(f"runner {owner} was restarted"))
                continue
            if now < self.paused_until:
                self._wake_at(self.paused_until)
                return
            if self.in_flight is not None and len(self.leases) >= self.in_flight:
                # Wakes when the first lease expires, if nobody gives one back before.
                self._wake_at(min(expires for _, _, expires in self.leases.values()))
                return
            if self.spacing and now < self.next_start:
                self._wake_at(self.next_start)
                return
            self.waiters.popleft()
            self.next_start = max(now, self.next_start) + self.spacing if self.spacing else now
            self.leases[lease] = (owner, token, now + self.ttl)
            self.most_in_flight = max(self.most_in_flight, len(self.leases))
            future.set_result(lease)

    def _wake_at(self, at: float) -> None:
        if self.timer is not None and self.timer_at <= at:
            return
        if self.timer is not None:
            self.timer.cancel()
        self.timer_at = at
        self.timer = asyncio.get_running_loop().call_later(max(0.0, at - self.clock()), self._wake)

    def _wake(self) -> None:
        self.timer = None
        self._grant()


class _Limiter:
    """One provider's :class:`Limits`, shared by every runner of every sweep in the namespace.

    Restartable: Ray starts it again with the same limits, and it then waits two
    heartbeats for the runners to re-register the leases they hold."""

    def __init__(self, in_flight: Optional[int], per_minute: Optional[int]) -> None:
        self.limits = Limits(in_flight, per_minute)
        self.restarted = bool(ray.get_runtime_context().was_current_actor_reconstructed)
        if self.restarted:
            self.limits.pause(2 * HEARTBEAT_SECONDS + 1)
        #: The sweeps using this limiter; after a restart, their runners' renewals name them again.
        self.users: set[str] = set()

    async def config(self) -> tuple[Optional[int], Optional[int]]:
        return self.limits.config()

    async def acquire(self, owner: str, token: str, lease: str) -> str:
        return await self.limits.acquire(owner, token, lease)

    async def release(self, lease: str) -> None:
        self.limits.release(lease)

    async def hold(self, sweep: str, owner: str, token: str, leases: list[str]) -> None:
        self.users.add(sweep)
        self.limits.hold(owner, token, leases)

    async def register(self, owner: str, token: str) -> None:
        self.limits.register(owner, token)

    async def state(self) -> dict[str, Any]:
        """What it holds now, for tests and diagnostics."""
        self.limits.tick()
        return {"leases": len(self.limits.leases), "most_in_flight": self.limits.most_in_flight,
                "restarted": self.restarted}

    async def most_in_flight(self) -> int:
        return self.limits.most_in_flight

    async def join(self, sweep: str) -> None:
        self.users.add(sweep)

    async def leave(self, sweep: str) -> int:
        """One sweep is done with this limiter; returns how many still use it."""
        self.users.discard(sweep)
        return len(self.users)


# --- journals ----------------------------------------------------------------------------------


def _journal_name(id: str) -> str:
    return urllib.parse.quote(id, safe="-_.@") + ".ndjson" if len(id) <= 120 else (
        urllib.parse.quote(id[:80], safe="-_.@") + "-" + uuid.uuid5(uuid.NAMESPACE_URL, id).hex + ".ndjson")


class _Journals:
    """The journals folder, on the driver's machine: each line a runner sends is
    appended and flushed before the runner goes on (calls from one runner are
    handled in the order sent)."""

    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        #: Journals set aside, and why, for the driver to report.
        self.aside: list[tuple[str, str]] = []

    def _path(self, id: str) -> Path:
        return self.folder / _journal_name(id)

    def read(self, id: str) -> str:
        """The journal so far ("" if none, or if it had to be set aside); a torn last line is set aside and cut."""
        path = self._path(id)
        if not path.exists():
            return ""
        try:
            text = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeError) as e:
            # One bad journal must not stop the sweep: its debate starts afresh.
            self.set_aside(id, f"cannot be read ({type(e).__name__}: {e})")
            return ""
        keep = text[: text.rfind("\n") + 1]
        if keep != text:
            with open(f"{path}.torn", "a", encoding="utf-8") as aside:
                aside.write(text[len(keep):] + "\n")
            path.write_text(keep, encoding="utf-8")
        return keep

    def set_aside(self, id: str, why: str) -> None:
        """Renames the journal ``<name>.bad`` (``.bad.1``, …), so a fresh one can start."""
        path = self._path(id)
        if not path.exists():
            return
        aside, n = Path(f"{path}.bad"), 0
        while aside.exists():
            n += 1
            aside = Path(f"{path}.bad.{n}")
        path.rename(aside)
        self.aside.append((str(aside), f"the journal of {id!r} {why}: set aside as {aside}, the debate starts afresh"))

    def taken_aside(self) -> list[tuple[str, str]]:
        """The journals set aside since the last call, and why."""
        out, self.aside = self.aside, []
        return out

    def start(self, id: str, header: str) -> None:
        """A new journal; one already there is kept beside it as ``.1`` (``.2``, …)."""
        path = self._path(id)
        if path.exists():
            n = 1
            while Path(f"{path}.{n}").exists():
                n += 1
            path.rename(f"{path}.{n}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(header if header.endswith("\n") else header + "\n")

    def append(self, id: str, line: str) -> None:
        with open(self._path(id), "a", encoding="utf-8") as f:
            f.write(line if line.endswith("\n") else line + "\n")


# --- runners -----------------------------------------------------------------------------------


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
            return _error_line(id, question, str(e)), "error", self.node
        except Exception as e:  # noqa: BLE001 - the keeper failed us: not the debate's fault
            return _fault(e), "fault", self.node
        try:
            outcome = await self._drive(id, session)
            line = result_line(id, question, outcome, session.transcript_json())
            return line, outcome["kind"], self.node
        except StaleLease:
            raise  # this runner was replaced: the debate goes on from its journal elsewhere
        except (AgonError, _EngineIdle) as e:  # the engine's own verdict on this debate, as in agon batch
            return _error_line(id, question, str(e)), "error", self.node
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


# Ray's actor classes (typed loosely: ray's stubs do not cover .options on a decorated class).
_RemoteLimiter: Any = ray.remote(_Limiter)
_RemoteJournals: Any = ray.remote(_Journals)
_RemoteRunner: Any = ray.remote(_Runner)


# --- the driver --------------------------------------------------------------------------------


def _items(specs: Union[Mapping[str, Spec], Iterable[tuple[str, Spec]]]) -> list[tuple[str, str, str]]:
    pairs = list(specs.items()) if isinstance(specs, Mapping) else list(specs)
    out, seen = [], set()
    for n, pair in enumerate(pairs, 1):
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise ValueError(f"specs item {n} must be an (id, spec) pair")
        id, spec = pair
        if not isinstance(id, str) or not id:
            raise ValueError(f"specs item {n}: the id must be a non-empty string, not {id!r}")
        if id in seen:
            raise ValueError(f"specs item {n}: the id '{id}' is used twice")
        seen.add(id)
        text = spec_text(spec)
        try:
            question = json.loads(text).get("question")
        except (ValueError, AttributeError):
            raise ValueError(f"specs item {n} ({id}): the spec is not a JSON object") from None
        if not isinstance(question, str):
            raise ValueError(f"specs item {n} ({id}): the spec has no \"question\" string")
        out.append((id, text, question))
    return out


def _limiters(limits: Mapping[str, Limit], namespace: str, sweep: str) -> dict[str, Any]:
    handles = {}
    for provider, limit in limits.items():
        unknown = set(limit) - {"in_flight", "per_minute"}
        if unknown:
            raise ValueError(f"limits[{provider!r}]: unknown field {sorted(unknown)[0]!r} (in_flight, per_minute)")
        wanted = (limit.get("in_flight"), limit.get("per_minute"))
        Limits(*wanted)  # checks the values, naming the field
        # Restarted by Ray if it dies, and the calls it had (acquire, release, hold) sent to the new one.
        handle = _RemoteLimiter.options(
            name=f"agon-limit-{provider}", namespace=namespace, get_if_exists=True, num_cpus=0,
            max_concurrency=100_000, max_restarts=-1, max_task_retries=-1,
        ).remote(*wanted)
        held = tuple(ray.get(handle.config.remote()))
        if held != wanted:
            raise ValueError(
                f"limits[{provider!r}]: the cluster already limits {provider} to in_flight={held[0]}, "
                f"per_minute={held[1]} (another sweep in this namespace is running); ask for the same limits"
            )
        ray.get(handle.join.remote(sweep))
        handles[provider] = handle
    return handles


def run_batch(
    specs: Union[Mapping[str, Spec], Iterable[tuple[str, Spec]]],
    complete_factory: CompleteFactory,
    *,
    output: Union[str, os.PathLike[str]],
    journals: Union[str, os.PathLike[str]],
    limits: Optional[Mapping[str, Limit]] = None,
    runners: Optional[int] = None,
    debates_per_runner: int = 32,
    calls_per_runner: Optional[int] = None,
    cpus_per_runner: float = 1.0,
    address: Optional[str] = None,
    namespace: str = "agon",
    on_result: Optional[Callable[[str, str], None]] = None,
) -> BatchSummary:
    """Run every debate of ``specs`` (``{id: spec}`` or ``(id, spec)`` pairs) on a Ray cluster.

    ``complete_factory()`` is called once on each runner, which may be on another
    machine, and returns the ``complete`` to call there (``agon.openai(...)``, any
    function, or an ``async def``): the factory must pickle, not what it returns.
    Each finished debate appends its line to ``output`` (the JSONL of
    ``agon batch``) and calls ``on_result(id, outcome)``. ``limits`` maps a
    provider (the part of a model reference before ``/``) to its global
    ``{"in_flight", "per_minute"}``. ``runners`` defaults to the cluster's CPU
    count; each drives up to ``debates_per_runner`` debates at once, with up to
    ``calls_per_runner`` blocking calls in threads (default: 4 per debate).
    Connects to ``address`` (or ``RAY_ADDRESS``, or starts a local Ray) unless
    Ray is already initialized. Returns a :class:`BatchSummary`.

    Raises :class:`OutputLocked` if another run holds ``output`` or ``journals``.
    A debate failed by the cluster rather than by itself gets no line (see the
    module's docstring): rerun to finish it.
    """
    for name, value in (("debates_per_runner", debates_per_runner), ("runners", runners),
                        ("calls_per_runner", calls_per_runner)):
        if value is not None and (not isinstance(value, int) or value < 1):
            raise ValueError(f"{name} must be a whole number of at least 1, not {value!r}")
    items = _items(specs)
    output_path = Path(output)
    if not output_path.parent.is_dir():
        raise ValueError(f"output: the folder {output_path.parent} does not exist")
    journals_path = Path(journals).resolve()
    journals_path.mkdir(parents=True, exist_ok=True)
    # Held before the results are read (a torn line is cut) and until the last line is written.
    locks = [_Lock(output_path.with_name(output_path.name + ".lock"), str(output_path))]
    try:
        locks.append(_Lock(journals_path / "lock", f"the journals folder {journals_path}"))
        return _run_locked(items, complete_factory, output_path, journals_path, limits, runners,
                           debates_per_runner, calls_per_runner, cpus_per_runner, address, namespace, on_result)
    finally:
        for lock in reversed(locks):
            lock.release()


def _run_locked(
    items: list[tuple[str, str, str]], complete_factory: CompleteFactory, output_path: Path, journals_path: Path,
    limits: Optional[Mapping[str, Limit]], runners: Optional[int], debates_per_runner: int,
    calls_per_runner: Optional[int], cpus_per_runner: float, address: Optional[str], namespace: str,
    on_result: Optional[Callable[[str, str], None]],
) -> BatchSummary:
    done = _finished_ids(output_path)
    todo = [item for item in items if item[0] not in done]
    summary = BatchSummary(skipped=len(items) - len(todo))
    if not todo:
        return summary
    sweep = uuid.uuid4().hex[:12]
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, namespace=namespace, log_to_driver=False)
    try:
        here = ray.get_runtime_context().get_node_id()
        # Restarted if it dies; a line it was writing then is not sent again (its debate is a fault).
        keeper = _RemoteJournals.options(
            num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(here, soft=False), max_restarts=-1,
        ).remote(str(journals_path))
        handles = _limiters(limits or {}, namespace, sweep)
        cpus = float(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call]
        # By default one runner per CPU, and no more than the debates fill.
        count = runners or min(max(1, int(cpus // max(cpus_per_runner, 0.01))), -(-len(todo) // debates_per_runner))
        calls = calls_per_runner or 4 * debates_per_runner
        pool = [
            _RemoteRunner.options(
                num_cpus=cpus_per_runner, max_concurrency=debates_per_runner + 4, max_restarts=-1,
                max_task_retries=-1, scheduling_strategy="SPREAD",
            ).remote(sweep, i, complete_factory, handles, keeper, calls)
            for i in range(count)
        ]
        try:
            _sweep(todo, pool, debates_per_runner, output_path, summary, on_result)
        finally:
            for runner in pool:
                ray.kill(runner, no_restart=True)
            _report_aside(keeper, summary)
            ray.kill(keeper, no_restart=True)
            for handle in handles.values():
                try:
                    if ray.get(handle.leave.remote(sweep)) == 0:
                        ray.kill(handle, no_restart=True)
                except ray.exceptions.RayError:
                    pass  # the limiter is gone already; its debates were counted as unfinished
    finally:
        if started:
            ray.shutdown()
    return summary


def _report_aside(keeper: Any, summary: BatchSummary) -> None:
    """Warns of each journal the keeper set aside since last asked."""
    try:
        aside = ray.get(keeper.taken_aside.remote())
    except ray.exceptions.RayError:
        return  # a keeper that died took its list with it; the .bad files are still there
    for path, why in aside:
        summary.set_aside.append(path)
        warnings.warn(why, RuntimeWarning, stacklevel=3)


def _sweep(
    todo: list[tuple[str, str, str]], pool: list[Any], width: int, output: Path,
    summary: BatchSummary, on_result: Optional[Callable[[str, str], None]],
) -> None:
    queue = deque(todo)
    load = [0] * len(pool)
    running: dict[Any, tuple[int, tuple[str, str, str]]] = {}
    attempts: dict[str, int] = {}

    def submit() -> None:
        while queue:
            r = min(range(len(pool)), key=load.__getitem__)
            if load[r] >= width:
                return
            item = queue.popleft()
            running[pool[r].debate.remote(*item)] = (r, item)
            load[r] += 1

    def unfinished(id: str, why: str) -> None:
        summary.unfinished += 1
        summary.faults[id] = why

    with open(output, "a", encoding="utf-8") as out:
        submit()
        while running:
            ready, _ = ray.wait(list(running), num_returns=1)
            for ref in ready:
                r, item = running.pop(ref)
                load[r] -= 1
                try:
                    line, kind, node = ray.get(ref)
                except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError, StaleLease) as e:
                    # Ray retries on a restarted runner by itself; this is what it gave up on.
                    attempts[item[0]] = attempts.get(item[0], 0) + 1
                    if attempts[item[0]] > 3:
                        unfinished(item[0], _fault(e))
                    else:
                        queue.append(item)
                    continue
                except Exception as e:  # noqa: BLE001 - not the debate's own: no line, a rerun resumes it
                    unfinished(item[0], _fault(e))
                    continue
                if kind == "fault":
                    unfinished(item[0], line)
                    continue
                out.write(line + "\n")
                out.flush()
                os.fsync(out.fileno())
                if kind in ("completed", "consensus"):
                    summary.full += 1
                elif kind == "error":
                    summary.errors += 1
                else:
                    summary.partial += 1
                summary.nodes[node] = summary.nodes.get(node, 0) + 1
                if on_result is not None:
                    on_result(item[0], kind)
            submit()
