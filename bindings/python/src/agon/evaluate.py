"""Score an evaluation as ``agon eval`` does: the dataset (JSONL) and each arm's batch
results file (``agon batch``'s, or agon.ray's) go to the engine, which reads every arm's
answer with one reader and writes the report. No call is made: the same files give the same
report, byte for byte, in every host.

    from agon import evaluate
    report = evaluate.report("examples/eval/arithmetic-50.jsonl",
                             {"single": "out/single.jsonl", "vote": "out/vote.jsonl"},
                             output="out")
    print(report["markdown"])
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional, Union, cast

from ._engine import _Instance, _lift, _text

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
