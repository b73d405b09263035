"""Runs llm-council-core 0.53.0's full council once, for agon's benchmarks.

The endpoint comes from its own config file (LLM_COUNCIL_CONFIG), which
scripts/bench.sh --peers writes pointing at the test server:

    python bench/peers/llm_council_core.py "question"
"""

import asyncio
import sys

from llm_council.council import run_full_council


def main() -> None:
    stage1, stage2, stage3, _ = asyncio.run(run_full_council(sys.argv[1], bypass_cache=True))
    print(f"{len(stage1)} answers, {len(stage2)} reviews, synthesis: {bool(stage3)}")


if __name__ == "__main__":
    main()
