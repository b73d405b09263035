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
  flushed at once, written by the engine as ``agon batch`` has it write them
  (the same bytes for the same spec and replies). A rerun mends ``output`` as
  the engine reads it, as ``agon batch`` does (a torn last line set aside,
  ``error`` lines moved to ``<output>.errors`` and run again unless
  ``keep_errors``), skips the ids finished, and resumes unfinished debates
  from their journals: an answered call is never asked again. A runner that dies (its process killed, its node lost) is
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

The modules, one job each: ``results`` (the results file: lines and mending,
both the engine's), ``limits`` (the limiter actors), ``journals`` (the keeper
actor), ``drive`` (the runners' drive loop), ``locks`` and ``sweep``
(``run_batch``, the driver).

    from agon.ray import run_batch, specs_from_questions
    import agon
    specs = specs_from_questions(template, [{"id": "q1", "question": "Tabs or spaces?"}])
    run_batch(specs, lambda: agon.openai(url, key, stream=False), output="results.jsonl",
              journals="journals", limits={"openai": {"in_flight": 50, "per_minute": 3000}})
"""

from .limits import HEARTBEAT_SECONDS, LEASE_SECONDS, Limit, Limits, StaleLease
from .locks import OutputLocked
from .results import result_line
from .sweep import BatchSummary, run_batch, specs_from_questions

__all__ = ["BatchSummary", "Limit", "Limits", "OutputLocked", "StaleLease", "result_line", "run_batch",
           "specs_from_questions"]
