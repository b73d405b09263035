// Type-checked (never run) by `npm run typecheck`: the SDK's declarations and
// the types jco generated from wit/debate.wit fit together as a user sees them.
import { AgonError, ProviderError, Session, builtinRoles, drive, openai, anthropic, gemini, ollama, byProvider, parseRole, runDebate, buildSpec, catalog, wire, contextFile } from "agon-debate";
import type { ContextFile, ResultKind, TranscriptResult } from "agon-debate";
import type { DebateEvent, ModelRequest, Outcome, Phase, StopReason, Usage, HttpRequest } from "agon-debate";

const session: Session = Session.create("{}");
const output = session.poll();
if (output.tag === "request") {
  const request: ModelRequest = output.val;
  const phase: Phase = request.phase;
  const tokens: number = request.maxTokens;
  session.handle({ tag: "reply", val: { id: request.id, text: `${phase} ${tokens}`, usage: { promptTokens: 1, completionTokens: 2, reasoningTokens: 1 }, stop: "token-limit" } });
  session.handle({ tag: "failed", val: { id: request.id, kind: "token-limit", message: "thought too long", usage: { promptTokens: 1, completionTokens: 2 } } });
  const sent: HttpRequest = wire.buildRequest({ api: "openai", reference: request.model, model: "gpt-5", stream: true }, request);
  const reader = new wire.Reader(sent, "https://api.openai.com/v1/chat/completions", 4096n);
  const pieces: string[] = reader.feed(new TextEncoder().encode("data: [DONE]\n\n"));
  const stop: StopReason | undefined = reader.finish().stop;
  void pieces, stop;
}
const complete = byProvider({
  openai: openai({ baseUrl: "http://127.0.0.1:1/v1", api: "openai-compatible", onText: (piece: string) => void piece }),
  anthropic: anthropic({ apiKey: "k", onNote: (note: string) => void note }),
  gemini: gemini({ apiKey: "k", maxReply: 1 << 20 }),
  ollama: ollama(),
});
void openai()(({} as ModelRequest)).then(({ text, usage, stop }) => void [text, usage?.reasoningTokens, stop]);
const spec = buildSpec({ question: "q", protocol: "round-robin", models: ["openai/gpt-5"], reasoning: { effort: "high" }, seatReasoning: { "gpt-5": { budget: 2048 } }, catalog: catalog() });
void buildSpec({ question: "q", protocol: "round-robin", models: ["openai/gpt-5"], catalog: null, catalogOverrides: { "openai/gpt-5": { temperature: true } } });
void spec;
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
const billed: Usage = { promptTokens: 1, completionTokens: 2 };
throw new ProviderError("token-limit", "thought too long", { usage: billed, retryable: false });

const file: ContextFile = contextFile("change.diff", new TextEncoder().encode("+ a line\n"));
void buildSpec({ question: "q", protocol: "round-robin", models: ["openai/a"], files: [file, { path: "-", text: "x" }] });

// A transcript's results carry their kind; its outcome says whether it ran in full.
void runDebate({ question: "q" }, async () => ({ text: "" })).then((t) => {
  const results: TranscriptResult[] = Object.values(t.results);
  const kinds: ResultKind[] = results.map((r) => r.kind);
  const complete: boolean | undefined = t.outcome?.complete;
  void kinds, complete;
});
// The report, a module (and a component) of its own.
import { adrMarkdown, htmlPage, pictures, transcriptMarkdown } from "agon-debate/report";
const page: string = htmlPage(session, "");
const drawn: [string, string][] = pictures("{}");
void [page, drawn, adrMarkdown(session), transcriptMarkdown("{}")];
