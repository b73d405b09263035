"""agon.ray's throughput on a local two-node Ray cluster against the test server.

    python bench/ray/sweep.py DEBATES LATENCY_MS [RUNNERS DEBATES_PER_RUNNER]
      → {"debates", "calls", "wall_s", "ideal_s", "debates_per_s", ...}

Rotating-challenger, three seats and a judge, one round (as the batch bench).
The cluster and the server are those of bindings/python/tests/test_ray.py (needs
AGON_BIN and AGON_TEST_SERVER). Ideal = waves × layers × latency, where a wave is
RUNNERS × DEBATES_PER_RUNNER debates at once; the wall includes starting the
runners (a Ray worker process each, importing agon and compiling the component). Not a test: nothing asserts on time.
"""

import functools
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python" / "tests"))

import agon  # noqa: E402
from agon.ray import run_batch  # noqa: E402
from test_ray import AGON, SPEC_FLAGS, model_server, questions, ray_cluster, stats  # noqa: E402

from agon.ray import specs_from_questions  # noqa: E402


def main() -> None:
    debates, latency = int(sys.argv[1]), int(sys.argv[2])
    runners = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    width = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    qs = questions(debates)
    template = subprocess.run([str(AGON), "spec", qs[0]["question"], *SPEC_FLAGS], check=True,
                              capture_output=True, text=True, env={"OPENAI_API_KEY": "bench"}).stdout
    specs = specs_from_questions(template, qs)
    with tempfile.TemporaryDirectory() as tmp, ray_cluster(cpus=runners // 2 or 1):
        tmp_path = Path(tmp)
        with model_server(tmp_path, latency) as url:
            complete = functools.partial(agon.openai, f"{url}/v1", "bench", stream=False)
            # One debate alone: its calls and its layers.
            run_batch(specs[:1], complete, output=tmp_path / "one.jsonl", journals=tmp_path / "one", runners=1)
            warm = stats(url)["requests"]
            one = len(warm)
            # Layers counted from outside, as the batch bench does: a gap over half a latency starts one.
            arrived = sorted(r["arrived_us"] for r in warm)
            layers = 1 + sum(b - a > latency * 500 for a, b in zip(arrived, arrived[1:]))
        with model_server(tmp_path, latency) as url:
            complete = functools.partial(agon.openai, f"{url}/v1", "bench", stream=False)
            start = time.monotonic()
            summary = run_batch(specs, complete, output=tmp_path / "results.jsonl", journals=tmp_path / "journals",
                                runners=runners, debates_per_runner=width)
            wall = time.monotonic() - start
            seen = stats(url)
    arrivals = [r["arrived_us"] / 1e6 for r in seen["requests"]]
    # From the first call to the last reply: the sweep without the runners' start-up.
    calling = max(arrivals) - min(arrivals) + latency / 1000
    waves = -(-debates // (runners * width))
    print(json.dumps({
        "debates": debates, "complete": summary.full, "calls": len(seen["requests"]), "calls_per_debate": one, "layers": layers,
        "latency_ms": latency, "runners": runners, "debates_per_runner": width, "nodes": len(summary.nodes),
        "most_in_flight": seen["max_in_flight"], "wall_s": round(wall, 2), "first_call_to_last_reply_s": round(calling, 2),
        "ideal_s": round(waves * layers * latency / 1000, 2), "debates_per_s": round(debates / wall, 1),
    }))


if __name__ == "__main__":
    main()
