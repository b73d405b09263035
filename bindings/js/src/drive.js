// The host loop: drain poll(), perform released requests, feed back what came of them.
import { Session, specText } from "./engine.js";

const FAILURE_KINDS = new Set(["timeout", "rate-limited", "provider-error", "refused", "cancelled", "transport", "token-limit"]);
const STOP_REASONS = new Set(["complete", "token-limit", "other"]);

/**
 * Run a whole debate and resolve to its transcript object.
 *
 * `complete(request)` returns (a Promise of) the reply text or `{ text, usage, stop }`
 * (`stop: "token-limit"` marks a cut reply), or throws; a thrown error's `kind` (one
 * of the WIT failure kinds) is kept, anything else is a `provider-error`, and its
 * `usage` (what a failed call billed) goes with it. The engine decides what a
 * failure means.
 */
export async function runDebate(spec, complete, options = {}) {
  const session = Session.create(specText(spec));
  try {
    await drive(session, complete, options);
    return JSON.parse(session.transcriptJson());
  } finally {
    session[Symbol.dispose]?.();
  }
}

/**
 * Drive an existing session until it is done; resolves to its outcome.
 *
 * 1. Drain `poll()` until `idle` or `done`, passing events to `onEvent`.
 * 2. Start every released request (at most `concurrency` at once).
 * 3. When one settles, `handle` it (the journal line goes to `onJournal`), and go to 1.
 */
export async function drive(session, complete, { onEvent, onJournal, concurrency = Infinity } = {}) {
  if (!(concurrency >= 1)) throw new RangeError("concurrency must be at least 1");
  const waiting = [];
  const inFlight = new Map();
  for (;;) {
    for (;;) {
      const output = session.poll();
      if (output.tag === "request") waiting.push(output.val);
      else if (output.tag === "event") await onEvent?.(output.val);
      else if (output.tag === "done") return output.val;
      else break;
    }
    while (waiting.length > 0 && inFlight.size < concurrency) {
      const request = waiting.shift();
      inFlight.set(request.id, settle(request, complete));
    }
    if (inFlight.size === 0) throw new Error("the engine is idle with no request outstanding");
    const { id, input } = await Promise.race(inFlight.values());
    inFlight.delete(id);
    const line = session.handle(input);
    await onJournal?.(line);
  }
}

// Never rejects: a failed call becomes a `failed` input for the engine.
async function settle(request, complete) {
  const id = request.id;
  try {
    const answer = await complete(request);
    const { text, usage, stop } = typeof answer === "string" ? { text: answer } : answer ?? {};
    if (typeof text !== "string") throw new TypeError("complete() must return a string or { text, usage, stop }");
    return { id, input: { tag: "reply", val: { id, text, usage: usage ?? undefined, stop: STOP_REASONS.has(stop) ? stop : undefined } } };
  } catch (e) {
    const kind = FAILURE_KINDS.has(e?.kind) ? e.kind : "provider-error";
    const message = e instanceof Error ? e.message : String(e);
    return { id, input: { tag: "failed", val: { id, kind, message, usage: e?.usage ?? undefined } } };
  }
}
