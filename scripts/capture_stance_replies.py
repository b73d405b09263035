#!/usr/bin/env python3
"""Capture real replies for the stance corpus (tests/stance/corpus.jsonl).

Runs short debates through `agon run` against a real model (the local
SmolLM2 by default: source scripts/local-model.sh and call start_local_model
first, which exports OPENAI_BASE_URL), and prints every counted deliberation
reply as a corpus line with `"label": "?"`. The labels are then written by
hand, by reading each reply: a reply is only labelled `agrees` when its
author, in its own words, holds the shared position without limit or
condition.

    python3 scripts/capture_stance_replies.py --agon target/debug/agon > captured.jsonl
"""

import argparse
import json
import subprocess
import sys

QUESTIONS = [
    "Should a software team write automated tests before shipping a feature?",
    "Is it acceptable to store user passwords in plain text?",
    "Should a small startup adopt a four-day work week?",
    "Should a city replace its old buses with electric ones?",
    "Should a company let employees work from home two days a week?",
    "Is it a good idea to back up a production database every day?",
    "Should a school ban phones in classrooms?",
    "Should a five-person startup write its backend in Rust or in Go?",
]

# (protocol, consensus mode): every counted reply of these is read for agreement.
# consensus-check counts every seat, so it yields the most replies per call.
RUNS = {
    "all": [
        ("consensus-check", "declared"),
        ("consensus-check", "read"),
        ("rotating-challenger", "declared"),
        ("rotating-challenger", "read"),
    ],
    "consensus-check": [("consensus-check", "declared"), ("consensus-check", "read")],
}


def debate(agon, question, protocol, mode, model, rounds, max_tokens):
    # No judge: only the debaters' replies are read, and the synthesis would cost a call.
    args = [
        agon, "run", question,
        "--protocol", protocol, "--consensus", mode,
        "--panel", ",".join([model] * 3), "--no-judge",
        "--rounds", str(rounds), "--max-tokens", str(max_tokens),
        "--format", "json", "--no-save", "--quiet", "--quality-gate", "off",
    ]
    done = subprocess.run(args, capture_output=True, text=True, timeout=900)
    if done.returncode not in (0, 3):
        print(f"agon exited {done.returncode}: {done.stderr.strip()}", file=sys.stderr)
        return None
    return json.loads(done.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agon", default="target/debug/agon")
    parser.add_argument("--model", default="openai/smollm2")
    parser.add_argument("--source", default="smollm2-135m", help="the corpus `source` of every captured reply")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=150)
    parser.add_argument("--runs", choices=sorted(RUNS), default="all", help="which protocols and modes to run")
    parser.add_argument("--first-id", type=int, default=1, help="number the captured replies from here")
    options = parser.parse_args()
    n = options.first_id - 1
    for question in QUESTIONS:
        for protocol, mode in RUNS[options.runs]:
            transcript = debate(options.agon, question, protocol, mode, options.model, options.rounds, options.max_tokens)
            if transcript is None:
                continue
            for turn in transcript["turns"]:
                if turn["phase"] != "deliberation" or turn["challenger"]:
                    continue
                n += 1
                print(json.dumps({
                    "id": f"real-{options.source}-{n:03d}",
                    "class": "real",
                    "label": "?",
                    "mode": mode,
                    "source": options.source,
                    "text": turn["text"],
                }, ensure_ascii=False), flush=True)
    print(f"{n - options.first_id + 1} replies captured", file=sys.stderr)


if __name__ == "__main__":
    main()
