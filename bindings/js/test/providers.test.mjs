// The fetch providers against the project's test server: streaming, usage,
// and each fault mapped to the failure kind the engine expects.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openai, ollama, byProvider, ProviderError } from "../src/index.js";

const serverBin = process.env.AGON_TEST_SERVER ?? fileURLToPath(new URL("../../../target/debug/agon-test-server", import.meta.url));
const config = {
  models: {
    ok: { replies: ["Walking is slower but calmer.", "Second answer."] },
    broken: { fault: "server-error" },
    limited: { fault: "rate-limited" },
    cut: { replies: ["one two three four five six seven eight"], fault: "cut-stream" },
    garbage: { fault: "garbage" },
    hang: { fault: "hang" },
  },
};
let server;
let url;
let dir;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "agon-js-providers-"));
  writeFileSync(join(dir, "config.json"), JSON.stringify(config));
  server = spawn(serverBin, ["--port", "0", "--config", join(dir, "config.json"), "--max-seconds", "60"], { stdio: ["ignore", "pipe", "inherit"] });
  const [line] = await once(createInterface({ input: server.stdout }), "line");
  assert.match(line, /^listening http:\/\/127\.0\.0\.1:\d+$/);
  url = line.split(" ")[1];
});
after(() => {
  server?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const request = (model) => ({
  id: 1n, seat: "s", model, purpose: "turn", round: 1, phase: "deliberation",
  messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Walk or cycle?" }],
  maxTokens: 40, temperature: 0.2,
});
const stats = async () => (await fetch(`${url}/stats`)).json();

test("openai streams the reply in pieces, with usage, sending the key and max_tokens", async () => {
  const pieces = [];
  const answer = await openai({ baseUrl: `${url}/v1`, apiKey: "sk-test-1234", onText: (p) => pieces.push(p) })(request("openai/ok"));
  assert.equal(answer.text, "Walking is slower but calmer.");
  assert.equal(pieces.join(""), answer.text);
  assert.ok(pieces.length > 1);
  assert.ok(answer.usage.promptTokens > 0 && answer.usage.completionTokens > 0);
  const seen = (await stats()).requests.at(-1);
  assert.deepEqual([seen.model, seen.stream, seen.max_tokens, seen.authorization], ["ok", true, 40, "Bearer sk-test-1234"]);
});

test("openai without streaming", async () => {
  const answer = await openai({ baseUrl: `${url}/v1`, stream: false })(request("openai/ok"));
  assert.equal(answer.text, "Second answer.");
  assert.ok(answer.usage.completionTokens > 0);
});

test("ollama streams NDJSON with usage", async () => {
  const pieces = [];
  const answer = await ollama({ host: url, onText: (p) => pieces.push(p) })(request("ollama/ok"));
  assert.equal(typeof answer.text, "string");
  assert.ok(pieces.length > 1 && answer.usage.completionTokens > 0);
  assert.equal((await stats()).requests.at(-1).path, "/api/chat");
});

for (const [model, kind, message] of [
  ["broken", "provider-error", /^HTTP 500 from .*injected server error/],
  ["limited", "rate-limited", /^HTTP 429/],
  ["garbage", "provider-error", /malformed stream event/],
]) {
  test(`openai: ${model} is a ${kind} failure`, async () => {
    await assert.rejects(openai({ baseUrl: `${url}/v1` })(request(`openai/${model}`)), (e) => {
      assert.ok(e instanceof ProviderError);
      assert.equal(e.kind, kind);
      assert.match(e.message, message);
      return true;
    });
  });
}

test("a stream cut midway fails; the partial reply is not an answer", async () => {
  // The test server leaves the cut connection open, so the call's timeout ends it.
  await assert.rejects(openai({ baseUrl: `${url}/v1`, timeoutMs: 1500 })(request("openai/cut")), (e) => {
    assert.ok(e instanceof ProviderError && ["provider-error", "timeout"].includes(e.kind), `${e.kind}: ${e.message}`);
    return true;
  });
});

test("a call past its timeout is a timeout failure", async () => {
  await assert.rejects(openai({ baseUrl: `${url}/v1`, timeoutMs: 300 })(request("openai/hang")), { kind: "timeout" });
});

test("byProvider routes by the model reference and names unknown providers", async () => {
  const complete = byProvider({ openai: async () => "from openai", ollama: async () => "from ollama" });
  assert.equal(await complete(request("ollama/x")), "from ollama");
  assert.throws(() => complete(request("acme/x")), /no provider 'acme'/);
});
