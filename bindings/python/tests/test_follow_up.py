"""A follow-up from Python (issue 37): ``build_spec`` takes a finished transcript as
``follows``, and the engine — not this package — quotes the parent's synthesis in every
prompt and names the parent in the child's transcript."""

from typing import Any

import pytest

import agon

REQUEST = {"protocol": "round-robin", "models": ["openai/a", "openai/b"], "rounds": 1}


def test_a_follow_up_quotes_its_parents_synthesis_and_names_it() -> None:
    parent = agon.run_debate(agon.build_spec({**REQUEST, "question": "Tabs or spaces?"}), lambda _: "Tabs win.")
    spec = agon.build_spec({**REQUEST, "question": "How wide?", "follows": {"session": "s-1", "transcript": parent}})
    prompts: list[str] = []

    def complete(request: Any) -> str:
        prompts.append("\n".join(m["content"] for m in request["messages"]))
        return "Four."

    child = agon.run_debate(spec, complete)
    assert child["parent"]["session"] == "s-1"
    assert prompts
    for prompt in prompts:
        assert "EARLIER DEBATE (session s-1;" in prompt
        assert "The judge's synthesis:\n> Tabs win." in prompt


def test_an_unfinished_parent_is_refused_by_name() -> None:
    with pytest.raises(agon.AgonError, match=r"follows\.transcript\.outcome: .*agon resume s-1"):
        agon.build_spec(
            {**REQUEST, "question": "How wide?",
             "follows": {"session": "s-1", "transcript": {"question": "Tabs?", "outcome": None}}}
        )


def test_a_follow_up_reads_its_parents_files_held_to_their_hashes() -> None:
    diff = agon.context_file("change.diff", b"+fn pay() { retry(0) }\n")
    parent_spec = agon.build_spec({**REQUEST, "question": "Review this change", "files": [diff]})
    parent = agon.run_debate(parent_spec, lambda _: "Looks fine.")
    follows = {"session": "s-1", "transcript": parent, "files": parent_spec["files"]}
    prompts: list[str] = []

    def complete(request: Any) -> str:
        prompts.append("\n".join(m["content"] for m in request["messages"]))
        return "Yes."

    child = agon.run_debate(agon.build_spec({**REQUEST, "question": "Is the retry safe?", "follows": follows}), complete)
    assert child["files"] == parent["files"]
    assert prompts and all("> +fn pay() { retry(0) }" in p for p in prompts)
    altered = {**follows, "files": [agon.context_file("change.diff", b"+fn pay() { retry(3) }\n")]}
    with pytest.raises(agon.AgonError, match=r"follows\.files\[0\]: change\.diff: not the file the earlier debate read"):
        agon.build_spec({**REQUEST, "question": "Is the retry safe?", "follows": altered})
