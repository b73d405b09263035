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
import time
import urllib.parse
import uuid
from collections import deque
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, TypedDict, Union, cast

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ._drive import AsyncComplete, _drain, _input
from ._engine import AgonError, Session, Spec, spec_text, validate_spec
from .types import ModelRequest, Outcome, Variant

__all__ = ["BatchSummary", "Limit", "Limits", "StaleLease", "result_line", "run_batch", "specs_from_questions"]

CompleteFactory = Callable[[], AsyncComplete]


class Limit(TypedDict, total=False):
    """One provider's global limits: requests ``in_flight`` at once, requests started ``per_minute``."""

    in_flight: int
    per_minute: int


@dataclass
class BatchSummary:
    """How a sweep went: debates ``full`` (completed or consensus), ``partial``
    (degraded, no quorum, judge failed, cost limit), ``errors`` (could not run;
    their lines say why), ``skipped`` (already in the results), and how many
    debates each Ray node ran."""

    full: int = 0
    partial: int = 0
    errors: int = 0
    skipped: int = 0
    nodes: dict[str, int] = field(default_factory=dict)


class StaleLease(Exception):
    """A lease asked for by a runner that has since been restarted."""


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


class Limits:
    """In-flight and per-minute limits for one provider, as the limiter actor keeps them.

    Leases are granted first come, first served. ``per_minute`` spaces request
    starts evenly (60 s / N apart), as ``agon batch --rate`` does. Each lease
    belongs to a runner (``owner``) in one incarnation (``token``): when a runner
    restarts, :meth:`register` frees what its dead incarnation held.
    """

    def __init__(
        self, in_flight: Optional[int] = None, per_minute: Optional[int] = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        for name, value in (("in_flight", in_flight), ("per_minute", per_minute)):
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                raise ValueError(f"{name} must be a whole number of at least 1, not {value!r}")
        self.in_flight, self.per_minute = in_flight, per_minute
        self.spacing = 60.0 / per_minute if per_minute else 0.0
        self.clock = clock
        self.leases: dict[int, tuple[int, str]] = {}
        self.current: dict[int, str] = {}
        self.waiters: deque[tuple[asyncio.Future[int], int, str]] = deque()
        self.next_start = 0.0
        self.next_lease = 0
        self.timer: Optional[asyncio.TimerHandle] = None
        self.most_in_flight = 0

    def config(self) -> tuple[Optional[int], Optional[int]]:
        return self.in_flight, self.per_minute

    async def acquire(self, owner: int, token: str) -> int:
        """Wait for a place; returns the lease to :meth:`release`."""
        if self.current.get(owner, token) != token:
            raise StaleLease(f"runner {owner} was restarted")
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.waiters.append((future, owner, token))
        self._grant()
        return await future

    def release(self, lease: int) -> None:
        if self.leases.pop(lease, None) is not None:
            self._grant()

    def register(self, owner: int, token: str) -> None:
        """A runner (re)started: leases of its earlier incarnations are freed."""
        self.current[owner] = token
        for lease, (o, t) in list(self.leases.items()):
            if o == owner and t != token:
                del self.leases[lease]
        self._grant()

    def _grant(self) -> None:
        while self.waiters:
            future, owner, token = self.waiters[0]
            if future.done():  # its caller went away
                self.waiters.popleft()
                continue
            if self.current.get(owner, token) != token:
                self.waiters.popleft()
                future.set_exception(StaleLease(f"runner {owner} was restarted"))
                continue
            if self.in_flight is not None and len(self.leases) >= self.in_flight:
                return
            now = self.clock()
            if self.spacing and now < self.next_start:
                if self.timer is None:
                    self.timer = asyncio.get_running_loop().call_later(self.next_start - now, self._wake)
                return
            self.waiters.popleft()
            self.next_start = max(now, self.next_start) + self.spacing if self.spacing else now
            lease, self.next_lease = self.next_lease, self.next_lease + 1
            self.leases[lease] = (owner, token)
            self.most_in_flight = max(self.most_in_flight, len(self.leases))
            future.set_result(lease)

    def _wake(self) -> None:
        self.timer = None
        self._grant()


class _Limiter:
    """One provider's :class:`Limits`, shared by every runner of every sweep in the namespace."""

    def __init__(self, in_flight: Optional[int], per_minute: Optional[int]) -> None:
        self.limits = Limits(in_flight, per_minute)
        self.users = 0

    async def config(self) -> tuple[Optional[int], Optional[int]]:
        return self.limits.config()

    async def acquire(self, owner: int, token: str) -> int:
        return await self.limits.acquire(owner, token)

    async def release(self, lease: int) -> None:
        self.limits.release(lease)

    async def register(self, owner: int, token: str) -> None:
        self.limits.register(owner, token)

    async def most_in_flight(self) -> int:
        return self.limits.most_in_flight

    async def join(self) -> None:
        self.users += 1

    async def leave(self) -> int:
        """One sweep is done with this limiter; returns how many still use it."""
        self.users -= 1
        return self.users


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

    def _path(self, id: str) -> Path:
        return self.folder / _journal_name(id)

    def read(self, id: str) -> str:
        """The journal so far ("" if none); a torn last line is set aside and cut."""
        path = self._path(id)
        if not path.exists():
            return ""
        text = path.read_text(encoding="utf-8")
        keep = text[: text.rfind("\n") + 1]
        if keep != text:
            with open(f"{path}.torn", "a", encoding="utf-8") as aside:
                aside.write(text[len(keep):] + "\n")
            path.write_text(keep, encoding="utf-8")
        return keep

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


class _Runner:
    """Drives many debates at once on one event loop; the engine is only touched from it."""

    def __init__(
        self, index: int, complete_factory: CompleteFactory, limiters: dict[str, Any],
        journals: Any, calls: int,
    ) -> None:
        self.index, self.token = index, uuid.uuid4().hex
        self.complete = complete_factory()
        self.is_async = inspect.iscoroutinefunction(self.complete) or inspect.iscoroutinefunction(
            getattr(self.complete, "__call__", None))
        self.pool = ThreadPoolExecutor(max_workers=calls, thread_name_prefix="agon-call")
        self.limiters, self.journals = limiters, journals
        self.node = ray.get_runtime_context().get_node_id()
        # Frees whatever a dead incarnation of this runner held.
        ray.get([limiter.register.remote(index, self.token) for limiter in limiters.values()])

    async def where(self) -> tuple[str, int]:
        return self.node, os.getpid()

    async def debate(self, id: str, spec: str, question: str) -> tuple[str, str, str]:
        """One debate to its end: ``(results line, outcome kind or "error", node id)``."""
        try:
            session = await self._session(id, spec)
        except AgonError as e:
            return _error_line(id, question, str(e)), "error", self.node
        try:
            outcome = await self._drive(id, session)
            line = result_line(id, question, outcome, session.transcript_json())
            return line, outcome["kind"], self.node
        except StaleLease:
            raise  # this runner was replaced: the debate goes on from its journal elsewhere
        except Exception as e:  # noqa: BLE001 - a debate that fails fails alone, as in agon batch
            return _error_line(id, question, f"{type(e).__name__}: {e}" if not isinstance(e, AgonError) else str(e)), \
                "error", self.node
        finally:
            session.close()

    async def _session(self, id: str, spec: str) -> Session:
        journal = await self.journals.read.remote(id)
        if journal:
            try:
                session = Session.from_journal(journal)
                if json.loads(session.spec_json()) == json.loads(validate_spec(spec)):
                    return session
                session.close()
            except AgonError:
                pass  # unreadable, or another spec's: kept aside by start() below
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
                    raise RuntimeError("the engine is idle with no request outstanding")
                done, in_flight = await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    line = session.handle(task.result())
                    await self.journals.append.remote(id, line)
        finally:
            for task in in_flight:
                task.cancel()

    async def _call(self, request: ModelRequest) -> Variant:
        limiter = self.limiters.get(request["model"].split("/", 1)[0])
        # A StaleLease (this runner was replaced) propagates: the debate stops unjournaled.
        lease = await limiter.acquire.remote(self.index, self.token) if limiter is not None else None
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
                limiter.release.remote(lease)


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


def _limiters(limits: Mapping[str, Limit], namespace: str) -> dict[str, Any]:
    handles = {}
    for provider, limit in limits.items():
        unknown = set(limit) - {"in_flight", "per_minute"}
        if unknown:
            raise ValueError(f"limits[{provider!r}]: unknown field {sorted(unknown)[0]!r} (in_flight, per_minute)")
        wanted = (limit.get("in_flight"), limit.get("per_minute"))
        Limits(*wanted)  # checks the values, naming the field
        handle = _RemoteLimiter.options(
            name=f"agon-limit-{provider}", namespace=namespace, get_if_exists=True, num_cpus=0,
            max_concurrency=100_000,
        ).remote(*wanted)
        held = tuple(ray.get(handle.config.remote()))
        if held != wanted:
            raise ValueError(
                f"limits[{provider!r}]: the cluster already limits {provider} to in_flight={held[0]}, "
                f"per_minute={held[1]} (another sweep in this namespace is running); ask for the same limits"
            )
        ray.get(handle.join.remote())
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
    """
    for name, value in (("debates_per_runner", debates_per_runner), ("runners", runners),
                        ("calls_per_runner", calls_per_runner)):
        if value is not None and (not isinstance(value, int) or value < 1):
            raise ValueError(f"{name} must be a whole number of at least 1, not {value!r}")
    items = _items(specs)
    output_path = Path(output)
    if not output_path.parent.is_dir():
        raise ValueError(f"output: the folder {output_path.parent} does not exist")
    done = _finished_ids(output_path)
    todo = [item for item in items if item[0] not in done]
    summary = BatchSummary(skipped=len(items) - len(todo))
    if not todo:
        return summary
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, namespace=namespace, log_to_driver=False)
    try:
        here = ray.get_runtime_context().get_node_id()
        keeper = _RemoteJournals.options(
            num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(here, soft=False)
        ).remote(str(Path(journals).resolve()))
        handles = _limiters(limits or {}, namespace)
        cpus = float(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call]
        # By default one runner per CPU, and no more than the debates fill.
        count = runners or min(max(1, int(cpus // max(cpus_per_runner, 0.01))), -(-len(todo) // debates_per_runner))
        calls = calls_per_runner or 4 * debates_per_runner
        pool = [
            _RemoteRunner.options(
                num_cpus=cpus_per_runner, max_concurrency=debates_per_runner + 4, max_restarts=-1,
                max_task_retries=-1, scheduling_strategy="SPREAD",
            ).remote(i, complete_factory, handles, keeper, calls)
            for i in range(count)
        ]
        try:
            _sweep(todo, pool, debates_per_runner, output_path, summary, on_result)
        finally:
            for runner in pool:
                ray.kill(runner, no_restart=True)
            ray.kill(keeper, no_restart=True)
            for handle in handles.values():
                if ray.get(handle.leave.remote()) == 0:
                    ray.kill(handle, no_restart=True)
    finally:
        if started:
            ray.shutdown()
    return summary


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

    with open(output, "a", encoding="utf-8") as out:
        submit()
        while running:
            ready, _ = ray.wait(list(running), num_returns=1)
            for ref in ready:
                r, item = running.pop(ref)
                load[r] -= 1
                try:
                    line, kind, node = ray.get(ref)
                except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError, StaleLease):
                    # Ray retries on a restarted runner by itself; this is what it gave up on.
                    attempts[item[0]] = attempts.get(item[0], 0) + 1
                    if attempts[item[0]] > 3:
                        raise
                    queue.append(item)
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
