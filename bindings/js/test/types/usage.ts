// Type-checked (never run) by `npm run typecheck`: the SDK's declarations and
// the types jco generated from wit/debate.wit fit together as a user sees them.
import { AgonError, ProviderError, Session, builtinRoles, drive, openai, ollama, byProvider, parseRole, runDebate } from "agon-debate";
import type { DebateEvent, ModelRequest, Outcome, Phase } from "agon-debate";

const session: Session = Session.create("{}");
const output = session.poll();
if (output.tag === "request") {
  const request: ModelRequest = output.val;
  const phase: Phase = request.phase;
  const tokens: number = request.maxTokens;
  session.handle({ tag: "reply", val: { id: request.id, text: `${phase} ${tokens}`, usage: { promptTokens: 1, completionTokens: 2 } } });
  session.handle({ tag: "failed", val: { id: request.id, kind: "timeout", message: "slow" } });
}
const complete = byProvider({ openai: openai({ baseUrl: "http://127.0.0.1:1/v1", onText: (piece: string) => void piece }), ollama: ollama() });
const outcome: Promise<Outcome> = drive(session, complete, { onEvent: (e: DebateEvent) => void e.json, concurrency: 2 });
void outcome;
const judges: boolean[] = builtinRoles().map((text) => parseRole(text).participatesInStage3);
void judges;
void runDebate({ question: "q" }, async (r: ModelRequest) => ({ text: r.seat }), { onJournal: (line: string) => void line });
try {
  Session.fromJournal("");
} catch (e) {
  if (e instanceof AgonError) console.log(e.kind, e.message);
}
throw new ProviderError("rate-limited", "slow down");
