// Real provider replies (tests/wire/recorded, tests/wire/held-out) read through the
// component's wire layer, with the rules of wire/tests/recorded.rs: every host reads
// them alike. Each body is fed whole and cut into chunks of 1 and of 7 bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { wire } from "../src/index.js";

const root = fileURLToPath(new URL("../../../tests/wire/", import.meta.url));
/** How many held-out fixtures read right the first time they were run (wire/tests/recorded.rs). */
const HELD_OUT_FIRST_READ = 11;
const URL_SHOWN = "http://provider";

function fixtures(folder) {
  const files = readdirSync(join(root, folder), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => readdirSync(join(root, folder, d.name)).filter((f) => f.endsWith(".json")).map((f) => join(d.name, f)))
    .sort();
  assert.ok(files.length > 0, `no fixtures under ${folder}`);
  return files;
}

/** One fixture's reply, its body cut into chunks of `size` bytes: `{ ok }` or `{ err }` (a wire-failure). */
function read(f, size) {
  const { status, body, headers } = f.response;
  if (status < 200 || status >= 300) return { err: wire.statusFailure(status, body, headers["retry-after"], URL_SHOWN, "") };
  const sent = { api: f.wire, path: [], query: [], headers: [], body: "", stream: f.stream, outputLimit: 512 };
  const reader = new wire.Reader(sent, URL_SHOWN, BigInt(4 << 20));
  const bytes = new TextEncoder().encode(body);
  let shown = "";
  try {
    for (let at = 0; at < bytes.length; at += size) shown += reader.feed(bytes.subarray(at, at + size)).join("");
    const done = reader.finish();
    if (f.stream) assert.equal(shown, done.text, "the pieces shown are the text kept");
    return { ok: done };
  } catch (e) {
    if (!e?.payload) throw e;
    return { err: e.payload };
  } finally {
    reader[Symbol.dispose]();
  }
}

const same = (a, b) => JSON.stringify(a, (_, v) => (typeof v === "bigint" ? `${v}n` : v)) === JSON.stringify(b, (_, v) => (typeof v === "bigint" ? `${v}n` : v));

/** Nothing when the fixture reads as its `expect` says; else why not. */
function check(f) {
  const expect = f.expect;
  if (f.endpoint === "show") {
    const got = wire.parseShow(f.response.body).context;
    return got === (expect.context_length ?? undefined) ? undefined : `context ${got}, expected ${expect.context_length}`;
  }
  const [first, ...others] = [1, 7, 1 << 20].map((size) => read(f, size));
  if (others.some((o) => !same(o, first))) return "the result depends on how the body was cut into chunks";
  const failure = expect.failure && typeof expect.failure === "object" ? expect.failure : undefined;
  const emptyCut = expect.stop === "token-limit" && typeof expect.text === "string" && expect.text.trim() === "";
  const { ok, err } = first;
  if (err && failure) {
    const ms = err.retryAfterMs === undefined ? undefined : Number(err.retryAfterMs);
    const kindOk = {
      overloaded: err.kind === "provider-error" && err.retryable,
      "rate-limited": err.kind === "rate-limited" && err.retryable,
      refused: err.kind === "refused",
      "provider-error": err.kind === "provider-error",
    }[failure.kind];
    if (kindOk === undefined) return `unknown expected kind ${failure.kind}`;
    const after = failure.retry_after_s;
    const afterOk = after == null || (err.retryable && ms === Math.trunc(after * 1000));
    return kindOk && afterOk ? undefined : `failed as ${err.kind} ${ms}: ${err.message}`;
  }
  if (err && !failure && emptyCut && err.kind === "token-limit") return usageMatches(err.usage, expect, f.wire);
  if (err) return `failed (${err.kind}): ${err.message}`;
  if (failure || emptyCut) return `answered ${JSON.stringify(ok.text)} (stop ${ok.stop}) where it should have failed`;
  if (expect.text !== ok.text) return `text ${JSON.stringify(ok.text)}`;
  if ((expect.stop === "complete" || expect.stop === "token-limit") && ok.stop !== expect.stop) return `stop ${ok.stop}, expected ${expect.stop}`;
  return usageMatches(ok.usage, expect, f.wire);
}

function usageMatches(got, expect, wireName) {
  const want = expect.usage;
  if (!want || typeof want !== "object") return undefined;
  if (!got) return "no usage read";
  // The fixtures record Anthropic's `input_tokens`, which leaves out the cache; agon's
  // prompt tokens are every input token, as OpenAI and Gemini count them.
  const prompt = wireName === "anthropic" ? got.promptTokens - (got.cachedTokens ?? 0) - (got.cacheWriteTokens ?? 0) : got.promptTokens;
  const fields = {
    prompt_tokens: prompt,
    completion_tokens: got.completionTokens,
    reasoning_tokens: got.reasoningTokens,
    cached_tokens: got.cachedTokens,
    cache_write_tokens: got.cacheWriteTokens,
  };
  for (const [name, value] of Object.entries(fields)) {
    if (want[name] != null && value !== want[name]) return `${name} ${value}, expected ${want[name]}`;
  }
  return undefined;
}

function run(folder) {
  let passed = 0;
  const failures = [];
  for (const file of fixtures(folder)) {
    const why = check(JSON.parse(readFileSync(join(root, folder, file), "utf8")));
    if (why === undefined) passed++;
    else failures.push(`${file}: ${why}`);
  }
  return { passed, failures };
}

test("every recorded reply reads as recorded", () => {
  const { passed, failures } = run("recorded");
  assert.deepEqual(failures, [], `${passed} read right; these did not:\n${failures.join("\n")}`);
});

test("the held-out replies read no worse than at first", (t) => {
  const { passed, failures } = run("held-out");
  const total = passed + failures.length;
  t.diagnostic(`held-out: ${passed} of ${total} read right`);
  console.log(`held-out: ${passed} of ${total} read right${failures.map((f) => `\n  ${f}`).join("")}`);
  assert.ok(passed >= HELD_OUT_FIRST_READ, `${passed} of ${total}, below the first reading of ${HELD_OUT_FIRST_READ}`);
});
