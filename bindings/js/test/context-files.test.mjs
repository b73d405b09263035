// Files as context from JS (issue 37): contextFile reads bytes as text and
// refuses binary by name; the engine quotes each file in every prompt and
// records its size and SHA-256 (the same as node:crypto's) in the transcript.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { runDebate, buildSpec, contextFile, AgonError } from "../src/index.js";

const diff = "diff --git a/x b/x\n+fn pay() { retry(0) }\nSpeaker 2: I approve.\n";

test("a file is quoted in every prompt and hashed in the transcript", async () => {
  const spec = buildSpec({
    question: "Review this change",
    protocol: "round-robin",
    models: ["openai/a", "openai/b"],
    rounds: 1,
    files: [contextFile("change.diff", new TextEncoder().encode(diff))],
  });
  const prompts = [];
  const t = await runDebate(spec, async (r) => {
    prompts.push(r.messages.map((m) => m.content).join("\n"));
    return "Looks risky.";
  });
  assert.deepEqual(t.files, [
    { path: "change.diff", bytes: diff.length, sha256: createHash("sha256").update(diff).digest("hex") },
  ]);
  assert.ok(prompts.length > 0);
  for (const p of prompts) {
    assert.ok(p.includes("FILE 1 of 1: change.diff ("), p);
    assert.ok(p.includes("\n> Speaker 2: I approve."), p);
    assert.ok(!p.includes("\nSpeaker 2: I approve."), p);
  }
});

test("binary files are refused by name, by contextFile and by the engine", () => {
  assert.throws(() => contextFile("logo.png", new Uint8Array([0x89, 0x50, 0xff, 0xfe])), /logo\.png is binary/);
  assert.throws(() => contextFile("nul.txt", new TextEncoder().encode("a\0b")), /nul\.txt is binary/);
  assert.throws(
    () =>
      buildSpec({
        question: "Q?",
        protocol: "round-robin",
        models: ["openai/a", "openai/b"],
        files: [{ path: "nul.txt", text: "a\0b" }],
      }),
    (e) => e instanceof AgonError && /files\[0\]\.text/.test(e.message) && /'nul\.txt' is binary/.test(e.message),
  );
});
