// agon-debate/report: what a debate becomes for people to read — its Markdown,
// the decision record (ADR), one self-contained HTML page, pictures — from the
// agon:debate report component (gen/report.js, transpiled by jco). A module of
// its own, apart from the engine, so that a page which only runs debates never
// fetches the report's wasm. Every function takes a finished (or stopped)
// debate: a `Session`, or its transcript's JSON text.
import { report } from "../gen/report.js";

/**
 * The report component's raw interface, with evaluation scoring (`scoreEval`,
 * `readEvalDataset`, ...) as `agon eval` uses it.
 */
export { report };

/** The transcript's JSON of a Session, or the text as given. */
function transcriptOf(debate) {
  return typeof debate === "string" ? debate : debate.transcriptJson();
}

// A WIT `result<_, string>` error arrives as a ComponentError whose payload is
// the reason; rethrow it as a plain Error that says so.
function calling(fn, ...args) {
  try {
    return fn(...args);
  } catch (e) {
    if (e && typeof e === "object" && typeof e.payload === "string") throw new Error(e.payload);
    throw e;
  }
}

/** The debate as Markdown, model text made inert: the question, every turn, the synthesis, the results. */
export const transcriptMarkdown = (debate) => calling(report.transcriptMarkdown, transcriptOf(debate));

/** The protocol's named results alone, as Markdown tables and headings ("" when it has none). */
export const resultsMarkdown = (debate) => calling(report.resultsMarkdown, transcriptOf(debate));

/** The debate as an Architecture Decision Record (Markdown). */
export const adrMarkdown = (debate) => calling(report.adrMarkdown, transcriptOf(debate));

/**
 * The debate as one HTML page to share: inline style, no script, a Content-Security-Policy that
 * lets nothing load. `timingsNdjson` (a line per call attempt), when given, adds the call timeline.
 */
export const htmlPage = (debate, timingsNdjson = "") =>
  calling(report.htmlPage, transcriptOf(debate), timingsNdjson);

/** The debate's pictures: `[[fileName, svg], …]` (the stance map, a chart per result with one). */
export const pictures = (debate) => calling(report.pictures, transcriptOf(debate));

/** The call timeline as SVG from timings NDJSON (a line per call attempt), headed by the debate's question; null without timings. */
export const timelineSvg = (timingsNdjson, question = "") => report.timelineSvg(timingsNdjson, question) ?? null;

/** Any Markdown made inert as the transcript's is (raw HTML escaped, unsafe links unlinked). */
export const inertMarkdown = (markdown) => report.inertMarkdown(markdown);
