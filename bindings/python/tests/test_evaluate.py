"""agon.evaluate against the CLI: the same dataset and the same results files give the same
report, items and picture, byte for byte, from ``agon eval --rescore`` and from Python (both
ask the engine). The results files are written here by Python debates of the vote
document, with scripted replies."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from conftest import ROOT, unavailable

import agon
from agon import evaluate
from agon._engine import _Instance

AGON = Path(os.environ.get("AGON_BIN", ROOT / "target" / "debug" / "agon"))

DATASET = [
    {"id": "q1", "question": "What is 1+1?", "answer": "2", "kind": "number"},
    {"id": "q2", "question": "Which is a fruit?", "answer": "B", "kind": "choice", "choices": ["stone", "apple"]},
    {"id": "q3", "question": "Is 7 prime?", "answer": "yes", "kind": "yes-no"},
]


def results(seats: int, replies: dict[str, list[str]]) -> str:
    """One results line per item: a vote-document debate of ``seats`` seats; seat ``s{i}``
    answers item ``n`` with ``replies[item id][i]``."""
    lines = []
    for item in DATASET:
        question = item["question"] + "".join(
            f"\n({chr(65 + i)}) {c}" for i, c in enumerate(item.get("choices", []))
        )
        spec = {
            "question": question,
            "panel": [{"id": f"s{i}", "model": f"openai/m{i}"} for i in range(seats)],
            "protocol": {"name": "vote", "document": evaluate.vote_document()},
            "answer": {"kind": item["kind"], **({"choices": item["choices"]} if "choices" in item else {})},
        }
        said = replies[item["id"]]
        transcript = agon.run_debate(spec, lambda r: said[int(r["seat"][1:])])
        line = _Instance().call("batch-result-line", item["id"], question, json.dumps(transcript))
        lines.append(line + "\n")
    return "".join(lines)


def test_python_scores_as_the_cli_does(tmp_path: Path) -> None:
    if not AGON.exists():
        unavailable(f"{AGON} is not built (scripts/test-sdk.sh builds it)")
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(i) + "\n" for i in DATASET) + "not an item\n", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / "single.jsonl").write_text(
        results(1, {"q1": ["ANSWER: 2"], "q2": ["ANSWER: (a)"], "q3": ["Hard to say."]}), encoding="utf-8"
    )
    (out / "vote.jsonl").write_text(
        results(3, {"q1": ["ANSWER: 2", "ANSWER: 2", "ANSWER: 3"], "q2": ["ANSWER: apple", "ANSWER: B", "ANSWER: A"],
                    "q3": ["ANSWER: yes", "ANSWER: Yes.", "ANSWER: no"]}),
        encoding="utf-8",
    )
    mine = evaluate.report(data, {"single": out / "single.jsonl", "vote": out / "vote.jsonl"})
    assert "| single | 1/3 | 33.3 % |" in mine["markdown"], mine["markdown"]
    assert "| vote | 3/3 | 100.0 % |" in mine["markdown"], mine["markdown"]
    assert "line 4" in mine["markdown"]
    cli = subprocess.run(
        [str(AGON), "eval", str(data), "--output", str(out), "--arm", "single", "--arm", "vote", "--rescore"],
        capture_output=True, text=True, check=False,
    )
    assert cli.returncode == 0, cli.stderr
    # The CLI scores agon's own form of the dataset and passes the lines it
    # skipped in reading, so its report lists them as the engine's report of
    # the raw file does.
    assert "- line 4: expected ident at line 1 column 2; skipped" in mine["markdown"], mine["markdown"]
    assert (out / "report.md").read_text(encoding="utf-8") == mine["markdown"]
    assert (out / "items.jsonl").read_text(encoding="utf-8") == mine["items"]
    assert [p["file"] for p in mine["pictures"]] == ["accuracy.svg", "cost.svg"]
    for picture in mine["pictures"]:
        assert (out / picture["file"]).read_text(encoding="utf-8") == picture["svg"]


def test_run_asks_every_arm_the_same_items_and_continues_where_it_stopped(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(i) + "\n" for i in DATASET), encoding="utf-8")
    vote = {"protocol": {"name": "vote", "document": evaluate.vote_document()}}
    arms = {
        "single": dict(vote, panel=[{"id": "a", "model": "openai/a"}]),
        "vote": dict(vote, panel=[{"id": s, "model": f"openai/{s}"} for s in ("a", "b", "c")]),
    }
    asked: list[tuple[str, str]] = []
    right = {"What is 1+1?": "ANSWER: 2", "Which is a fruit?": "ANSWER: B", "Is 7 prime?": "ANSWER: yes"}

    def complete(r: dict) -> str:  # type: ignore[type-arg]
        user = r["messages"][-1]["content"]
        question = next(q for q in right if q in user)
        asked.append((r["seat"], question))
        # The closing line is the turn's own instruction: in the user message, after the shared head.
        assert "ANSWER:" in user and "ANSWER:" not in r["messages"][0]["content"]
        # Seat c is wrong on everything: the vote still has a majority.
        return "ANSWER: 999" if r["seat"] == "c" else right[question]

    first = evaluate.run(data, arms, complete, output=tmp_path / "out")
    assert "| single | 3/3 | 100.0 % |" in first["markdown"], first["markdown"]
    assert "| vote | 3/3 | 100.0 % |" in first["markdown"], first["markdown"]
    assert len(asked) == 3 + 9
    # Run again: every debate is in the results already, so nothing is asked.
    again = evaluate.run(data, arms, complete, output=tmp_path / "out")
    assert len(asked) == 12 and again == first


def test_run_says_its_worst_case_first_and_refuses_one_above_max_cost(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(i) + "\n" for i in DATASET), encoding="utf-8")
    # $1 per million tokens in and out: a debate's bound is its tokens in micro-dollars.
    price = {"input": 1.0, "output": 1.0}
    arm = {"protocol": {"name": "vote", "document": evaluate.vote_document()},
           "panel": [{"id": s, "model": f"openai/{s}"} for s in ("a", "b")], "prices": {"openai/a": price, "openai/b": price}}
    asked: list[str] = []

    def complete(r: dict) -> str:  # type: ignore[type-arg]
        asked.append(r["seat"])
        return "ANSWER: 2"

    bound = evaluate.worst_case(data, {"vote": arm}, output=tmp_path / "out")
    each = [agon.estimate(spec) for _, spec in evaluate.specs(data, arm)]
    assert bound["debates"] == 3 and bound["calls"] == sum(e["calls"] for e in each) == 6
    # At $1 per million both ways, a debate's bound in micro-dollars is its tokens; the
    # evaluation's bound covers every item's, as three of the dearest.
    dearest = max(e["prompt_tokens"] + e["completion_tokens"] for e in each)
    assert bound["cost_micro_usd"] == 3 * dearest >= sum(e["cost_micro_usd"] for e in each)
    try:
        evaluate.run(data, {"vote": arm}, complete, output=tmp_path / "out", max_cost=bound["cost_micro_usd"] / 2e6)
        raise AssertionError("a worst case above max_cost ran")
    except ValueError as e:
        assert str(e).startswith("max_cost: the evaluation's worst case"), e
    assert asked == [], "refused before any call"
    assert "evaluation at worst: 3 debate(s) still to run, 6 calls" in capsys.readouterr().err
    evaluate.run(data, {"vote": arm}, complete, output=tmp_path / "out", max_cost=1.0)
    assert len(asked) == 6
    assert evaluate.worst_case(data, {"vote": arm}, output=tmp_path / "out")["debates"] == 0, "nothing left to run"
