"""Evaluate as ``agon eval`` does: every arm answers the same items (each a debate whose spec
asks for the answer line), each arm's debates go to a results file in ``agon batch``'s form,
and the engine scores the files into the report — one reader for every arm, the same bytes in
every host.

    from agon import evaluate, openai
    single = {"panel": [{"id": "a", "model": "openai/gpt-4o-mini"}],
              "protocol": {"name": "vote", "document": evaluate.vote_document()}}
    report = evaluate.run("examples/eval/arithmetic-50.jsonl", {"single": single},
                          openai("https://api.openai.com/v1"), output="out")
    print(report["markdown"])

On a Ray cluster, :func:`run_on_ray` does the same with ``agon.ray.run_batch`` for each arm,
and writes the same report from the same results.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Callable, Optional, Union, cast

from ._drive import Complete, run_debate
from ._engine import _Instance, _lift, _lower, _report, _text, estimate, spec_text

PathLike = Union[str, Path]


def vote_document() -> dict[str, Any]:
    """The protocol document of the single and vote arms: every seat answers once, blind.
    Put it in a spec as ``"protocol": {"name": "vote", "document": vote_document()}``."""
    return cast("dict[str, Any]", json.loads(_text(_report("eval-vote-document"))))


#: An arm's results: a path (scored on the seats' vote), or ``(path, "vote" | "judge")``.
ArmResults = Union[PathLike, tuple[PathLike, str]]


def report(
    dataset: PathLike,
    arms: Mapping[str, ArmResults],
    *,
    name: Optional[str] = None,
    output: Optional[PathLike] = None,
) -> dict[str, Any]:
    """The report of ``dataset`` scored by each arm's results file (``arms``: name → path, or
    name → ``(path, "judge")`` to score the judge's answer, in report order): ``markdown``,
    ``items`` (one JSON line per item per arm) and ``pictures`` (``{"file", "svg"}`` each).
    With ``output``, also written there as ``report.md``, ``items.jsonl`` and each picture's
    file, as ``agon eval`` writes them. ``name`` heads the report (default: the dataset's file
    name)."""
    dataset = Path(dataset)
    text = dataset.read_text(encoding="utf-8")
    lowered = []
    for arm, given in arms.items():
        path, scoring = given if isinstance(given, tuple) else (given, "vote")
        if scoring not in ("vote", "judge"):
            raise ValueError(f"arm {arm}: score by 'vote' or 'judge', not {scoring!r}")
        lowered.append({"name": arm, "results": Path(path).read_text(encoding="utf-8"), "scoring": scoring})
    scored: dict[str, Any] = _lift(_report("score-eval", name or dataset.name, text, _lower(lowered)))
    if output is not None:
        out = Path(output)
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.md").write_text(scored["markdown"], encoding="utf-8")
        (out / "items.jsonl").write_text(scored["items"], encoding="utf-8")
        for picture in scored["pictures"]:
            (out / picture["file"]).write_text(picture["svg"], encoding="utf-8")
    return scored


def _rows(arms: Mapping[str, Any], score: Mapping[str, str], out: Path) -> dict[str, ArmResults]:
    """The report's rows, as ``agon eval`` names them: an arm scored ``both`` is two rows."""
    rows: dict[str, ArmResults] = {}
    for arm in arms:
        by = score.get(arm, "vote")
        path = out / f"{arm}.jsonl"
        if by == "both":
            rows[f"{arm} (vote)"] = (path, "vote")
            rows[f"{arm} (judge)"] = (path, "judge")
        elif by in ("vote", "judge"):
            rows[arm] = (path, by)
        else:
            raise ValueError(f"arm {arm}: score by 'vote', 'judge' or 'both', not {by!r}")
    return rows


def items(dataset: PathLike) -> tuple[list[dict[str, Any]], list[str]]:
    """The dataset's items as every arm asks them (``id``, ``question`` with its choices
    lettered, ``context``, ``answer`` for the spec), and a message per line that is not one."""
    read: dict[str, Any] = _lift(_report("read-eval-dataset", Path(dataset).read_text(encoding="utf-8")))
    out = [
        {"id": i["id"], "question": i["question"], "context": i["context"], "answer": json.loads(i["answer_json"])}
        for i in read["items"]
    ]
    return out, list(read["skipped"])


def specs(dataset: PathLike, template: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """``(id, spec)`` for every item: ``template`` (a spec without its question) with the
    item's question, context and ``answer`` set, as ``agon eval`` sets them."""
    base = json.loads(spec_text(dict(template, question=template.get("question") or "?")))
    out = []
    for item in items(dataset)[0]:
        spec = dict(base, question=item["question"], answer=item["answer"])
        spec.pop("context", None)
        if item["context"] is not None:
            spec["context"] = item["context"]
        out.append((item["id"], spec))
    return out


def _done(path: Path) -> set[Any]:
    """The ids a results file already holds a debate for."""
    done = set()
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                finished = json.loads(line)
            except ValueError:
                continue
            if isinstance(finished, dict) and "transcript" in finished:
                done.add(finished.get("id"))
    return done


def worst_case(dataset: PathLike, arms: Mapping[str, Mapping[str, Any]], *, output: PathLike) -> dict[str, Any]:
    """What :func:`run` would spend at most, before any call, as ``agon eval`` bounds it: for
    each arm, the debates still to run times one debate's worst case asked the dataset's
    longest question. ``{"debates", "calls", "tokens", "cost_micro_usd"`` (None unless every
    model is priced), ``"unpriced", "arms": {ARM: {"debates", "each"}}}``, ``each`` being
    :func:`agon.estimate`'s answer."""
    out = Path(output)
    total: dict[str, Any] = {"debates": 0, "calls": 0, "tokens": 0, "cost_micro_usd": 0, "unpriced": [], "arms": {}}
    for arm, template in arms.items():
        done = _done(out / f"{arm}.jsonl")
        todo = [spec for id, spec in specs(dataset, template) if id not in done]
        if not todo:
            total["arms"][arm] = {"debates": 0, "each": None}
            continue
        longest = max(todo, key=lambda s: len(s["question"]) + len(s.get("context") or ""))
        each = estimate(longest)
        n = len(todo)
        total["arms"][arm] = {"debates": n, "each": each}
        total["debates"] += n
        total["calls"] += n * each["calls"]
        total["tokens"] += n * (each["prompt_tokens"] + each["completion_tokens"])
        if each["cost_micro_usd"] is None or total["cost_micro_usd"] is None:
            total["cost_micro_usd"] = None
        else:
            total["cost_micro_usd"] += n * each["cost_micro_usd"]
        total["unpriced"] = sorted(set(total["unpriced"]) | set(each["unpriced"]))
    return total


def _usd(micro: int) -> str:
    return f"${micro / 1e6:.4f}"


def _say_worst_case(dataset: PathLike, arms: Mapping[str, Mapping[str, Any]], out: Path,
                    max_cost: Optional[float]) -> None:
    """Print the evaluation's worst case to standard error before any call; with
    ``max_cost``, raise ValueError when it is above."""
    bound = worst_case(dataset, arms, output=out)
    micro = bound["cost_micro_usd"]
    cost = f", <= {_usd(micro)}" if micro is not None else f"; cost unknown: no price for {', '.join(bound['unpriced'])}"
    print(
        f"agon: evaluation at worst: {bound['debates']} debate(s) still to run, {bound['calls']} calls, "
        f"<= {bound['tokens']:,} tokens{cost}",
        file=sys.stderr,
    )
    if max_cost is not None and micro is not None and micro > round(max_cost * 1e6):
        raise ValueError(
            f"max_cost: the evaluation's worst case, {_usd(micro)}, is above ${max_cost}: run fewer items or arms, "
            "fewer rounds or a lower max_tokens, or raise max_cost"
        )
    if max_cost is not None and micro is None:
        print(f"agon: max_cost cannot count {', '.join(bound['unpriced'])} (no price)", file=sys.stderr)


def run(
    dataset: PathLike,
    arms: Mapping[str, Mapping[str, Any]],
    complete: Complete,
    *,
    output: PathLike,
    name: Optional[str] = None,
    score: Optional[Mapping[str, str]] = None,
    max_cost: Optional[float] = None,
) -> dict[str, Any]:
    """Run every arm (``arms``: name → template spec, in report order) on every item, one
    debate at a time in this process, each arm's results appended to ``output/ARM.jsonl``
    (an id already there is not run again, so a stopped run continues), then score them
    with :func:`report` into ``output``. ``score`` maps an arm to ``"vote"`` (the default),
    ``"judge"`` or ``"both"``.

    Before any call it prints the evaluation's :func:`worst_case` to standard error, and
    with ``max_cost`` (US dollars) raises ValueError when that bound is above it."""
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    rows = _rows(arms, score or {}, out)
    _say_worst_case(dataset, arms, out, max_cost)
    for arm, template in arms.items():
        path = out / f"{arm}.jsonl"
        done = _done(path)
        for id, spec in specs(dataset, template):
            if id in done:
                continue
            transcript = run_debate(spec, complete)
            line = _Instance().call("batch-result-line", id, spec["question"], json.dumps(transcript))
            with path.open("a", encoding="utf-8") as f:
                f.write(_text(line) + "\n")
    return report(dataset, rows, name=name, output=out)


def run_on_ray(
    dataset: PathLike,
    arms: Mapping[str, Mapping[str, Any]],
    complete_factory: Callable[[], Complete],
    *,
    output: PathLike,
    name: Optional[str] = None,
    score: Optional[Mapping[str, str]] = None,
    max_cost: Optional[float] = None,
    **ray_options: Any,
) -> dict[str, Any]:
    """:func:`run` on a Ray cluster: each arm is one ``agon.ray.run_batch`` (results in
    ``output/ARM.jsonl``, journals in ``output/ARM.journals``, resumed as a batch resumes),
    then the same :func:`report`; the worst case and ``max_cost`` as :func:`run` has them.
    ``ray_options`` go to ``run_batch`` (``limits``, ``runners``, ``address`` …)."""
    from .ray import run_batch

    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    rows = _rows(arms, score or {}, out)
    _say_worst_case(dataset, arms, out, max_cost)
    for arm, template in arms.items():
        run_batch(specs(dataset, template), complete_factory, output=out / f"{arm}.jsonl",
                  journals=out / f"{arm}.journals", **ray_options)
    return report(dataset, rows, name=name, output=out)
