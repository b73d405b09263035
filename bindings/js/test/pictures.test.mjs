// The engine's pictures through the component: the same bytes as the core's
// blessed pictures in tests/pictures/, so a JS host shows what the CLI writes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Session, timelineSvg } from "../src/index.js";

const root = fileURLToPath(new URL("../../../tests/", import.meta.url));
const read = (path) => readFileSync(root + path, "utf8");

test("a replayed golden journal draws the blessed stance map", () => {
  const case_ = "rotating-challenger-judge-overrules";
  const session = Session.fromJournal(read(`golden/${case_}/journal.ndjson`));
  assert.deepEqual(session.pictures(), [["stance-map.svg", read(`pictures/${case_}/stance-map.svg`)]]);
});

test("timings draw the blessed timeline; none draw nothing", () => {
  assert.equal(timelineSvg(read("pictures/timeline/timings.ndjson")), read("pictures/timeline/timeline.svg"));
  assert.equal(timelineSvg(""), null);
});
