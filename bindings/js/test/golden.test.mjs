// Every golden case in tests/golden/, replayed through the transpiled component
// with the golden replay rule (agon_core::script), compared byte for byte.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Session, drive, AgonError, validateSpec, buildSpec, catalog, estimate, protocols, parseRole, builtinRoles } from "../src/index.js";
import { resultsMarkdown, transcriptMarkdown } from "../src/report.js";

const goldenDir = fileURLToPath(new URL("../../../tests/golden/", import.meta.url));
const cases = readdirSync(goldenDir, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(goldenDir, d.name, "script.json")))
  .map((d) => d.name)
  .sort();
const read = (name, file) => readFileSync(join(goldenDir, name, file), "utf8");

// Script phases are written as the core serializes them; WIT enum cases are kebab-case.
const sameName = (a, b) => a.replaceAll("_", "-") === b.replaceAll("_", "-");
// A script's usage (snake_case, as the core writes it) as the WIT record: camelCase.
const usageOf = (u) => u && Object.fromEntries(Object.entries(u).map(([k, v]) => [k.replace(/_(.)/g, (_, c) => c.toUpperCase()), v]));
const stopOf = (s) => s?.replaceAll("_", "-");

/** The golden replay rule, step by step, on the raw Session. */
function replay(spec, script) {
  const session = Session.create(spec);
  const used = new Array(script.length).fill(false);
  const outstanding = [];
  const events = [];
  let journal = session.journal();
  for (;;) {
    // 1. Drain poll until idle or done.
    let output;
    while ((output = session.poll()).tag === "request" || output.tag === "event") {
      if (output.tag === "request") outstanding.push(output.val);
      else events.push(output.val.json);
    }
    if (output.tag === "done") return { session, events, journal, outcome: output.val };
    // 2. The first unused entry that matches an outstanding request answers it.
    let pick;
    for (let i = 0; i < script.length && !pick; i++) {
      if (used[i]) continue;
      const e = script[i];
      const k = outstanding.findIndex((r) => r.seat === e.seat && sameName(r.phase, e.phase) && r.round === e.round);
      if (k >= 0) pick = { i, k };
    }
    assert.ok(pick, `the script has no entry for ${outstanding.map((r) => `${r.seat} ${r.phase} ${r.round}`).join(", ")}`);
    used[pick.i] = true;
    const [request] = outstanding.splice(pick.k, 1);
    const entry = script[pick.i];
    // As agon_core::script's `input_for`: a reply with its usage and why it stopped,
    // a failure with what it billed all the same.
    const input = entry.fail
      ? { tag: "failed", val: { id: request.id, kind: entry.fail.kind.replaceAll("_", "-"), message: entry.fail.message, usage: usageOf(entry.usage) } }
      : { tag: "reply", val: { id: request.id, text: entry.text ?? "", usage: usageOf(entry.usage), stop: stopOf(entry.stop), model: entry.model } };
    // 3. Repeat until done.
    journal += session.handle(input);
  }
}

test("there are golden cases to replay", () => {
  assert.ok(cases.length >= 6, `found ${cases.length} cases in ${goldenDir}`);
});

for (const name of cases) {
  test(`golden case ${name} replays byte for byte`, () => {
    const { session, events, journal } = replay(read(name, "spec.json"), JSON.parse(read(name, "script.json")));
    assert.equal(events.map((e) => `${e}\n`).join(""), read(name, "events.ndjson"), "events");
    assert.equal(journal, read(name, "journal.ndjson"), "journal from handle()");
    assert.equal(session.journal(), read(name, "journal.ndjson"), "journal()");
    assert.equal(session.transcriptJson(), read(name, "transcript.json"), "transcript.json");
    assert.equal(transcriptMarkdown(session), read(name, "transcript.md"), "transcript.md");
    // The results alone are the transcript's own Results section, not a second rendering.
    const results = resultsMarkdown(session);
    const md = read(name, "transcript.md");
    assert.ok(results ? md.includes(`## Results\n\n${results}`) : !md.includes("## Results"), "resultsMarkdown()");
    // The cost, as the engine tells it: the total only when every seat that called was priced.
    const usage = JSON.parse(session.transcriptJson()).usage;
    const unpriced = usage.seats.filter((s) => s.cost_micro_usd === undefined).map((s) => ({ seat: s.seat, model: s.model }));
    const cost = session.costSummary();
    assert.deepEqual(cost.unpriced, unpriced, "costSummary().unpriced");
    const total = unpriced.length ? undefined : BigInt(usage.total.cost_micro_usd ?? 0);
    assert.equal(cost.costMicroUsd, total, "costSummary().costMicroUsd");
    session[Symbol.dispose]();
  });

  test(`golden case ${name} resumes from its journal`, () => {
    const session = Session.fromJournal(read(name, "journal.ndjson"));
    while (session.poll().tag !== "done");
    assert.equal(session.transcriptJson(), read(name, "transcript.json"));
  });
}

// pollJson() is for hosts where each value across the boundary is costly (the Python SDK
// uses it); here it must carry what poll() gives, output for output.
const camel = (tag) => tag.replace(/(^|-)(.)/g, (_, __, c) => c.toUpperCase());
for (const name of cases) {
  test(`golden case ${name}: pollJson() gives what poll() gives`, () => {
    const journal = read(name, "journal.ndjson");
    const one = Session.fromJournal(journal);
    const byPoll = [];
    do byPoll.push(one.poll());
    while (byPoll.at(-1).tag !== "done");
    const bulk = Session.fromJournal(journal);
    const byJson = [];
    do byJson.push(...JSON.parse(bulk.pollJson()));
    while (byJson.at(-1) !== "Idle" && !byJson.at(-1).Done);
    assert.equal(byJson.length, byPoll.length);
    byPoll.forEach((o, i) => {
      const j = byJson[i];
      if (o.tag === "idle") return assert.equal(j, "Idle");
      const val = j[camel(o.tag)];
      assert.ok(val, `output ${i}: ${o.tag}`);
      if (o.tag === "event") assert.equal(val.json, o.val.json);
      if (o.tag === "request") assert.deepEqual([val.id, val.seat, val.messages.length], [o.val.id, o.val.seat, o.val.messages.length]);
      if (o.tag === "done") assert.deepEqual([val.headline, val.rounds_run], [o.val.headline, o.val.roundsRun]);
    });
  });
}

// rotating-challenger: concurrent batches; round-robin-reasoning-cut: stop and usage go through drive().
for (const name of [cases.find((c) => c.startsWith("rotating-challenger")), "round-robin-reasoning-cut"]) test(`drive() with a scripted complete() gives the golden transcript of ${name}, whatever the reply order`, async () => {
  const script = JSON.parse(read(name, "script.json"));
  const used = new Set();
  const session = Session.create(read(name, "spec.json"));
  const seen = [];
  let delay = 12;
  await drive(
    session,
    async (request) => {
      const i = script.findIndex((e, i) => !used.has(i) && e.seat === request.seat && sameName(e.phase, request.phase) && e.round === request.round);
      assert.ok(i >= 0, `no script entry for ${request.seat}`);
      used.add(i);
      // Later requests answer sooner, so replies arrive out of order.
      await new Promise((r) => setTimeout(r, (delay = Math.max(0, delay - 3))));
      const e = script[i];
      if (e.fail) throw Object.assign(new Error(e.fail.message), { kind: e.fail.kind.replaceAll("_", "-"), usage: usageOf(e.usage) });
      return { text: e.text ?? "", usage: usageOf(e.usage), stop: stopOf(e.stop) };
    },
    { onEvent: (e) => seen.push(e.json) },
  );
  assert.equal(session.transcriptJson(), read(name, "transcript.json"));
  assert.equal(seen.length > 0, true);
});

test("a bad spec throws an AgonError with the core's message", () => {
  const protocol = { name: "round-robin" };
  assert.throws(() => Session.create(JSON.stringify({ question: "q", panel: [], protocol })), (e) => {
    assert.ok(e instanceof AgonError);
    assert.equal(e.kind, "invalid-spec");
    assert.equal(e.detail.field, "panel");
    assert.match(e.message, /^invalid spec: /);
    return true;
  });
  // A missing field is named too, not left as the empty top-level path.
  assert.throws(() => Session.create('{"question": "q", "panel": []}'), (e) => e.detail.field === "protocol");
  assert.throws(() => validateSpec("not json"), AgonError);
});

test("an unknown request id is an AgonError and changes nothing", () => {
  const session = Session.create(read(cases[0], "spec.json"));
  while (session.poll().tag !== "idle");
  const before = session.journal();
  assert.throws(() => session.handle({ tag: "reply", val: { id: 999n, text: "x" } }), {
    name: "AgonError",
    message: "no request with id 999 was released",
  });
  // On wasm32 a usize cast would make 2^32 + 1 alias request 1.
  assert.throws(() => session.handle({ tag: "reply", val: { id: 2n ** 32n + 1n, text: "x" } }), {
    name: "AgonError",
    message: "no request with id 4294967297 was released",
  });
  assert.equal(session.journal(), before);
});

test("estimate bounds a priced spec before it runs", () => {
  // round-robin-priced: 3 seats × 2 rounds + the judge; every model priced.
  const e = estimate(read("round-robin-priced", "spec.json"));
  assert.equal(e.calls, 7);
  assert.equal(e.completionTokens, 6n * 200n + 400n);
  assert.ok(e.costMicroUsd > 0n, String(e.costMicroUsd));
  assert.deepEqual(e.unpriced, []);
  assert.throws(() => estimate("{}"), AgonError);
});

test("protocols lists what the engine offers", () => {
  const names = protocols().map((p) => p.name);
  assert.ok(names.includes("round-robin") && names.includes("rotating-challenger"), names.join(", "));
});

test("the built-in role files parse; a bad one is an AgonError naming its line", () => {
  const roles = builtinRoles().map(parseRole);
  assert.equal(roles.length, 5);
  assert.ok(roles.every((r) => r.roleId && r.model));
  assert.throws(() => parseRole("no frontmatter here"), (e) => e instanceof AgonError && /^invalid role file at line \d+: /.test(e.message));
});

test("seat ids and role-council's roles come from the engine, as in every host", () => {
  const spec = buildSpec({ question: "q", protocol: "round-robin", models: ["openrouter/google/gemini-2.5-pro", "gemini/gemini-2.5-pro"], noJudge: true });
  assert.deepEqual(spec.panel.map((p) => p.id), ["gemini-2.5-pro", "gemini-2.5-pro-2"]);
  assert.equal(spec.judge, null);
  const council = buildSpec({ question: "q", protocol: "role-council", models: ["ollama/smollm2"] });
  assert.ok(council.panel.length >= 2 && council.panel.every((p) => p.persona && p.model === "ollama/smollm2"));
  assert.throws(() => buildSpec({ question: "q", protocol: "round-robin" }), (e) => e instanceof AgonError && e.detail.field === "models");
});

test("buildSpec takes the shipped catalog by default, another one, or none", () => {
  const choices = { question: "q", protocol: "round-robin", models: ["openai/gpt-5", "ollama/smollm2"] };
  const spec = buildSpec(choices);
  assert.deepEqual(spec.models, { "openai/gpt-5": { reasoning: true, temperature: false, context: 400000, max_output: 128000 } });
  assert.ok(spec.prices["openai/gpt-5"].output > 0);
  const none = buildSpec({ ...choices, catalog: null });
  // Without a catalog nothing is known of gpt-5 (a local model is still free).
  assert.ok(!("models" in none) && !("openai/gpt-5" in (none.prices ?? {})), JSON.stringify(none));
  const own = catalog();
  own.models["acme/x"] = { reasoning: false, temperature: true, price: { input: 1, output: 2 } };
  assert.deepEqual(buildSpec({ ...choices, models: ["acme/x"], catalog: own }).prices, { "acme/x": { input: 1, output: 2 } });
  assert.ok(!("acme/x" in catalog().models), "catalog() gives a copy");
});
