#!/usr/bin/env python3
"""Turn LLM-Agora's committed GSM8K debate outputs into agon's evaluation files.

LLM-Agora (gauss5930/LLM-Agora) committed `GSM8K/gsm_result.json`: 100 GSM8K items, each
with three open models' responses over three turns (a first answer, then two rounds of
revision after a ChatGPT summary of the others' answers). This script writes, beside itself:

- `gsm8k.jsonl`: the 100 items as an `agon eval` dataset (the gold is the number after `####`);
- `debate.jsonl`: one `agon batch` results line per item, whose transcript holds the nine
  responses as turns (turn 1 is round 0, `blind`; turns 2 and 3 are rounds 1 and 2,
  `deliberation`), so `agon eval --rescore` scores the three-model debate by its vote;

Nothing is read but the file given (default: `gsm_result.json` in the current folder):

    python3 tests/eval/llm-agora/convert.py /path/to/gsm_result.json

The responses are copied byte for byte. The logs do not say which response stopped at the
256-token limit the authors set, so no turn is marked cut; see README.md.
"""

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODELS = ["llama", "wizardlm", "orca"]


def gold(solution: str) -> str:
    answer = solution.split("####")[-1].strip().replace(",", "")
    if not re.fullmatch(r"-?\d+(\.\d+)?", answer):
        raise SystemExit(f"not a number after ####: {answer!r}")
    return answer


def transcript(question: str, responses: dict) -> dict:
    turns = []
    for turn in range(3):
        for model in responses:
            turns.append(
                {
                    "round": turn,
                    "phase": "blind" if turn == 0 else "deliberation",
                    "speaker": model,
                    "model": model,
                    "challenger": False,
                    "text": responses[model][turn],
                }
            )
    calls = len(turns)
    return {
        "version": 1,
        "protocol": "llm-agora",
        "question": question,
        "seed": 0,
        "participants": [{"id": m, "model": m} for m in responses],
        "judge": None,
        "turns": turns,
        "synthesis": None,
        "outcome": {"kind": "completed", "reason": "replayed from LLM-Agora's log", "rounds_run": 2},
        "usage": {"total": {"calls": calls, "prompt_tokens": 0, "completion_tokens": 0}},
    }


def line(item_id: str, question: str, t: dict) -> str:
    return json.dumps(
        {"id": item_id, "outcome": "completed", "question": question, "transcript": t},
        ensure_ascii=False,
        sort_keys=True,
    )


def main() -> None:
    source = Path(sys.argv[1] if len(sys.argv) > 1 else "gsm_result.json")
    items = json.loads(source.read_text(encoding="utf-8"))
    dataset, debate = [], []
    for item in items:
        item_id = f"agora-{item['question_id']:03d}"
        question = item["question"]
        responses = item["agent_response"]
        if list(responses) != MODELS or any(len(responses[m]) != 3 for m in MODELS):
            raise SystemExit(f"{item_id}: unexpected shape")
        dataset.append(json.dumps({"id": item_id, "question": question, "answer": gold(item["answer"]), "kind": "number"}, ensure_ascii=False))
        debate.append(line(item_id, question, transcript(question, responses)))
    (HERE / "gsm8k.jsonl").write_text("\n".join(dataset) + "\n", encoding="utf-8")
    (HERE / "debate.jsonl").write_text("\n".join(debate) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
