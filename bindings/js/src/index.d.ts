// Types for agon's JS SDK. The engine's types are generated from wit/debate.wit
// by jco (gen/interfaces/); this file only adds the SDK's own surface.
import type { Session as RawSession } from "../gen/interfaces/agon-debate-engine.js";
import type * as Wire from "../gen/interfaces/agon-debate-wire.js";
import type {
  CostEstimate,
  CouncilRole,
  DebateEvent,
  Error as EngineError,
  FailureKind,
  ModelRequest,
  Outcome,
  ProtocolInfo,
  StopReason,
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

/**
 * The component's `wire` interface (agon-wire): the HTTP request for a model request
 * (`buildRequest`), the key's header, a non-2xx status as a failure, and `Reader`, which
 * reads a reply fed to it in chunks. The providers keep only the transport around it.
 */
export declare const wire: typeof Wire;
export type { Api, Call, HttpRequest, WireFailure, ServerModel, Reader } from "../gen/interfaces/agon-debate-wire.js";

/** A failed model call; throw one from `complete` to choose the failure kind (and pass what it billed). */
export declare class ProviderError extends Error {
  constructor(kind: FailureKind, message: string, options?: { retryable?: boolean; retryAfterMs?: number; usage?: Usage });
  readonly kind: FailureKind;
  /** Whether another attempt may pass. */
  readonly retryable: boolean;
  /** How long to wait before it, when the provider said. */
  readonly retryAfterMs?: number;
  /** What the call billed all the same (a reply cut before any answer). */
  readonly usage?: Usage;
}

/** A debate spec: JSON text, or an object serialized as is (see `agon spec`). */
export type Spec = string | Record<string, unknown>;

/** What a model call gave: its text, or the text with token usage and why the model stopped (`token-limit`: cut). */
export type Completion = string | { text: string; usage?: Usage; stop?: StopReason };

/** What a provider's call gives. */
export interface ProviderReply {
  text: string;
  usage?: Usage;
  stop?: StopReason;
}

/**
 * Performs one model request; throwing makes it a failure (kind from `error.kind`, else
 * `provider-error`; `error.usage`, what it billed, goes with it).
 */
export type Complete = (request: ModelRequest) => Completion | Promise<Completion>;

export interface DriveOptions {
  /** Every event, in order; `event.json` is the canonical form every host emits. */
  onEvent?: (event: DebateEvent) => void | Promise<void>;
  /** Each journal line as an input is handled (append them after `session.journal()`'s header). */
  onJournal?: (line: string) => void | Promise<void>;
  /** How many released requests may run at once (default: all of them). */
  concurrency?: number;
}

/** How a protocol's result is shown: one closed vocabulary, the core's `ResultKind`. */
export type ResultKind = "document" | "table" | "ranking" | "scorecard" | "findings" | "gate";

/** One of a protocol's results in the transcript: its kind, then its data. */
export interface TranscriptResult {
  kind: ResultKind;
  data: unknown;
}

/** The transcript object (format 2), as `Session.transcriptJson()` describes it;
 * the fields not typed here are in the transcript chapter of the docs. */
export type Transcript = Record<string, unknown> & {
  version: 2;
  protocol: string;
  question: string;
  /** The protocol's results by name, each with its kind. */
  results: Record<string, TranscriptResult>;
  /** `null` while the debate runs; `complete` says whether it ran in full. */
  outcome: ({ kind: string; complete: boolean; headline: string; reason: string; rounds_run: number } & Record<
    string,
    unknown
  >) | null;
};

/** Run a whole debate; resolves to its transcript. */
export declare function runDebate(spec: Spec, complete: Complete, options?: DriveOptions): Promise<Transcript>;

/** Drive an existing session until it is done; resolves to its outcome. */
export declare function drive(session: RawSession, complete: Complete, options?: DriveOptions): Promise<Outcome>;

/** One file of a spec's `files`: the path it is shown by, and its text. */
export interface ContextFile {
  path: string;
  text: string;
}

/**
 * A file as a spec's `files` entry, from its bytes. Throws, naming the file, when it is not UTF-8
 * text or holds a NUL byte; the engine checks the caps and records its size and SHA-256.
 */
export declare function contextFile(path: string, bytes: Uint8Array | ArrayBuffer): ContextFile;

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
  /** Files every speaker reads, quoted under their paths (see `contextFile`). */
  files?: ContextFile[];
  /**
   * A finished debate to follow up: its session id and its transcript (the object `transcriptJson()`
   * gives). The engine quotes its question, outcome, synthesis and last words in every prompt, and
   * refuses a transcript whose debate has not ended. Without `context` or `files` of its own, the
   * request takes the transcript's context and `follows.files` (the parent spec's `files`, each held
   * to the transcript's SHA-256).
   */
  follows?: { session: string; transcript: unknown; files?: ContextFile[] };
  options?: Record<string, unknown>;
  /** Role files, as text. */
  roles?: string[];
  roleModels?: Record<string, string>;
  rounds?: number;
  seed?: number;
  limits?: Record<string, unknown>;
  prices?: Record<string, { input: number; output: number }>;
  maxCost?: number;
  /** What every seat and the judge ask of a reasoning model. */
  reasoning?: Reasoning;
  /** The same for one seat (by id, or `judge`), over `reasoning`. */
  seatReasoning?: Record<string, Reasoning>;
  /** The model catalog (as `catalog()` gives it); default the shipped one, `null` for none. */
  catalog?: Catalog | null;
  /** Entries of your own, by model reference, field by field over the catalog's. */
  catalogOverrides?: Record<string, Partial<CatalogEntry>>;
}

/** How hard a reasoning model should think, or how many tokens it may think. */
export interface Reasoning {
  effort?: "low" | "medium" | "high";
  budget?: number;
}

/** What the catalog knows of one model (snake_case, as catalog/models.json writes it). */
export interface CatalogEntry {
  reasoning?: boolean;
  temperature?: boolean;
  context?: number;
  max_output?: number;
  price?: { input: number; output: number; cache_read?: number; cache_write?: number };
}

/** A model catalog: catalog/models.json (models.dev, MIT). */
export interface Catalog {
  source?: string;
  licence?: string;
  snapshot?: string;
  models: Record<string, CatalogEntry>;
}

/** The model catalog this package ships (a copy). */
export declare function catalog(): Catalog;
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
export declare function protocols(): ProtocolInfo[];
export declare function version(): string;
export declare function specText(spec: Spec): string;

export interface ProviderOptions {
  /** Stream the reply (default true); `onText` sees it piece by piece. */
  stream?: boolean;
  onText?: (piece: string, request: ModelRequest) => void;
  /** Something to know before the call (a prompt too long for a local model's context); default `console.warn`. */
  onNote?: (note: string, request: ModelRequest) => void;
  /** Give up on a call after this long (default 120 s): a `timeout` failure. */
  timeoutMs?: number;
  /** The most reply text accepted, in bytes (default 4 MiB); a larger reply fails. */
  maxReply?: number;
  /** Attempts after the first for a failure that may pass (default 0: a `ProviderError` says whether and when), as the provider asks. */
  retries?: number;
  /** The longest wait before another attempt (default 60 s); a provider asking for longer is not tried again. */
  maxRetryWaitMs?: number;
  fetch?: typeof globalThis.fetch;
}

/** A provider: performs one request over HTTP; throws `ProviderError`. */
export type Provider = (request: ModelRequest) => Promise<ProviderReply>;

/**
 * OpenAI's chat completions, or any server that speaks them (`openai/<model>` references). OpenAI's
 * own shape at api.openai.com and for `openai/…` models the catalog knows, else the compatible one;
 * `api` decides it yourself.
 */
export declare function openai(options?: ProviderOptions & { baseUrl?: string; apiKey?: string; api?: "openai" | "openai-compatible" }): Provider;

/** Anthropic's Messages API (`anthropic/<model>` references). */
export declare function anthropic(options?: ProviderOptions & { baseUrl?: string; apiKey?: string }): Provider;

/** Google's Gemini API (`gemini/<model>` references); the key goes in a header. */
export declare function gemini(options?: ProviderOptions & { baseUrl?: string; apiKey?: string }): Provider;

/** Ollama's native `/api/chat` (`ollama/<model>` references); asks `/api/show` once per model. */
export declare function ollama(options?: ProviderOptions & { host?: string; apiKey?: string }): Provider;

/** Route each request by its model reference's provider prefix. */
export declare function byProvider(providers: Record<string, Complete>): Complete;
