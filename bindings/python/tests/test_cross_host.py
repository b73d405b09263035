"""One transcript across every host: the CLI, the JS SDK and the Python SDK
run the same spec against the project's test server with the same scripted
replies, and must write the same transcript and events, byte for byte.

Needs the `agon` and `agon-test-server` binaries (AGON_BIN, AGON_TEST_SERVER;
default target/debug/) and node; scripts/test-sdk.sh provides all three.
"""

from __future__ import annotations

import asyncio
import http.server
import json
import os
import queue
import shutil
import subprocess
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import ROOT, unavailable

import agon

AGON = Path(os.environ.get("AGON_BIN", ROOT / "target" / "debug" / "agon"))
TEST_SERVER = Path(os.environ.get("AGON_TEST_SERVER", ROOT / "target" / "debug" / "agon-test-server"))
JS_HOST = ROOT / "bindings" / "js" / "scripts" / "run-spec.mjs"

# One model per seat: the server serves each model's replies in call order.
# Distinct latencies fix the order in which concurrent replies arrive, so the
# events (which follow arrival order) are comparable too.
# Replies arrive in an order of their own (100, 300, 500 ms), and none at
# once: the blind phase's three requests must all be out before the first
# answer, or a loaded machine makes "in flight together" a race.
REPLIES = {
    "alpha": (100, [
        "Rewrite only the billing module first; it is where the bugs are.",
        "I'm persuaded by Speaker 2: ship the billing rewrite behind a flag.",
        "CONSENSUS: rewrite billing behind a flag, then decide.",
    ]),
    "beta": (300, [
        "Do not rewrite; add tests around billing and refactor in place.",
        "I agree with a flagged billing rewrite if tests come first.",
        "CONSENSUS: rewrite billing behind a flag, then decide.",
    ]),
    "gamma": (500, [
        "A rewrite stalls features for a quarter; I disagree with rewriting now.",
        "I still disagree: the flag doubles the code paths to maintain.",
        "I disagree: the cost of two code paths is underestimated.",
    ]),
    "arbiter": (0, [
        "## Answer\nRewrite billing behind a flag.\n## Agreement\nTests first.\n"
        "## Disagreement\nGamma fears two code paths.\n## Open questions\nHow long does the flag live?",
    ]),
}
FLAGS = [
    "Should we rewrite our billing system?",
    "--protocol", "rotating-challenger",
    "--rounds", "2", "--seed", "7", "--max-tokens", "80", "--judge-max-tokens", "120",
]


def models(provider: str) -> list[str]:
    return ["--panel", ",".join(f"{provider}/{m}" for m in ("alpha", "beta", "gamma")), "--judge", f"{provider}/arbiter"]


@contextmanager
def model_server(tmp: Path) -> Iterator[str]:
    """A fresh server (fresh per-model call counts) on 127.0.0.1 that stops by itself."""
    assert TEST_SERVER.is_file(), f"{TEST_SERVER} is missing: cargo build -p agon-testkit --bins"
    config = tmp / "server.json"
    config.write_text(json.dumps({
        "models": {name: {"replies": replies, "latency_ms": latency} for name, (latency, replies) in REPLIES.items()}
    }))
    server = subprocess.Popen(
        [str(TEST_SERVER), "--port", "0", "--config", str(config), "--max-seconds", "120"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        line = server.stdout.readline().strip()
        assert line.startswith("listening http://127.0.0.1:"), line
        yield line.split(" ", 1)[1]
    finally:
        server.kill()
        server.wait()


def stats(url: str) -> dict:
    with urllib.request.urlopen(f"{url}/stats", timeout=10) as r:
        return json.load(r)


def run_cli(provider: str, url: str, out: Path) -> tuple[str, str]:
    env = {**os.environ, "OPENAI_BASE_URL": f"{url}/v1", "OPENAI_API_KEY": "test-key", "OLLAMA_HOST": url}
    subprocess.run(
        [str(AGON), "run", *FLAGS, *models(provider), "--format", "json", "--quiet", "--no-save",
         "--output", str(out / "transcript.json"), "--events", str(out / "events.ndjson")],
        env=env, check=True, capture_output=True, timeout=120,
    )
    return (out / "transcript.json").read_text(), (out / "events.ndjson").read_text()


def run_js(provider: str, url: str, spec: Path, out: Path) -> tuple[str, str]:
    base = f"{url}/v1" if provider == "openai" else url
    subprocess.run(["node", str(JS_HOST), str(spec), provider, base, str(out)],
                   env={**os.environ, "OPENAI_API_KEY": "test-key"}, check=True, capture_output=True, timeout=120)
    return (out / "transcript.json").read_text(), (out / "events.ndjson").read_text()


def run_python(provider: str, url: str, spec: Path) -> tuple[str, str]:
    complete = agon.openai(f"{url}/v1", "test-key") if provider == "openai" else agon.ollama(url)
    events: list[str] = []

    async def main() -> str:
        with agon.Session.create(spec.read_text()) as session:
            await agon.drive_async(session, complete, on_event=lambda e: events.append(e["json"]))
            return session.transcript_json()

    return asyncio.run(main()), "".join(e + "\n" for e in events)


@pytest.mark.parametrize("provider", ["openai", "ollama"])
def test_cli_js_and_python_write_the_same_transcript(provider: str, tmp_path: Path) -> None:
    assert AGON.is_file(), f"{AGON} is missing: cargo build -p agon-cli"
    spec = tmp_path / "spec.json"
    spec.write_text(subprocess.run([str(AGON), "spec", *FLAGS, *models(provider)],
                                   check=True, capture_output=True, text=True).stdout)
    results = {}
    for host in ("cli", "js", "python"):
        out = tmp_path / host
        out.mkdir()
        with model_server(tmp_path) as url:
            if host == "cli":
                results[host] = run_cli(provider, url, out)
            elif host == "js":
                results[host] = run_js(provider, url, spec, out)
            else:
                results[host] = run_python(provider, url, spec)
            seen = stats(url)
        if host != "cli":
            # Requests released together were in flight together (the blind phase).
            assert seen["max_in_flight"] >= 3, f"{host}: at most {seen['max_in_flight']} calls at once"
        assert {r["model"] for r in seen["requests"]} == set(REPLIES), host

    cli_transcript, cli_events = results["cli"]
    transcript = json.loads(cli_transcript)
    # The scripted replies, and the server's usage counts, made it into the transcript.
    assert transcript["turns"][0]["text"] == REPLIES["alpha"][1][0]
    assert all("usage" in t for t in transcript["turns"]), "every streamed reply carried usage"
    assert transcript["synthesis"]["text"] == REPLIES["arbiter"][1][0]
    for host in ("js", "python"):
        assert results[host][0] == cli_transcript, f"{host} transcript differs from the CLI's"
        assert results[host][1] == cli_events, f"{host} events differ from the CLI's"


CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)

# The JS SDK as an ES module in a page: it runs the spec and posts the
# engine's transcript bytes and the events back to the page server.
BROWSER_PAGE = """<!doctype html><meta charset="utf-8"><p>agon browser check</p>
<script type="module">
const report = (body) => fetch("./result", { method: "POST", body: JSON.stringify(body) });
try {
  const { Session, drive, openai } = await import("./src/index.js");
  const session = Session.create(await (await fetch("./spec.json")).text());
  let events = "";
  await drive(session, openai({ baseUrl: "BASE_URL" }), { onEvent: (e) => (events += e.json + "\\n") });
  await report({ transcript: session.transcriptJson(), events });
} catch (e) {
  await report({ error: String(e) });
}
</script>
"""


def test_the_js_sdk_in_a_browser_writes_the_same_transcript_as_the_cli(tmp_path: Path) -> None:
    if CHROMIUM is None:
        unavailable("no Chromium on this machine (scripts/setup-web.sh installs it)")
    spec = subprocess.run([str(AGON), "spec", *FLAGS, *models("openai")],
                          check=True, capture_output=True, text=True).stdout
    (tmp_path / "cli").mkdir()
    with model_server(tmp_path) as url:
        cli_transcript, cli_events = run_cli("openai", url, tmp_path / "cli")
    js_root = ROOT / "bindings" / "js"
    results: "queue.Queue[dict]" = queue.Queue()

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(js_root), **kwargs)  # type: ignore[arg-type]

        def do_GET(self) -> None:
            extra = {"/check.html": (page, "text/html"), "/spec.json": (spec, "application/json")}
            if self.path not in extra:
                return super().do_GET()
            self.reply(*extra[self.path])

        def do_POST(self) -> None:
            results.put(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self.reply("{}", "application/json")

        def reply(self, body: str, kind: str) -> None:
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    with model_server(tmp_path) as url:
        page = BROWSER_PAGE.replace("BASE_URL", f"{url}/v1")
        pages = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=pages.serve_forever, daemon=True).start()
        browser = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             # Nothing but the two local servers: no background calls to a closed network.
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}",
             f"http://127.0.0.1:{pages.server_address[1]}/check.html"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            result = results.get(timeout=90)
        finally:
            browser.kill()
            browser.wait()
            pages.shutdown()

    assert "error" not in result, result["error"]
    assert result["transcript"] == cli_transcript
    assert result["events"] == cli_events
