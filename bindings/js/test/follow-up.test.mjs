// A follow-up from JS (issue 37): buildSpec takes a finished transcript as
// `follows`, and the engine — not this package — quotes the parent's
// synthesis in every prompt and names the parent in the child's transcript.
import { test } from "node:test";
import assert from "node:assert/strict";
import { runDebate, buildSpec, contextFile, AgonError } from "../src/index.js";

const request = { protocol: "round-robin", models: ["openai/a", "openai/b"], rounds: 1 };

test("a follow-up quotes its parent's synthesis and names it", async () => {
  const parent = await runDebate(buildSpec({ ...request, question: "Tabs or spaces?" }), async () => "Tabs win.");
  const spec = buildSpec({ ...request, question: "How wide?", follows: { session: "s-1", transcript: parent } });
  const prompts = [];
  const child = await runDebate(spec, async (r) => {
    prompts.push(r.messages.map((m) => m.content).join("\n"));
    return "Four.";
  });
  assert.equal(child.parent.session, "s-1");
  assert.ok(prompts.length > 0);
  for (const p of prompts) {
    assert.ok(p.includes("EARLIER DEBATE (session s-1;"), p);
    assert.ok(p.includes("The judge's synthesis:\n> Tabs win."), p);
  }
});

test("an unfinished parent is refused by name", () => {
  assert.throws(
    () =>
      buildSpec({
        ...request,
        question: "How wide?",
        follows: { session: "s-1", transcript: { question: "Tabs?", outcome: null } },
      }),
    (e) => e instanceof AgonError && /follows\.transcript\.outcome/.test(e.message) && /agon resume s-1/.test(e.message),
  );
});

test("a follow-up reads its parent's files, each held to the transcript's hash", async () => {
  const diff = contextFile("change.diff", new TextEncoder().encode("+fn pay() { retry(0) }\n"));
  const parentSpec = buildSpec({ ...request, question: "Review this change", files: [diff] });
  const parent = await runDebate(parentSpec, async () => "Looks fine.");
  const follows = { session: "s-1", transcript: parent, files: parentSpec.files };
  const prompts = [];
  const child = await runDebate(buildSpec({ ...request, question: "Is the retry safe?", follows }), async (r) => {
    prompts.push(r.messages.map((m) => m.content).join("\n"));
    return "Yes.";
  });
  assert.deepEqual(child.files, parent.files);
  assert.ok(prompts.length > 0 && prompts.every((p) => p.includes("> +fn pay() { retry(0) }")));
  const altered = { ...follows, files: [contextFile("change.diff", new TextEncoder().encode("+fn pay() { retry(3) }\n"))] };
  assert.throws(
    () => buildSpec({ ...request, question: "Is the retry safe?", follows: altered }),
    (e) => e instanceof AgonError && /follows\.files\[0\]: change\.diff: not the file/.test(e.message),
  );
});
