// The page to share, through the report component: a golden transcript gives
// the page kept in tests/html/, byte for byte, the one `agon export --format
// html` and the browser page write.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Session } from "../src/index.js";
import { htmlPage } from "../src/report.js";

const root = fileURLToPath(new URL("../../../tests/", import.meta.url));
const read = (path) => readFileSync(root + path, "utf8");
const cases = readdirSync(root + "html").filter((f) => f.endsWith(".html")).map((f) => f.slice(0, -5)).sort();

test("the kept pages have golden cases", () => {
  assert.ok(cases.length >= 6, `found ${cases}`);
});

for (const case_ of cases) {
  test(`a golden transcript renders the kept page: ${case_}`, () => {
    assert.equal(htmlPage(read(`golden/${case_}/transcript.json`)), read(`html/${case_}.html`));
  });
}

test("a replayed session renders the same page as its transcript", () => {
  const case_ = cases[0];
  const session = Session.fromJournal(read(`golden/${case_}/journal.ndjson`));
  assert.equal(htmlPage(session), read(`html/${case_}.html`));
});

test("timings add the call timeline to the page", () => {
  const page = htmlPage(read(`golden/${cases[0]}/transcript.json`), read("pictures/timeline/timings.ndjson"));
  assert.notEqual(page, read(`html/${cases[0]}.html`));
  assert.match(page, /timeline/);
});

test("a text that is not a transcript is refused, naming what is wrong", () => {
  assert.throws(() => htmlPage('{"version": 2}'), /not a transcript/);
  assert.throws(() => htmlPage("not json"), /not a transcript/);
});
