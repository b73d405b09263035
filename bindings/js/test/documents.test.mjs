// A protocol of one's own through the JS SDK: a spec carrying a protocol
// document passes through unchanged, and the guide's red/blue example
// (tests/golden/red-blue-document, built from examples/protocols/red-blue.toml)
// runs from its golden-style scripted replies to the golden transcript.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { runDebate, validateSpec, buildSpec, checkDocument, documentInfo, protocolDocuments, protocols, AgonError } from "../src/index.js";

const dir = fileURLToPath(new URL("../../../tests/golden/red-blue-document/", import.meta.url));
const read = (file) => readFileSync(dir + file, "utf8");

test("a spec with a protocol document passes through unchanged", () => {
  const spec = JSON.parse(read("spec.json"));
  const normalized = JSON.parse(validateSpec(spec));
  assert.deepEqual(normalized.protocol, spec.protocol);
  // buildSpec takes the document as the option `document`, as every host does.
  const built = buildSpec({ question: spec.question, protocol: "red-blue", models: ["openai/m"], options: { document: spec.protocol.document } });
  assert.deepEqual(built.protocol.document, spec.protocol.document);
  assert.equal(built.panel.length, 3, "one model plays every seat of a fixed-size document");
  // A mistake is named by its JSON path.
  const broken = structuredClone(spec);
  broken.protocol.document.phases[1].turns[0].prompt.user = "{question}{histroy}";
  assert.throws(() => validateSpec(broken), (e) => e instanceof AgonError && e.detail.field === "protocol.document.phases[1].turns[0].prompt.user");
});

test("checkDocument checks a document alone; protocolDocuments are starting points", () => {
  const { document } = JSON.parse(read("spec.json")).protocol;
  assert.equal(JSON.parse(checkDocument(document)).quorum, "spec", "defaults are written out");
  const broken = structuredClone(document);
  broken.phases[0].turns[0].prompt.system = "{persona}{histroy}";
  assert.throws(() => checkDocument(broken), (e) => e instanceof AgonError && e.detail.field === "protocol.phases[0].turns[0].prompt.system");
  const info = documentInfo(document);
  assert.deepEqual([info.name, info.minSeats, info.maxSeats, info.maxRounds], ["red-blue", 3, 3, 3]);
  // Every document takes stop_when_unchanged; red-blue nothing more.
  assert.deepEqual(info.options.map((o) => o.name), ["stop_when_unchanged"], "no adversary, no consensus stop");
  assert.ok(!info.readsAgreement, "no consensus stop");
  const ranked = new Map(protocolDocuments()).get("ranked");
  assert.deepEqual(documentInfo(ranked), protocols().find((p) => p.name === "ranked"), "a built-in document reads as the catalog lists it");
  const names = protocolDocuments().map(([name, text]) => (checkDocument(text), name));
  assert.ok(names.includes("round-robin") && names.includes("ranked") && !names.includes("priority-vote"), names.join(", "));
});

test("the red/blue example runs from its scripted replies to the golden transcript", async () => {
  const script = JSON.parse(read("script.json"));
  const used = new Set();
  const transcript = await runDebate(read("spec.json"), async (request) => {
    const i = script.findIndex((e, k) => !used.has(k) && e.seat === request.seat && e.phase === request.phase && e.round === request.round);
    assert.ok(i >= 0, `no script entry for ${request.seat} ${request.phase} ${request.round}`);
    used.add(i);
    return { text: script[i].text };
  });
  assert.deepEqual(transcript, JSON.parse(read("transcript.json")));
  // Worked out from the script: no red flaw is fatal in round 2, so the stop ends it there.
  assert.equal(transcript.outcome.rounds_run, 2);
  assert.deepEqual(transcript.results.verdict, { kind: "document", data: "Ship after a rollback drill." });
  assert.equal(transcript.results.critique.kind, "table");
  assert.deepEqual(transcript.results.critique.data.map((c) => c.fields.fatal), [true, true, false, false]);
});
