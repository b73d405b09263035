"""Every golden case, replayed through the component on wasmtime, byte for byte."""

from __future__ import annotations

import asyncio
import json

import pytest
from conftest import find_entry, golden_cases, load_script, read, replay, replay_outputs, script_input

import agon
from agon import AgonError, Session, Variant


@pytest.mark.parametrize("case", golden_cases())
def test_golden_case_replays_byte_for_byte(case: str) -> None:
    session, events, journal = replay(read(case, "spec.json"), load_script(case))
    # The replay rule is the core's, so the events are the golden ones, byte for byte.
    assert "".join(f"{e}\n" for e in events) == read(case, "events.ndjson")
    assert journal == read(case, "journal.ndjson")
    assert session.journal() == read(case, "journal.ndjson")
    assert session.transcript_json() == read(case, "transcript.json")
    assert session.transcript_markdown() == read(case, "transcript.md")
    # The results alone are the transcript's own Results section, not a second rendering.
    results, markdown = session.results_markdown(), read(case, "transcript.md")
    if results:
        assert f"## Results\n\n{results}" in markdown
    else:
        assert "## Results" not in markdown
    # The cost, as the engine tells it: the total only when every seat that called was priced.
    usage = json.loads(session.transcript_json())["usage"]
    unpriced = [{"seat": s["seat"], "model": s["model"]} for s in usage["seats"] if "cost_micro_usd" not in s]
    cost = session.cost_summary()
    assert cost["unpriced"] == unpriced
    assert cost["cost_micro_usd"] == (None if unpriced else usage["total"].get("cost_micro_usd", 0))
    session.close()


@pytest.mark.parametrize("case", golden_cases())
def test_poll_all_gives_every_output_poll_gives(case: str) -> None:
    # poll_all reads one JSON string against the WIT types; poll converts value by value
    # through wasmtime-py. Every output of every golden case must come out the same.
    spec, script = read(case, "spec.json"), load_script(case)
    one_by_one, _, _, by_poll = replay_outputs(spec, script, bulk=False)
    bulk, _, _, by_poll_all = replay_outputs(spec, script, bulk=True)
    assert by_poll_all == by_poll
    assert [o.tag for o in by_poll_all].count("done") == 1
    assert bulk.transcript_json() == read(case, "transcript.json")
    one_by_one.close()
    bulk.close()


def test_poll_all_after_done_gives_done_again(cases: list[str]) -> None:
    case = cases[0]
    session, _, _, _ = replay_outputs(read(case, "spec.json"), load_script(case), bulk=True)
    with session:
        assert [o.tag for o in session.poll_all()] == ["done"]
        assert session.poll().tag == "done"


@pytest.mark.parametrize("case", golden_cases())
def test_golden_case_resumes_from_its_journal(case: str) -> None:
    with Session.from_journal(read(case, "journal.ndjson")) as session:
        while session.poll().tag != "done":
            pass
        assert session.transcript_json() == read(case, "transcript.json")


def test_there_are_golden_cases(cases: list[str]) -> None:
    assert "round-robin-three-seats" in cases


def scripted(case: str):
    """A complete() that answers from the case's script, by seat, phase and round."""
    script = load_script(case)
    used = [False] * len(script)

    def answer(request):
        i = find_entry(script, used, request)
        assert i >= 0, f"no script entry for {request['seat']}"
        used[i] = True
        entry = script_input(script[i], request["id"])
        if entry.tag == "failed":
            raise agon.ProviderError(entry.value["kind"], entry.value["message"], usage=entry.value["usage"])
        return {"text": entry.value["text"], "usage": entry.value["usage"], "stop": entry.value["stop"],
                "model": entry.value.get("model")}

    return answer


@pytest.mark.parametrize("case", golden_cases())
def test_run_debate_gives_the_golden_transcript(case: str) -> None:
    events: list[str] = []
    transcript = agon.run_debate(read(case, "spec.json"), scripted(case), on_event=lambda e: events.append(e["json"]))
    assert transcript == json.loads(read(case, "transcript.json"))
    # run_debate answers concurrent requests in its own order, so a batch's events may
    # arrive in another order (and so with other `seq` numbers) than the replay rule's:
    # the same events otherwise, every one of them; the transcript, which follows the
    # plan and not arrival, is byte for byte above.
    assert without_seq(events) == without_seq(read(case, "events.ndjson").splitlines())


def without_seq(events: list[str]) -> list[str]:
    """The events with their sequence number removed, sorted: what arrival order cannot change."""
    plain = []
    for e in events:
        value = json.loads(e)
        del value["seq"]
        plain.append(json.dumps(value, sort_keys=True))
    return sorted(plain)


def test_run_debate_async_runs_released_requests_together_and_gives_the_same_bytes(cases: list[str]) -> None:
    case = next(c for c in cases if c.startswith("rotating-challenger"))
    answer = scripted(case)
    in_flight, most = 0, 0
    delays = iter(range(30, 0, -1))

    async def complete(request):
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        # Later requests answer sooner, so replies arrive out of order.
        await asyncio.sleep(next(delays) / 1000)
        in_flight -= 1
        return answer(request)

    async def main() -> str:
        with Session.create(read(case, "spec.json")) as session:
            await agon.drive_async(session, complete)
            return session.transcript_json()

    assert asyncio.run(main()) == read(case, "transcript.json")
    assert most >= 3, f"at most {most} calls were in flight at once"


def test_a_bad_spec_raises_the_cores_message() -> None:
    with pytest.raises(AgonError) as raised:
        Session.create({"question": "q", "panel": [], "protocol": {"name": "round-robin"}})
    assert raised.value.kind == "invalid-spec" and raised.value.detail["field"] == "panel"
    assert str(raised.value).startswith("invalid spec: ")
    with pytest.raises(AgonError) as raised:
        Session.create({"question": "q", "panel": []})
    assert raised.value.detail["field"] == "protocol"
    with pytest.raises(AgonError, match="invalid spec"):
        agon.validate_spec("not json")


def test_an_unknown_request_raises_and_changes_nothing(cases: list[str]) -> None:
    with Session.create(read(cases[0], "spec.json")) as session:
        while session.poll().tag != "idle":
            pass
        before = session.journal()
        with pytest.raises(AgonError, match="^no request with id 999 was released$"):
            session.handle(Variant("reply", {"id": 999, "text": "x", "usage": None}))
        # On wasm32 a usize cast would make 2^32 + 1 alias request 1.
        with pytest.raises(AgonError, match="^no request with id 4294967297 was released$"):
            session.handle(Variant("reply", {"id": 2**32 + 1, "text": "x", "usage": None}))
        assert session.journal() == before


def test_estimate_bounds_a_priced_spec_before_it_runs() -> None:
    # round-robin-priced: 3 seats × 2 rounds + the judge; every model priced.
    e = agon.estimate(read("round-robin-priced", "spec.json"))
    assert e["calls"] == 7
    assert e["completion_tokens"] == 6 * 200 + 400
    assert e["cost_micro_usd"] > 0
    assert e["unpriced"] == []
    with pytest.raises(agon.AgonError):
        agon.estimate("{}")


def test_protocols_and_version() -> None:
    names = [p["name"] for p in agon.protocols()]
    assert "round-robin" in names and "rotating-challenger" in names
    assert agon.version()


def test_the_builtin_roles_parse_and_a_bad_one_names_its_line() -> None:
    roles = [agon.parse_role(text) for text in agon.builtin_roles()]
    assert len(roles) == 5
    assert all(r["role_id"] and r["model"] for r in roles)
    with pytest.raises(AgonError, match=r"^invalid role file at line \d+: ") as raised:
        agon.parse_role("no frontmatter here")
    assert raised.value.kind == "invalid-role"


def test_a_role_council_panel_is_built_by_the_engine() -> None:
    # The roles-to-seats mapping lives in the core: the SDK gets it whole.
    spec = agon.build_spec({"question": "q", "protocol": "role-council", "models": ["ollama/smollm2"]})
    roles = [agon.parse_role(text) for text in agon.builtin_roles()]
    debaters = [r["role_id"] for r in roles if r["participates_in_stage1"]]
    assert [seat["id"] for seat in spec["panel"]] == debaters
    assert all(seat["model"] == "ollama/smollm2" and seat["persona"] for seat in spec["panel"])
    with pytest.raises(AgonError) as raised:
        agon.build_spec({"question": "q", "protocol": "round-robin", "models": ["a/x", " "]})
    assert raised.value.kind == "invalid-spec" and raised.value.detail["field"] == "models[1]"


def test_build_spec_takes_the_shipped_catalog_by_default_another_one_or_none() -> None:
    choices = {"question": "q", "protocol": "round-robin", "models": ["openai/gpt-5", "ollama/smollm2"]}
    spec = agon.build_spec(choices)
    assert spec["models"] == {"openai/gpt-5": {"reasoning": True, "temperature": False, "context": 400000,
                                               "max_output": 128000}}
    assert spec["prices"]["openai/gpt-5"]["output"] > 0
    none = agon.build_spec({**choices, "catalog": None})
    # Without a catalog nothing is known of gpt-5 (a local model is still free).
    assert "models" not in none and "openai/gpt-5" not in none.get("prices", {}), none
    own = agon.catalog()
    own["models"]["acme/x"] = {"reasoning": False, "temperature": True, "price": {"input": 1, "output": 2}}
    assert agon.build_spec({**choices, "models": ["acme/x"], "catalog": own})["prices"] == {"acme/x": {"input": 1, "output": 2}}
    assert "acme/x" not in agon.catalog()["models"], "catalog() gives a copy"
