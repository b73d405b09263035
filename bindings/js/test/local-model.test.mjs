// The JS SDK end to end against the real local model (SmolLM2 through
// llama.cpp's server). scripts/test-sdk.sh starts the model and sets
// AGON_LOCAL_MODEL_URL; without it these tests are skipped.
import { test } from "node:test";
import assert from "node:assert/strict";
import { runDebate, openai } from "../src/index.js";

const baseUrl = process.env.AGON_LOCAL_MODEL_URL;
// Under CI a missing model is a failure, not a skip that would pass unseen.
const inCI = !["", "0", "false"].includes(process.env.CI ?? "");
const skip = !baseUrl && !inCI && "AGON_LOCAL_MODEL_URL is not set";
const spec = {
  question: "Is it better to walk or to cycle to work?",
  panel: [
    { id: "first", model: "openai/smollm2" },
    { id: "second", model: "openai/smollm2" },
    { id: "third", model: "openai/smollm2" },
  ],
  judge: { id: "judge", model: "openai/smollm2" },
  protocol: { name: "rotating-challenger" },
  rounds: 1,
  seed: 3,
  limits: { max_tokens: 60, judge_max_tokens: 80 },
};

test("a streamed rotating-challenger debate from the local model", { skip }, async () => {
  assert.ok(baseUrl, "AGON_LOCAL_MODEL_URL is not set (scripts/test-sdk.sh starts the local model)");
  const pieces = new Map();
  const events = [];
  const transcript = await runDebate(
    spec,
    openai({ baseUrl, onText: (piece, request) => pieces.set(request.id, (pieces.get(request.id) ?? 0) + 1) }),
    { onEvent: (e) => events.push(JSON.parse(e.json).type) },
  );
  assert.ok(["completed", "consensus"].includes(transcript.outcome.kind), JSON.stringify(transcript.outcome));
  assert.equal(transcript.turns.filter((t) => t.phase === "blind").length, 3);
  assert.ok(transcript.turns.some((t) => t.challenger));
  assert.ok(transcript.turns.every((t) => Number.isInteger(t.usage?.completion_tokens)), "usage on every turn");
  assert.ok(transcript.turns.map((t) => t.text).join("").length > 0, "the model said nothing at all");
  assert.ok(transcript.synthesis?.text, "the judge wrote a synthesis");
  assert.ok([...pieces.values()].some((n) => n > 1), "replies arrived in several streamed pieces");
  assert.equal(events.at(-1), "debate-ended");
});

test("an unreachable endpoint becomes a failure the transcript states (no model needed)", async () => {
  // Port 9 on 127.0.0.1 (discard) is closed here: every call fails fast.
  const transcript = await runDebate({ ...spec, judge: undefined }, openai({ baseUrl: "http://127.0.0.1:9/v1", timeoutMs: 5000 }));
  assert.ok(["no-quorum", "degraded"].includes(transcript.outcome.kind), JSON.stringify(transcript.outcome));
  assert.match(transcript.outcome.failures[0].message, /cannot reach http:\/\/127\.0\.0\.1:9\/v1\/chat\/completions/);
});
