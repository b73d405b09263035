// The fetch providers against the project's test server: every API they speak
// (through the component's wire layer), streaming, usage, each fault mapped to the
// failure kind the engine expects, and a debate of reasoning models against the
// strict emulator, which refuses what the real APIs refuse.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openai, anthropic, gemini, ollama, byProvider, buildSpec, runDebate, ProviderError } from "../src/index.js";

const serverBin = process.env.AGON_TEST_SERVER ?? fileURLToPath(new URL("../../../target/debug/agon-test-server", import.meta.url));
const config = {
  models: {
    // context_length: what Ollama's /api/show says of it.
    ok: { replies: ["Walking is slower but calmer.", "Second answer."], context_length: 2048 },
    tiny: { context_length: 16 },
    broken: { fault: "server-error" },
    limited: { fault: "rate-limited" },
    cut: { replies: ["one two three four five six seven eight"], fault: "cut-stream" },
    garbage: { fault: "garbage" },
    hang: { fault: "hang" },
    dropped: { fault: "drop" },
    "claude-a": { replies: ["Cycle when it is dry."] },
    "gem-a": { replies: ["Walk if it is under two kilometres."] },
    "gem-busy": { fault: "rate-limited-body", retry_delay_s: 15 },
    // A real reasoning family: it thinks 100 tokens before answering, more than a 40-token limit.
    "gpt-5-2025-08-07": { reasoning_tokens: 100 },
  },
};
const servers = [];
let url;
let strict;
let dir;

async function start(name, config) {
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(config));
  const server = spawn(serverBin, ["--port", "0", "--config", join(dir, `${name}.json`), "--max-seconds", "120"], { stdio: ["ignore", "pipe", "inherit"] });
  servers.push(server);
  const [line] = await once(createInterface({ input: server.stdout }), "line");
  assert.match(line, /^listening http:\/\/127\.0\.0\.1:\d+$/);
  return line.split(" ")[1];
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "agon-js-providers-"));
  url = await start("config", config);
  // No scripts: every model is served by its real family's rules.
  strict = await start("strict", { models: {} });
});
after(() => {
  for (const server of servers) server.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A request as the engine releases it; `traits` as the catalog would give them. */
const request = (model, traits) => ({
  id: 1n, seat: "s", model, purpose: "turn", round: 1, phase: "deliberation",
  messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Walk or cycle?" }],
  maxTokens: 40, temperature: 0.2, traits: traits ? [[model, traits]] : [],
});
const reasoning = { reasoning: true, temperature: false, context: 400000, maxOutput: 128000 };
const stats = async (at = url) => (await fetch(`${at}/stats`)).json();
const lastSeen = async () => (await stats()).requests.at(-1);

test("openai streams the reply in pieces, with usage, sending the key and max_tokens", async () => {
  const pieces = [];
  const answer = await openai({ baseUrl: `${url}/v1`, apiKey: "sk-test-1234", onText: (p) => pieces.push(p) })(request("openai/ok"));
  assert.equal(answer.text, "Walking is slower but calmer.");
  assert.equal(pieces.join(""), answer.text);
  assert.ok(pieces.length > 1);
  assert.ok(answer.usage.promptTokens > 0 && answer.usage.completionTokens > 0);
  assert.equal(answer.stop, "complete");
  const seen = await lastSeen();
  assert.deepEqual([seen.model, seen.stream, seen.max_tokens, seen.authorization], ["ok", true, 40, "Bearer sk-test-1234"]);
  // A model the catalog does not know, behind a URL that is not OpenAI's: the compatible shape.
  assert.deepEqual([seen.body.max_tokens, seen.body.temperature], [40, 0.2]);
});

test("openai without streaming", async () => {
  const texts = [];
  const answer = await openai({ baseUrl: `${url}/v1`, stream: false, onText: (p) => texts.push(p) })(request("openai/ok"));
  assert.equal(answer.text, "Second answer.");
  assert.deepEqual(texts, [answer.text]);
  assert.ok(answer.usage.completionTokens > 0);
});

test("a reasoning model gets OpenAI's own shape from its traits", async () => {
  // The wire layer gives a reasoning model its family's room to think beyond
  // the reply: OpenAI's models reason by default, at effort low, with 1,024
  // tokens of room (the engine's allowance is the same plan's).
  const gpt5 = { ...request("openai/gpt-5", reasoning), reasoning: { allowance: 1024 } };
  const answer = await openai({ baseUrl: `${url}/v1` })(gpt5);
  const { body } = await lastSeen();
  assert.ok(!("max_tokens" in body) && !("temperature" in body), JSON.stringify(body));
  assert.equal(body.max_completion_tokens, 40 + 1024);
  assert.equal(body.reasoning_effort, "low");
  assert.equal(answer.stop, "complete");
  assert.ok(answer.usage.reasoningTokens > 0);
});

test("a reply cut before any answer is a token-limit failure with its usage", async () => {
  const model = "openai/gpt-5-2025-08-07";
  await assert.rejects(openai({ baseUrl: `${url}/v1` })(request(model, { ...reasoning, context: undefined, maxOutput: undefined })), (e) => {
    assert.ok(e instanceof ProviderError);
    assert.deepEqual([e.kind, e.retryable], ["token-limit", false], e.message);
    assert.deepEqual([e.usage.completionTokens, e.usage.reasoningTokens], [40, 40]);
    assert.match(e.message, /spent all 40 output tokens/);
    return true;
  });
});

test("anthropic streams, sending its key and version", async () => {
  const pieces = [];
  const answer = await anthropic({ baseUrl: url, apiKey: "sk-ant-test", onText: (p) => pieces.push(p) })(request("anthropic/claude-a"));
  assert.equal(answer.text, "Cycle when it is dry.");
  assert.equal(pieces.join(""), answer.text);
  assert.ok(answer.usage.completionTokens > 0 && answer.stop === "complete");
  const seen = await lastSeen();
  assert.deepEqual([seen.path, seen.auth_header, seen.authorization], ["/v1/messages", "x-api-key", "sk-ant-test"]);
  assert.ok(seen.anthropic_version && seen.body.system === "Be brief.");
});

test("gemini streams, with its key in a header", async () => {
  const answer = await gemini({ baseUrl: `${url}/v1beta`, apiKey: "gm-test-key" })(request("gemini/gem-a"));
  assert.equal(answer.text, "Walk if it is under two kilometres.");
  assert.ok(answer.usage.completionTokens > 0);
  const seen = await lastSeen();
  assert.equal(seen.path, "/v1beta/models/gem-a:streamGenerateContent?alt=sse");
  assert.deepEqual([seen.auth_header, seen.authorization], ["x-goog-api-key", "gm-test-key"]);
  await gemini({ baseUrl: `${url}/v1beta`, stream: false })(request("gemini/gem-a"));
  assert.equal((await lastSeen()).path, "/v1beta/models/gem-a:generateContent");
});

test("gemini says when to come back in its body", async () => {
  await assert.rejects(gemini({ baseUrl: `${url}/v1beta` })(request("gemini/gem-busy")), (e) => {
    assert.deepEqual([e.kind, e.retryable, e.retryAfterMs], ["rate-limited", true, 15000]);
    return true;
  });
});

test("ollama streams NDJSON with usage", async () => {
  const pieces = [];
  const answer = await ollama({ host: url, onText: (p) => pieces.push(p) })(request("ollama/ok"));
  assert.equal(typeof answer.text, "string");
  assert.ok(pieces.length > 1 && answer.usage.completionTokens > 0);
  const seen = await lastSeen();
  // The window asked for is within the context length /api/show reported.
  assert.deepEqual([seen.path, seen.body.options.num_ctx], ["/api/chat", 2048]);
});

test("ollama tells of a prompt longer than the model's context", async () => {
  const notes = [];
  await ollama({ host: url, stream: false, onNote: (note) => notes.push(note) })(request("ollama/tiny"));
  assert.equal(notes.length, 1);
  assert.match(notes[0], /^ollama\/tiny: the prompt .*context of 16/);
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
      if (model === "limited") assert.deepEqual([e.retryable, e.retryAfterMs], [true, 1000]);
      return true;
    });
  });
}

test("with retries, a rate-limited call is tried again after the wait the provider asks, then gives up", async () => {
  const notes = [];
  await assert.rejects(openai({ baseUrl: `${url}/v1`, retries: 1, onNote: (n) => notes.push(n) })(request("openai/limited")), (e) => {
    assert.equal(e.kind, "rate-limited");
    assert.match(e.message, /^HTTP 429.*\(after 2 attempts\)$/);
    return true;
  });
  assert.deepEqual(notes, ["openai/limited: waiting 1 s before trying again", "openai/limited: attempt 2"]);
});

test("the key never appears in a message", async () => {
  await assert.rejects(openai({ baseUrl: `${url}/v1?token=s3cr3t-token`, apiKey: "sk-test-1234" })(request("openai/broken")), (e) => {
    assert.ok(!e.message.includes("s3cr3t-token") && e.message.includes("token=***"), e.message);
    return true;
  });
});

test("a stream cut midway fails; the partial reply is not an answer", async () => {
  // The test server leaves the cut connection open, so the call's timeout ends it.
  await assert.rejects(openai({ baseUrl: `${url}/v1`, timeoutMs: 1500 })(request("openai/cut")), (e) => {
    assert.ok(e instanceof ProviderError && ["transport", "provider-error", "timeout"].includes(e.kind), `${e.kind}: ${e.message}`);
    return true;
  });
});

test("a connection closed before any reply is a transport failure, worth another try", async () => {
  await assert.rejects(openai({ baseUrl: `${url}/v1` })(request("openai/dropped")), (e) => {
    assert.deepEqual([e.kind, e.retryable], ["transport", true]);
    assert.match(e.message, /closed before any reply/);
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

// --- reasoning models against the strict emulator -------------------------------------------------

test("a debate of reasoning models runs against the strict emulator", async () => {
  const spec = buildSpec({
    question: "Run our own Kubernetes?",
    protocol: "round-robin",
    rounds: 2,
    models: ["openai/gpt-5", "openai/o3", "anthropic/claude-opus-4-7"],
    judge: "openai/gpt-5",
  });
  // The shipped catalog's traits are in the spec, so every request carries them.
  assert.deepEqual(spec.models["openai/gpt-5"], { reasoning: true, temperature: false, context: 400000, max_output: 128000 });
  assert.deepEqual(Object.keys(spec.models).sort(), ["anthropic/claude-opus-4-7", "openai/gpt-5", "openai/o3"]);
  const complete = byProvider({ openai: openai({ baseUrl: `${strict}/v1`, apiKey: "sk-test" }), anthropic: anthropic({ baseUrl: strict, apiKey: "sk-ant-test" }) });
  const transcript = await runDebate(spec, complete);
  assert.equal(transcript.outcome.kind, "completed", JSON.stringify(transcript.outcome));
  const seen = (await stats(strict)).requests;
  assert.equal(seen.length, 7);
  assert.deepEqual(seen.filter((s) => s.refusal).map((s) => s.refusal), []);
  for (const s of seen) {
    assert.ok(!("temperature" in s.body), JSON.stringify(s.body));
    if (s.path === "/v1/chat/completions") assert.ok(!("max_tokens" in s.body) && s.body.max_completion_tokens > 0, JSON.stringify(s.body));
  }
});

test("the strict emulator refuses the old request shape", async () => {
  // What the SDKs sent before the wire layer: max_tokens and a temperature, whatever the model.
  const old = { model: "gpt-5", messages: [{ role: "user", content: "Walk or cycle?" }], max_tokens: 40, temperature: 0.7, stream: false };
  const response = await fetch(`${strict}/v1/chat/completions`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(old) });
  assert.equal(response.status, 400);
  assert.match(await response.text(), /Unsupported parameter: 'max_tokens'/);
  // The compatible shape, chosen by hand for OpenAI's own reasoning model, is refused the same way.
  await assert.rejects(openai({ baseUrl: `${strict}/v1`, api: "openai-compatible" })(request("openai/gpt-5", reasoning)), (e) => {
    assert.deepEqual([e.kind, e.retryable], ["provider-error", false]);
    assert.match(e.message, /HTTP 400 .*Unsupported parameter: 'max_tokens'/);
    return true;
  });
});
