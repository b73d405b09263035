"""The driver: ``run_batch`` places the debates on the runners, writes each finished line,
and counts how the sweep went."""

from __future__ import annotations

import json
import os
import uuid
import warnings
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Union

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from .._engine import Spec, spec_text
from .drive import CompleteFactory, _fault, _RemoteRunner
from .journals import _RemoteJournals
from .limits import Limit, StaleLease, limiters
from .locks import _Lock
from .results import finished_ids


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
    keep_errors: bool = False,
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

    A rerun skips the debates already in ``output``; an ``error`` line (a debate that could not
    run) moves to ``<output>.errors`` and its debate runs again, unless ``keep_errors``, as
    ``agon batch --keep-errors``.

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
                           debates_per_runner, calls_per_runner, cpus_per_runner, address, namespace, on_result,
                           keep_errors)
    finally:
        for lock in reversed(locks):
            lock.release()


def _run_locked(
    items: list[tuple[str, str, str]], complete_factory: CompleteFactory, output_path: Path, journals_path: Path,
    limits: Optional[Mapping[str, Limit]], runners: Optional[int], debates_per_runner: int,
    calls_per_runner: Optional[int], cpus_per_runner: float, address: Optional[str], namespace: str,
    on_result: Optional[Callable[[str, str], None]], keep_errors: bool,
) -> BatchSummary:
    done = finished_ids(output_path, keep_errors)
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
        handles = limiters(limits or {}, namespace, sweep)
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
