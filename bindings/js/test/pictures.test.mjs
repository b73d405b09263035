// The pictures through the report component: the same bytes as the core's
// blessed pictures in tests/pictures/, so a JS host shows what the CLI writes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Session } from "../src/index.js";
import { pictures, timelineSvg } from "../src/report.js";

const root = fileURLToPath(new URL("../../../tests/", import.meta.url));
const read = (path) => readFileSync(root + path, "utf8");
const cases = readdirSync(root + "pictures").filter((c) => existsSync(`${root}golden/${c}`)).sort();

test("the blessed pictures have golden cases", () => {
  assert.ok(cases.length >= 6, `found ${cases}`);
});

for (const case_ of cases) {
  test(`a replayed golden journal draws the blessed pictures: ${case_}`, () => {
    const session = Session.fromJournal(read(`golden/${case_}/journal.ndjson`));
    const drawn = Object.fromEntries(pictures(session));
    const blessed = Object.fromEntries(
      readdirSync(`${root}pictures/${case_}`)
        .filter((f) => f.endsWith(".svg"))
        .map((f) => [f, read(`pictures/${case_}/${f}`)]),
    );
    assert.deepEqual(drawn, blessed);
  });
}

test("timings draw the blessed timeline; none draw nothing", () => {
  assert.equal(timelineSvg(read("pictures/timeline/timings.ndjson")), read("pictures/timeline/timeline.svg"));
  assert.equal(timelineSvg(""), null);
  // The debate's question heads it, escaped.
  const headed = timelineSvg(read("pictures/timeline/timings.ndjson"), "Ship <it> on Friday?");
  assert.match(headed, /<text class="question" x="8" y="38" fill="#333333">Ship &lt;it&gt; on Friday\?<\/text>/);
});
