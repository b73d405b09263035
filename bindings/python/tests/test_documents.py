"""A protocol of one's own through the Python SDK: a spec carrying a protocol
document passes through unchanged, and the guide's red/blue example
(tests/golden/red-blue-document, built from examples/protocols/red-blue.toml)
runs from its golden-style scripted replies to the golden transcript."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from conftest import read

import agon

CASE = "red-blue-document"


def test_a_spec_with_a_protocol_document_passes_through_unchanged() -> None:
    spec = json.loads(read(CASE, "spec.json"))
    normalized = json.loads(agon.validate_spec(spec))
    assert normalized["protocol"] == spec["protocol"]
    # build_spec takes the document as the option `document`, as every host does.
    built = agon.build_spec({"question": spec["question"], "protocol": "red-blue", "models": ["openai/m"],
                             "options": {"document": spec["protocol"]["document"]}})
    assert built["protocol"]["document"] == spec["protocol"]["document"]
    assert len(built["panel"]) == 3, "one model plays every seat of a fixed-size document"
    # A mistake is named by its JSON path.
    broken = copy.deepcopy(spec)
    broken["protocol"]["document"]["phases"][1]["turns"][0]["prompt"]["user"] = "{question}{histroy}"
    with pytest.raises(agon.AgonError) as raised:
        agon.validate_spec(broken)
    assert raised.value.detail["field"] == "protocol.document.phases[1].turns[0].prompt.user"


def test_check_document_alone_and_the_built_in_documents() -> None:
    document = json.loads(read(CASE, "spec.json"))["protocol"]["document"]
    assert json.loads(agon.check_document(document))["quorum"] == "spec", "defaults are written out"
    broken = copy.deepcopy(document)
    broken["phases"][0]["turns"][0]["prompt"]["system"] = "{persona}{histroy}"
    with pytest.raises(agon.AgonError) as raised:
        agon.check_document(broken)
    assert raised.value.detail["field"] == "protocol.phases[0].turns[0].prompt.system"
    info = agon.document_info(document)
    assert (info["name"], info["min_seats"], info["max_seats"], info["max_rounds"]) == ("red-blue", 3, 3, 3)
    # Every document takes stop_when_unchanged; red-blue nothing more.
    assert [o["name"] for o in info["options"]] == ["stop_when_unchanged"], "no adversary, no consensus stop"
    assert not info["reads_agreement"], "no consensus stop"
    ranked = dict(agon.protocol_documents())["ranked"]
    listed = next(p for p in agon.protocols() if p["name"] == "ranked")
    assert agon.document_info(ranked) == listed, "a built-in document reads as the catalog lists it"
    names = [name for name, text in agon.protocol_documents() if agon.check_document(text)]
    assert "round-robin" in names and "ranked" in names and "priority-vote" not in names, names


def test_the_red_blue_example_runs_from_its_scripted_replies() -> None:
    script = json.loads(read(CASE, "script.json"))
    used = [False] * len(script)

    def complete(request: dict[str, Any]) -> str:
        i = next(k for k, e in enumerate(script) if not used[k] and e["seat"] == request["seat"]
                 and e["phase"] == request["phase"] and e["round"] == request["round"])
        used[i] = True
        return str(script[i]["text"])

    transcript = agon.run_debate(read(CASE, "spec.json"), complete)
    assert transcript == json.loads(read(CASE, "transcript.json"))
    # Worked out from the script: no red flaw is fatal in round 2, so the stop ends it there.
    assert transcript["outcome"]["rounds_run"] == 2
    assert transcript["results"]["verdict"] == {"kind": "document", "data": "Ship after a rollback drill."}
    assert transcript["results"]["critique"]["kind"] == "table"
    assert [c["fields"]["fatal"] for c in transcript["results"]["critique"]["data"]] == [True, True, False, False]
