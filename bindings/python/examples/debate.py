import os
import agon

seat = lambda id: {"id": id, "model": "openai/smollm2"}
spec = {"question": "Walk or cycle to work?", "panel": [seat("a"), seat("b"), seat("c")], "judge": seat("judge"),
        "protocol": {"name": "rotating-challenger"}, "rounds": 1, "limits": {"max_tokens": 60, "judge_max_tokens": 120}}
complete = agon.openai(os.environ["OPENAI_BASE_URL"], os.environ.get("OPENAI_API_KEY"))
show = lambda e: e["kind"].tag == "turn-completed" and print(f"[{e['kind'].value['speaker']}] {e['kind'].value['text']}\n")
transcript = agon.run_debate(spec, complete, on_event=show)
outcome, synthesis = transcript["outcome"], transcript["synthesis"]
print(f"outcome: {outcome['kind']}\n\n{synthesis['text'] if synthesis else outcome['reason']}")
