"""The Python SDK's engine overhead: the bench's 5-seat, 5-round debate replayed
from scripted replies on the raw Session, with the golden replay rule, draining
with `poll_all` (one call per drain) as the SDK's drive loop does.

    python bench/sdk/debate.py SPEC.json SCRIPT.json RUNS   → {"median_ms": …, "runs": …}
"""

import json
import sys
import time

from agon import Session


def same_phase(a: str, b: str) -> bool:
    return a.replace("_", "-") == b.replace("_", "-")


def play(spec: str, script: list[dict]) -> None:
    used = [False] * len(script)
    outstanding: list[dict] = []
    with Session.create(spec) as session:
        while True:
            # Drain to idle or done in one call, as the SDK's own drive loop does.
            outputs = session.poll_all()
            outstanding += [o.value for o in outputs if o.tag == "request"]
            if outputs[-1].tag == "done":
                return
            pick = next(
                (
                    (i, k)
                    for i, e in enumerate(script)
                    if not used[i]
                    for k, r in enumerate(outstanding)
                    if r["seat"] == e["seat"] and same_phase(str(r["phase"]), e["phase"]) and r["round"] == e["round"]
                ),
                None,
            )
            if pick is None:
                raise RuntimeError("the script does not cover the debate")
            i, k = pick
            used[i] = True
            request = outstanding.pop(k)
            session.reply(request["id"], script[i].get("text") or "")


def main() -> None:
    spec_path, script_path, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 10
    spec = open(spec_path, encoding="utf-8").read()
    script = json.load(open(script_path, encoding="utf-8"))
    play(spec, script)  # warm-up: the first run pays for compiling the component
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        play(spec, script)
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    print(json.dumps({"median_ms": times[len(times) // 2], "runs": runs}))


if __name__ == "__main__":
    main()
