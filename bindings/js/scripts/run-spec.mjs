// Run one debate from a spec file through the JS SDK and write what a host
// writes: the transcript JSON (the engine's bytes) and the NDJSON events.
// The cross-host test (bindings/python/tests/test_cross_host.py) calls it.
//
//   node run-spec.mjs SPEC.json openai|ollama BASE_URL OUT_DIR
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Session, drive, openai, ollama } from "../src/index.js";

const [specPath, provider, baseUrl, outDir] = process.argv.slice(2);
const complete = provider === "ollama" ? ollama({ host: baseUrl }) : openai({ baseUrl, apiKey: process.env.OPENAI_API_KEY });
const session = Session.create(readFileSync(specPath, "utf8"));
let events = "";
const outcome = await drive(session, complete, { onEvent: (e) => (events += `${e.json}\n`) });
writeFileSync(join(outDir, "transcript.json"), session.transcriptJson());
writeFileSync(join(outDir, "events.ndjson"), events);
console.log(outcome.kind);
