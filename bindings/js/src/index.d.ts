// Types for agon's JS SDK. The engine's types are generated from wit/debate.wit
// by jco (gen/interfaces/); this file only adds the SDK's own surface.
import type { Session as RawSession } from "../gen/interfaces/agon-debate-engine.js";
import type {
  CostEstimate,
  CouncilRole,
  DebateEvent,
  Error as EngineError,
  FailureKind,
  ModelRequest,
  Outcome,
  ProtocolInfo,
  Usage,
} from "../gen/interfaces/agon-debate-types.js";

export type * from "../gen/interfaces/agon-debate-types.js";

/** The WIT `session` resource; `create`, `fromJournal` and `handle` throw `AgonError`. */
export declare const Session: typeof RawSession;
export type Session = RawSession;

/** Misuse of the engine, with the core's message; `kind` and `detail` are the WIT `error-kind` case. */
export declare class AgonError extends Error {
  readonly kind: EngineError["kind"]["tag"];
  readonly detail: EngineError["kind"]["val"];
}

/** A failed model call; throw one from `complete` to choose the failure kind. */
export declare class ProviderError extends Error {
  constructor(kind: FailureKind, message: string);
  readonly kind: FailureKind;
}

/** A debate spec: JSON text, or an object serialized as is (see `agon spec`). */
export type Spec = string | Record<string, unknown>;

/** What a model call gave: its text, or the text with token usage. */
export type Completion = string | { text: string; usage?: Usage };

/** Performs one model request; throwing makes it a failure (kind from `error.kind`, else `provider-error`). */
export type Complete = (request: ModelRequest) => Completion | Promise<Completion>;

export interface DriveOptions {
  /** Every event, in order; `event.json` is the canonical form every host emits. */
  onEvent?: (event: DebateEvent) => void | Promise<void>;
  /** Each journal line as an input is handled (append them after `session.journal()`'s header). */
  onJournal?: (line: string) => void | Promise<void>;
  /** How many released requests may run at once (default: all of them). */
  concurrency?: number;
}

/** The transcript object, as `Session.transcriptJson()` describes it. */
export type Transcript = Record<string, unknown>;

/** Run a whole debate; resolves to its transcript. */
export declare function runDebate(spec: Spec, complete: Complete, options?: DriveOptions): Promise<Transcript>;

/** Drive an existing session until it is done; resolves to its outcome. */
export declare function drive(session: RawSession, complete: Complete, options?: DriveOptions): Promise<Outcome>;

/** Check a spec without starting a debate; returns it normalized, as JSON text. */
export declare function validateSpec(spec: Spec): string;
/** What a user chose, before it is a spec; the engine decides seat ids, the judge and role-council's roles. */
export interface SpecRequest {
  question: string;
  /** `NAME`, or `NAME:SEAT` to set the protocol's seat option. */
  protocol: string;
  models?: string[];
  judge?: string;
  noJudge?: boolean;
  context?: string;
  options?: Record<string, unknown>;
  /** Role files, as text. */
  roles?: string[];
  roleModels?: Record<string, string>;
  rounds?: number;
  seed?: number;
  limits?: Record<string, unknown>;
  prices?: Record<string, { input: number; output: number }>;
  maxCost?: number;
}
/** Build a spec from a request; throws `AgonError` naming the field. */
export declare function buildSpec(request: SpecRequest): Record<string, unknown>;
/** The worst case of a spec before it runs: calls, tokens and (when every model is priced) cost. */
export declare function estimate(spec: Spec): CostEstimate;
/** Parse a role file (markdown with YAML frontmatter); throws `AgonError` naming the line. */
export declare function parseRole(text: string): CouncilRole;
/** The built-in role files (four debaters and a judge), as text. */
export declare function builtinRoles(): string[];
/** Check a protocol document on its own; the document normalized, as JSON text. Throws `AgonError` naming its JSON path. */
export declare function checkDocument(document: string | Record<string, unknown>): string;
/** A protocol document checked and described as `protocols()` describes a built-in. Throws `AgonError` naming its JSON path. */
export declare function documentInfo(document: string | Record<string, unknown>): ProtocolInfo;
/** The built-in protocols that are protocol documents: `[name, documentJson]` pairs. */
export declare function protocolDocuments(): [string, string][];
/** The call timeline as SVG, drawn by the engine from timings NDJSON (a line per call attempt); null without timings. */
export declare function timelineSvg(timingsNdjson: string): string | null;
export declare function protocols(): ProtocolInfo[];
export declare function version(): string;
export declare function specText(spec: Spec): string;

export interface ProviderOptions {
  /** Stream the reply (default true); `onText` sees it piece by piece. */
  stream?: boolean;
  onText?: (piece: string, request: ModelRequest) => void;
  /** Give up on a call after this long (default 120 s): a `timeout` failure. */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

/** Any OpenAI-compatible `/chat/completions` endpoint (`openai/<model>` references). */
export declare function openai(options?: ProviderOptions & { baseUrl?: string; apiKey?: string }): (request: ModelRequest) => Promise<{ text: string; usage?: Usage }>;

/** Ollama's native `/api/chat` (`ollama/<model>` references). */
export declare function ollama(options?: ProviderOptions & { host?: string }): (request: ModelRequest) => Promise<{ text: string; usage?: Usage }>;

/** Route each request by its model reference's provider prefix. */
export declare function byProvider(providers: Record<string, Complete>): Complete;
