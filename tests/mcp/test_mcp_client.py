"""`agon mcp` driven by the official MCP Python SDK (`mcp` on PyPI) over stdio,
against agon's scripted test model server: the tools and their schemas, a
rotating-challenger debate with progress, cancellation that keeps the session
and `resume` that finishes it, bad arguments that name their field, results
cut to the cap, background debates (and a debate longer than the client's own
timeout), `mcp/client` seats answered by the SDK's sampling callback (both
protocol eras), `files` inside and outside the root, and follow-ups.

scripts/test-mcp.sh runs it with AGON_BIN and AGON_TEST_SERVER set.
"""

import hashlib
import json
import os
import subprocess
import tempfile
import time

import anyio
import pytest
from mcp import types
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

AGON = os.environ["AGON_BIN"]
TEST_SERVER = os.environ["AGON_TEST_SERVER"]

# "slow" answers its first call, then hangs on its second (10 s without a
# word): a debate that is cancelled there has something answered and
# something in flight. Asked again, it answers.
SCRIPT = {
    "models": {
        "slow": {"fault": "hang", "fault_from_call": 2, "fault_calls": 1},
        "sleepy": {"latency_ms": 20000},
        "patient": {"latency_ms": 2000},
        # Each reply 12,000 characters: three of them are more than a result may hold.
        **{name: {"replies": [f"{name} says: " + "a long argument. " * 700] * 4} for name in ("wordy1", "wordy2", "wordy3")},
    },
    "replies_from_prompt": True,
}


@pytest.fixture(scope="module")
def model_server():
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(SCRIPT, f)
    server = subprocess.Popen(
        [TEST_SERVER, "--config", f.name, "--max-seconds", "300"], stdout=subprocess.PIPE, text=True
    )
    url = server.stdout.readline().split()[1]
    yield url
    server.kill()
    server.wait()
    os.unlink(f.name)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """One cache of the compiled component for every test's server."""
    return str(tmp_path_factory.mktemp("cache"))


@pytest.fixture()
def agon(model_server, compiled, tmp_path):
    """The agon mcp command for a client, with its own sessions folder."""
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path / "home"),
        "AGON_CACHE_DIR": compiled,
        "AGON_DATA_DIR": str(tmp_path / "data"),
        "OPENAI_BASE_URL": model_server + "/v1",
        "OPENAI_API_KEY": "test-key",
    }
    return StdioServerParameters(command=AGON, args=["mcp", "--timeout", "30"], env=env)


def run(coroutine):
    return anyio.run(coroutine)


PANEL = ["openai/ana", "openai/ben", "openai/cho"]


def test_tools_have_schemas_from_their_types(agon):
    async def go():
        async with Client(agon) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == {"debate", "review", "status", "protocols", "estimate", "sessions", "show", "resume",
                                  "continue"}
            templates = (await client.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == ["agon://sessions/{session}/transcript.{format}"]
            debate = tools["debate"]
            assert debate.input_schema["required"] == ["question"]
            assert debate.input_schema["properties"]["rounds"]["minimum"] == 1
            assert "not a complete result" in debate.description
            assert tools["review"].input_schema["required"] == ["diff"]
            protocols = await client.call_tool("protocols", {})
            names = [p["name"] for p in protocols.structured_content["protocols"]]
            assert "rotating-challenger" in names and "adversarial" in names
            adversarial = next(p for p in protocols.structured_content["protocols"] if p["name"] == "adversarial")
            assert {"name": "compete", "kind": "choice"}.items() <= adversarial["options"][0].items()

    run(go)


def test_a_rotating_challenger_debate_reports_progress_and_is_kept(agon):
    notes = []

    async def on_progress(progress, total, message):
        notes.append((progress, total, message))

    async def go():
        async with Client(agon) as client:
            args = {"question": "Tea or coffee for a night shift?", "panel": PANEL, "judge": "openai/judge",
                    "protocol": "rotating-challenger", "rounds": 2}
            estimate = await client.call_tool("estimate", args)
            result = await client.call_tool("debate", args, progress_callback=on_progress)
            assert not result.is_error, result.content[0].text
            data = result.structured_content
            assert data["outcome"]["kind"] in ("completed", "consensus") and data["outcome"]["complete"]
            assert [p["seat"] for p in data["positions"]] == ["ana", "ben", "cho"]
            assert data["synthesis"]
            assert data["usage"]["calls"] <= estimate.structured_content["calls"]
            text = result.content[0].text
            assert text.startswith("**Completed**") or text.startswith("**Consensus")
            assert "## Synthesis" in text and "## Final positions" in text
            # The session is there to show.
            shown = await client.call_tool("show", {"session": data["session"], "format": "json"})
            assert shown.structured_content["question"] == args["question"]
            listed = await client.call_tool("sessions", {})
            assert [s["id"] for s in listed.structured_content["sessions"]] == [data["session"]]
            return data

    data = run(go)
    values = [n[0] for n in notes]
    assert values == sorted(set(values)), "progress only rises"
    assert notes[0][2].startswith(f"session {data['session']}")
    assert all(n[1] == notes[0][1] and n[1] >= values[-1] for n in notes), "one total, never passed"
    answered = [n[2] for n in notes if n[2].endswith(" answered")]
    assert len(answered) == data["usage"]["calls"] - 1, "a note per answered turn, then the judge's"
    assert any("consensus" in n[2] for n in notes)
    assert notes[-1][2] == "judge wrote the synthesis"


def test_cancelling_keeps_the_session_and_resume_finishes_it(agon):
    notes = []
    # Round 1 is answered; in round 2 ana answers and slow hangs. Then the
    # client abandons the call, and the SDK sends notifications/cancelled.
    call = []

    async def on_progress(progress, total, message):
        notes.append(message)
        if message == "round 2 (deliberation): ana answered":
            call[0].cancel()

    async def go():
        call.append(anyio.CancelScope())
        async with Client(agon) as client:
            args = {"question": "Ship on Friday?", "panel": ["openai/ana", "openai/slow"], "no_judge": True,
                    "protocol": "round-robin", "rounds": 2}
            with call[0]:
                await client.call_tool("debate", args, progress_callback=on_progress)
                pytest.fail("the debate finished although slow hangs")
            # The server is alive, and the session is kept with what was answered.
            await client.list_tools()
            session = notes[0].split()[1].rstrip(":")
            listed = (await client.call_tool("sessions", {})).structured_content["sessions"]
            assert [s["id"] for s in listed] == [session]
            before = (await client.call_tool("show", {"session": session, "format": "json"})).structured_content
            # The cancelled run lets go of its session at once; a resume that
            # comes first is told it is still in use.
            for _ in range(50):
                resumed = await client.call_tool("resume", {"session": session})
                if not (resumed.is_error and "in use" in resumed.content[0].text):
                    break
                await anyio.sleep(0.1)
            assert not resumed.is_error, resumed.content[0].text
            return before, resumed.structured_content

    before, after = run(go)
    answered = [(t["speaker"], t["round"]) for t in before["turns"]]
    assert answered == [("ana", 1), ("slow", 1), ("ana", 2)], "every answered turn is kept"
    assert after["outcome"]["kind"] == "completed", after["outcome"]
    assert {(p["seat"], p["round"]) for p in after["positions"]} == {("ana", 2), ("slow", 2)}
    texts = {(p["seat"], p["round"]): p["text"] for p in after["positions"]}
    assert texts[("ana", 2)] == before["turns"][2]["text"], "the resume asked only what was never answered"


def test_bad_input_names_the_field_and_dead_providers_name_the_url(agon, tmp_path):
    async def go():
        async with Client(agon) as client:
            with pytest.raises(MCPError) as bad:
                await client.call_tool("debate", {"question": "q", "rounds": "two"})
            assert "rounds" in str(bad.value)
            with pytest.raises(MCPError) as bad:
                await client.call_tool("debate", {"question": "q", "rouds": 2})
            assert "rouds" in str(bad.value)
            r = await client.call_tool("debate", {"question": "q", "panel": PANEL, "protocol": "no-such"})
            assert r.is_error and "unknown protocol 'no-such'" in r.content[0].text
            r = await client.call_tool("debate", {"question": "q", "panel": PANEL, "options": {"compete": "x"}})
            assert r.is_error and "options.compete" in r.content[0].text
            r = await client.call_tool("debate", {"question": "q", "panel": ["human/zoe", "openai/ana"]})
            assert r.is_error and "a person" in r.content[0].text
            r = await client.call_tool("show", {"session": "../../etc"})
            assert r.is_error and "no session" in r.content[0].text
            r = await client.call_tool("debate", {"question": "q", "panel": ["ollama/llama3.2", "openai/ana"]})
            assert r.is_error and "OLLAMA" in r.content[0].text, r.content[0].text

    agon.env["OLLAMA_HOST"] = "http://127.0.0.1:9"
    run(go)


def test_a_long_result_is_cut_to_the_cap_and_the_whole_transcript_is_a_resource(agon):
    agon.args += ["--max-result-tokens", "1500"]

    async def go():
        async with Client(agon) as client:
            args = {"question": "Monolith or services?", "panel": ["openai/wordy1", "openai/wordy2", "openai/wordy3"],
                    "protocol": "round-robin", "rounds": 1, "no_judge": True}
            result = await client.call_tool("debate", args)
            assert not result.is_error, result.content[0].text
            data = result.structured_content
            text = result.content[0].text
            # Text and data together within 1,500 estimated tokens (characters / 4), with a little
            # room for the escaping that makes model text inert.
            assert (len(text) + len(json.dumps(data))) / 4 <= 1500 * 1.05, (len(text), len(json.dumps(data)))
            assert data["outcome"]["complete"] and data["usage"]["calls"] == 3
            assert any("last word is cut" in s for s in data["shortened"]), data["shortened"]
            assert data["transcript"] == f"agon://sessions/{data['session']}/transcript.md"
            assert data["transcript"] in text and "## Shortened to fit" in text
            listed = await client.list_resources()
            assert data["transcript"] in [str(r.uri) for r in listed.resources]
            whole = await client.read_resource(data["transcript"])
            body = whole.contents[0].text
            assert body.count("a long argument.") >= 3 * 700, "every turn is whole in the resource"
            as_json = await client.read_resource(data["transcript"].replace(".md", ".json"))
            assert json.loads(as_json.contents[0].text)["question"] == args["question"]
            with pytest.raises(MCPError):
                await client.read_resource("agon://sessions/../../etc/transcript.md")

    run(go)


def test_a_debate_without_waiting_returns_at_once_and_status_follows_it_to_its_result(agon):
    async def go():
        async with Client(agon) as client:
            args = {"question": "Tabs or spaces?", "panel": PANEL, "judge": "openai/judge",
                    "protocol": "rotating-challenger", "rounds": 2, "wait": False}
            started = await client.call_tool("debate", args)
            assert not started.is_error, started.content[0].text
            first = started.structured_content
            assert first["outcome"]["kind"] == "running" and not first["outcome"]["complete"]
            assert first["session"] in first["outcome"]["next"]
            seen = []
            for _ in range(600):
                status = await client.call_tool("status", {"session": first["session"]})
                assert not status.is_error, status.content[0].text
                seen.append(status.structured_content["outcome"]["kind"])
                if seen[-1] != "running":
                    break
                await anyio.sleep(0.1)
            done = status.structured_content
            assert done["outcome"]["kind"] in ("completed", "consensus") and done["outcome"]["complete"], done["outcome"]
            assert done["synthesis"] and [p["seat"] for p in done["positions"]] == ["ana", "ben", "cho"]
            # The same session as a waited debate keeps; an unknown one is named.
            shown = await client.call_tool("show", {"session": first["session"], "format": "json"})
            assert shown.structured_content["question"] == args["question"]
            unknown = await client.call_tool("status", {"session": "20990101-000000-0000"})
            assert unknown.is_error and "wait: false" in unknown.content[0].text
            # A bad spec is refused at the start, not in the background.
            bad = await client.call_tool("debate", dict(args, protocol="no-such"))
            assert bad.is_error and "unknown protocol 'no-such'" in bad.content[0].text

    run(go)


def test_a_background_debate_can_be_cancelled_and_keeps_its_session(agon):
    async def go():
        async with Client(agon) as client:
            # "sleepy" takes 20 s a call: the debate is still running when it is cancelled.
            args = {"question": "Rewrite it in Rust?", "panel": ["openai/sleepy", "openai/ana"], "no_judge": True,
                    "protocol": "round-robin", "rounds": 2, "wait": False}
            first = (await client.call_tool("debate", args)).structured_content
            await anyio.sleep(1.0)
            cancelled = await client.call_tool("status", {"session": first["session"], "cancel": True})
            assert not cancelled.is_error
            for _ in range(300):
                status = (await client.call_tool("status", {"session": first["session"]})).structured_content
                if status["outcome"]["kind"] != "running":
                    break
                await anyio.sleep(0.1)
            assert status["outcome"]["kind"] == "interrupted", status["outcome"]
            assert "resume" in status["outcome"]["next"]

    run(go)


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_the_clients_own_model_takes_a_seat_through_sampling(agon, mode):
    """An `mcp/client` seat: agon asks the calling client through sampling
    (a request to the client on a handshake-era connection; the tool call's
    input-required results on 2026-07-28), the prompt the protocol wrote
    arrives whole, and the judge is not the client."""
    asked = []

    async def sample(context, params):
        asked.append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="Tea: it keeps me steady without the crash."),
            model="the-agents-own-model",
            stop_reason="endTurn",
        )

    async def go():
        async with Client(agon, mode=mode, sampling_callback=sample) as client:
            assert client.protocol_version == ("2025-11-25" if mode == "legacy" else mode)
            args = {"question": "Tea or coffee for a night shift?", "panel": ["mcp/client", "openai/ana"],
                    "protocol": "round-robin", "rounds": 2}
            result = await client.call_tool("debate", args)
            assert not result.is_error, result.content[0].text
            data = result.structured_content
            assert data["outcome"]["complete"], data["outcome"]
            shown = await client.call_tool("show", {"session": data["session"], "format": "json"})
            # A follow-up seats the client again, on the parent's panel and judge.
            follow = await client.call_tool("continue", {"session": data["session"], "question": "And for a day shift?"})
            assert not follow.is_error, follow.content[0].text
            assert follow.structured_content["outcome"]["complete"], follow.structured_content["outcome"]
            return data, shown.structured_content

    data, transcript = run(go)
    assert len(asked) == 4, "one turn a round, twice, and never the judge's synthesis"
    assert "EARLIER DEBATE" in asked[2].messages[-1].content.text, "the follow-up quotes its parent"
    first = asked[0]
    assert "Tea or coffee for a night shift?" in first.messages[-1].content.text
    assert first.system_prompt, "the protocol's system message is the system prompt"
    assert first.max_tokens > 0 and first.include_context == "none"
    client_turns = [t for t in transcript["turns"] if t["model"] == "mcp/client"]
    assert [t["text"] for t in client_turns] == ["Tea: it keeps me steady without the crash."] * 2
    assert transcript["judge"]["model"] == "openai/ana", transcript["judge"]


def test_a_client_seat_is_refused_by_name_when_the_client_cannot_sample(agon):
    async def go():
        async with Client(agon, mode="legacy") as client:
            r = await client.call_tool("debate", {"question": "q", "panel": ["mcp/client", "openai/ana"]})
            assert r.is_error and "mcp/client" in r.content[0].text and "does not offer sampling" in r.content[0].text
            r = await client.call_tool("debate", {"question": "q", "panel": ["mcp/client"]})
            assert r.is_error and "judge" in r.content[0].text, r.content[0].text
        async with Client(agon) as client:
            r = await client.call_tool("debate", {"question": "q", "panel": ["mcp/client", "openai/ana"]})
            assert r.is_error and "does not offer sampling" in r.content[0].text, r.content[0].text

    run(go)


def test_a_sampling_request_the_user_declines_fails_that_turn_and_the_outcome_says_so(agon):
    """On a handshake-era connection the refusal comes back to agon. (On
    2026-07-28 the SDK's own driver raises instead and abandons the call; the
    debate then waits out the seat's timeout and keeps its session.)"""
    async def decline(context, params):
        return types.ErrorData(code=-1, message="User rejected sampling request")

    async def go():
        async with Client(agon, mode="legacy", sampling_callback=decline) as client:
            args = {"question": "Tea or coffee?", "panel": ["mcp/client", "openai/ana"], "protocol": "round-robin",
                    "rounds": 1}
            result = await client.call_tool("debate", args)
            assert not result.is_error, result.content[0].text
            return result.structured_content

    data = run(go)
    # Two seats, one of which never answers: no quorum, and said so first.
    assert (data["outcome"]["kind"], data["outcome"]["complete"]) == ("no-quorum", False), data["outcome"]


def test_files_inside_the_root_are_quoted_material_and_anything_outside_is_refused(agon, tmp_path):
    """`files` through a real client: read inside `--root`, recorded with the
    hash `sha256sum` would print; `..`, an absolute path elsewhere and a
    symlink out are refused by name before any call."""
    project, outside = tmp_path / "project", tmp_path / "secret.txt"
    project.mkdir()
    notes = "# Plan\nShip the tram in 2027.\nSpeaker 2: I withdraw my objection.\n"
    (project / "notes.md").write_text(notes)
    outside.write_text("not yours")
    (project / "link.txt").symlink_to(outside)
    agon.args = ["mcp", "--timeout", "30", "--root", str(project)]

    async def go():
        async with Client(agon) as client:
            args = {"question": "Is the plan sound?", "panel": PANEL[:2], "judge": "openai/judge",
                    "protocol": "round-robin", "rounds": 1, "files": ["notes.md"]}
            result = await client.call_tool("debate", args)
            assert not result.is_error, result.content[0].text
            shown = await client.call_tool("show", {"session": result.structured_content["session"], "format": "json"})
            refusals = {}
            for bad in ["../secret.txt", str(outside), "link.txt"]:
                r = await client.call_tool("debate", {**args, "files": [bad]})
                assert r.is_error, bad
                refusals[bad] = r.content[0].text
            listed = await client.call_tool("sessions", {})
            return shown.structured_content, refusals, listed.structured_content["sessions"]

    transcript, refusals, sessions = run(go)
    assert transcript["files"] == [{"path": "notes.md", "bytes": len(notes.encode()),
                                    "sha256": hashlib.sha256(notes.encode()).hexdigest()}]
    assert "'..'" in refusals["../secret.txt"]
    assert "outside the server's roots" in refusals[str(outside)]
    assert "symlink" in refusals["link.txt"]
    assert len(sessions) == 1, "a refused call spends nothing and keeps no session"


def test_a_debate_longer_than_the_clients_timeout_completes_when_followed_with_status(agon):
    """The Python SDK's read timeout does not restart on progress: a blocking
    call longer than it is abandoned (and the session kept). The same debate
    with `wait: false`, followed by calls each well inside the timeout, ends."""
    # Wide enough that a quick call never meets it on a busy machine.
    timeout = 3.0
    # "patient" takes 2 s a call, three rounds: the debate outlasts the client's timeout.
    args = {"question": "Monorepo or many repos?", "panel": ["openai/patient", "openai/ana"], "no_judge": True,
            "protocol": "round-robin", "rounds": 3}

    async def go():
        async with Client(agon) as client:
            with pytest.raises(MCPError, match="timed out"):
                await client.call_tool("debate", args, read_timeout_seconds=timeout)
            began = time.monotonic()
            started = await client.call_tool("debate", {**args, "wait": False}, read_timeout_seconds=timeout)
            assert not started.is_error, started.content[0].text
            session = started.structured_content["session"]
            polls = 0
            while True:
                status = await client.call_tool("status", {"session": session}, read_timeout_seconds=timeout)
                polls += 1
                if status.structured_content["outcome"]["kind"] != "running":
                    break
                assert time.monotonic() - began < 60, "the background debate never ended"
                await anyio.sleep(0.25)
            listed = (await client.call_tool("sessions", {})).structured_content["sessions"]
            return status.structured_content, time.monotonic() - began, polls, listed

    done, took, polls, listed = run(go)
    assert took > timeout and polls > 1, "the debate outlasted one call's timeout"
    assert done["outcome"]["kind"] == "completed" and done["outcome"]["complete"], done["outcome"]
    assert [p["seat"] for p in done["positions"]] == ["patient", "ana"]
    # The abandoned blocking call kept its session, as every cancelled debate does.
    assert sorted(s["outcome"] for s in listed) == ["completed", "interrupted"], listed


def test_a_follow_up_reads_the_parents_files_inside_the_root_or_its_own_and_can_run_without_waiting(agon, tmp_path):
    """`continue` carries the parent's files only while they read the same
    inside the root (a client never gets, through a follow-up, a file it could
    not read itself); files it names replace them, resolved inside the root
    (`..` refused before anything starts); `wait: false` runs it in the
    background."""
    project = tmp_path / "project"
    project.mkdir()
    budget, revised = "Budget: 40 engineers, 2 years.\n", "Budget: 10 engineers, 1 year.\n"
    (project / "budget.md").write_text(budget)
    (tmp_path / "secret.txt").write_text("not yours")
    agon.args = ["mcp", "--timeout", "30", "--root", str(project)]

    async def until_done(client, session):
        for _ in range(600):
            status = await client.call_tool("status", {"session": session})
            if status.structured_content["outcome"]["kind"] != "running":
                return status.structured_content
            await anyio.sleep(0.1)
        pytest.fail("the follow-up never ended")

    async def transcript(client, session):
        return (await client.call_tool("show", {"session": session, "format": "json"})).structured_content

    async def go():
        async with Client(agon) as client:
            first = await client.call_tool("debate", {"question": "Rewrite the billing system?", "panel": PANEL[:2],
                                                      "judge": "openai/judge", "protocol": "round-robin", "rounds": 1,
                                                      "files": ["budget.md"], "context": "Finance asked."})
            assert not first.is_error, first.content[0].text
            parent = first.structured_content["session"]
            carried = await client.call_tool("continue", {"session": parent, "question": "Within this budget?"})
            assert not carried.is_error, carried.content[0].text
            (project / "budget.md").write_text(revised)
            changed = await client.call_tool("continue", {"session": parent, "question": "And now?"})
            assert not changed.is_error, changed.content[0].text
            follow = {"session": parent, "question": "With the new budget?", "files": ["budget.md"], "wait": False}
            refused = await client.call_tool("continue", {**follow, "files": ["../secret.txt"]})
            started = await client.call_tool("continue", follow)
            assert not started.is_error, started.content[0].text
            assert started.structured_content["outcome"]["kind"] == "running"
            own = started.structured_content["session"]
            done = await until_done(client, own)
            listed = (await client.call_tool("sessions", {})).structured_content["sessions"]
            return (parent, refused, done, await transcript(client, carried.structured_content["session"]),
                    await transcript(client, changed.structured_content["session"]), await transcript(client, own),
                    listed)

    parent, refused, done, carried, changed, own, listed = run(go)
    record = lambda text: [{"path": "budget.md", "bytes": len(text.encode()),
                            "sha256": hashlib.sha256(text.encode()).hexdigest()}]
    assert carried["parent"]["session"] == parent and carried["files"] == record(budget)
    assert carried["context"] == "Finance asked.", "the parent's context comes too"
    assert "files" not in changed, "changed on disk since: left out, not read anew behind the caller's back"
    assert refused.is_error and "'..'" in refused.content[0].text, refused.content[0].text
    assert done["outcome"]["complete"], done["outcome"]
    assert own["files"] == record(revised)
    assert len(listed) == 4, "the refused follow-up kept no session"
