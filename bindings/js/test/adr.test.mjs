// The Architecture Decision Record through the report component: a replayed golden
// journal gives the bytes kept in tests/adr/, the ones `agon export --format
// adr` writes, so a JS host hands a team the same record as the CLI.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Session } from "../src/index.js";
import { adrMarkdown } from "../src/report.js";

const root = fileURLToPath(new URL("../../../tests/", import.meta.url));
const read = (path) => readFileSync(root + path, "utf8");
const cases = readdirSync(root + "adr").filter((f) => f.endsWith(".md")).map((f) => f.slice(0, -3)).sort();

test("the kept ADRs have golden cases", () => {
  assert.ok(cases.length >= 6, `found ${cases}`);
});

for (const case_ of cases) {
  test(`a replayed golden journal renders the kept ADR: ${case_}`, () => {
    const session = Session.fromJournal(read(`golden/${case_}/journal.ndjson`));
    assert.equal(adrMarkdown(session), read(`adr/${case_}.md`));
  });
}
