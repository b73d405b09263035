// The JS SDK's engine overhead: the bench's 5-seat, 5-round debate replayed
// from scripted replies on the raw Session, with the golden replay rule.
//   node bench/sdk/debate.mjs SPEC.json SCRIPT.json RUNS   → {"median_ms": …, "runs": …}
import { readFileSync } from "node:fs";
import { Session } from "../../bindings/js/src/index.js";

const [specPath, scriptPath, runsArg] = process.argv.slice(2);
const spec = readFileSync(specPath, "utf8");
const script = JSON.parse(readFileSync(scriptPath, "utf8"));
const runs = Number(runsArg ?? 10);
const samePhase = (a, b) => a.replaceAll("_", "-") === b.replaceAll("_", "-");

function play() {
  const session = Session.create(spec);
  const used = new Array(script.length).fill(false);
  const outstanding = [];
  for (;;) {
    let output;
    while ((output = session.poll()).tag === "request" || output.tag === "event") {
      if (output.tag === "request") outstanding.push(output.val);
    }
    if (output.tag === "done") return;
    let pick;
    for (let i = 0; i < script.length && !pick; i++) {
      if (used[i]) continue;
      const e = script[i];
      const k = outstanding.findIndex((r) => r.seat === e.seat && samePhase(r.phase, e.phase) && r.round === e.round);
      if (k >= 0) pick = { i, k };
    }
    if (!pick) throw new Error("the script does not cover the debate");
    used[pick.i] = true;
    const [request] = outstanding.splice(pick.k, 1);
    session.handle({ tag: "reply", val: { id: request.id, text: script[pick.i].text ?? "" } });
  }
}

play(); // warm-up: the first run pays for compiling the module
const times = [];
for (let n = 0; n < runs; n++) {
  const t = process.hrtime.bigint();
  play();
  times.push(Number(process.hrtime.bigint() - t) / 1e6);
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({ median_ms: times[Math.floor(times.length / 2)], runs }));
