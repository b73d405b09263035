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

On a Ray cluster, give ``evaluate.specs(dataset, template)`` to ``agon.ray.run_batch`` with
``output="out/ARM.jsonl"`` for each arm, then ``evaluate.report``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional, Union, cast

from ._drive import Complete, run_debate
from ._engine import _Instance, _lift, _text, spec_text

PathLike = Union[str, Path]


def vote_document() -> dict[str, Any]:
    """The protocol document of the single and vote arms: every seat answers once, blind.
    Put it in a spec as ``"protocol": {"name": "vote", "document": vote_document()}``."""
    return cast("dict[str, Any]", json.loads(_text(_Instance().call("eval-vote-document"))))


def report(
    dataset: PathLike,
    arms: Mapping[str, PathLike],
    *,
    name: Optional[str] = None,
    output: Optional[PathLike] = None,
) -> dict[str, str]:
    """The report of ``dataset`` scored by each arm's results file (``arms``: name → path, in
    report order): ``markdown``, ``items`` (one JSON line per item per arm) and ``svg``. With
    ``output``, also written there as ``report.md``, ``items.jsonl`` and ``accuracy.svg``, as
    ``agon eval`` writes them. ``name`` heads the report (default: the dataset's file name)."""
    dataset = Path(dataset)
    text = dataset.read_text(encoding="utf-8")
    names = list(arms)
    results = [Path(arms[n]).read_text(encoding="utf-8") for n in names]
    scored: dict[str, str] = _lift(_Instance().call("score-eval", name or dataset.name, text, names, results))
    if output is not None:
        out = Path(output)
        out.mkdir(parents=True, exist_ok=True)
        for file, key in (("report.md", "markdown"), ("items.jsonl", "items"), ("accuracy.svg", "svg")):
            (out / file).write_text(scored[key], encoding="utf-8")
    return scored


def items(dataset: PathLike) -> tuple[list[dict[str, Any]], list[str]]:
    """The dataset's items as every arm asks them (``id``, ``question`` with its choices
    lettered, ``context``, ``answer`` for the spec), and a message per line that is not one."""
    read: dict[str, Any] = _lift(_Instance().call("read-eval-dataset", Path(dataset).read_text(encoding="utf-8")))
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


def run(
    dataset: PathLike,
    arms: Mapping[str, Mapping[str, Any]],
    complete: Complete,
    *,
    output: PathLike,
    name: Optional[str] = None,
) -> dict[str, str]:
    """Run every arm (``arms``: name → template spec, in report order) on every item, one
    debate at a time in this process, each arm's results appended to ``output/ARM.jsonl``
    (an id already there is not run again, so a stopped run continues), then score them
    with :func:`report` into ``output``."""
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    for arm, template in arms.items():
        path = out / f"{arm}.jsonl"
        done = set()
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    finished = json.loads(line)
                except ValueError:
                    continue
                if isinstance(finished, dict) and "transcript" in finished:
                    done.add(finished.get("id"))
        for id, spec in specs(dataset, template):
            if id in done:
                continue
            transcript = run_debate(spec, complete)
            line = _Instance().call("batch-result-line", id, spec["question"], json.dumps(transcript))
            with path.open("a", encoding="utf-8") as f:
                f.write(_text(line) + "\n")
    return report(dataset, {arm: out / f"{arm}.jsonl" for arm in arms}, name=name, output=out)
