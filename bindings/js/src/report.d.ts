// Types of agon-debate/report (src/report.js): a debate rendered by the report component.
import type { Session } from "./index.js";
export type { report } from "../gen/report.js";

/** A finished (or stopped) debate: its Session, or its transcript's JSON text. */
export type Debate = Session | string;

/** The debate as Markdown, model text made inert. Throws when the text is not a transcript, naming the field. */
export declare function transcriptMarkdown(debate: Debate): string;
/** The protocol's named results alone, as Markdown ("" when it has none). */
export declare function resultsMarkdown(debate: Debate): string;
/** The debate as an Architecture Decision Record (Markdown). */
export declare function adrMarkdown(debate: Debate): string;
/** The debate as one self-contained HTML page; `timingsNdjson` adds the call timeline. */
export declare function htmlPage(debate: Debate, timingsNdjson?: string): string;
/** The debate's pictures: `[fileName, svg]` pairs. */
export declare function pictures(debate: Debate): [string, string][];
/** The call timeline as SVG from timings NDJSON, headed by `question` (empty: none); null without timings. */
export declare function timelineSvg(timingsNdjson: string, question?: string): string | null;
/** Any Markdown made inert as the transcript's is. */
export declare function inertMarkdown(markdown: string): string;
