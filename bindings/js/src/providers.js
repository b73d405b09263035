// Providers: a ModelRequest in, `{ text, usage, stop }` out, over fetch (Node 20+ and
// browsers). What to send and how to read the reply is agon-wire's, inside the
// component (the WIT interface `wire`), the same code the CLI, the browser page and
// the Python SDK use: OpenAI's chat completions (and compatible servers), Anthropic's
// Messages, Gemini and Ollama, each call shaped by the model's traits from the
// catalog. A call is the wire layer's exchange (which API, whether and when to try
// again, what the reply says); only the transport is here: the URL, the key, the
// timeout, the body read in chunks and handed over. A failed call throws a
// ProviderError whose `kind` is the WIT failure kind, so the engine records it as what it is.
import { wire } from "./engine.js";

/** The most reply text a call accepts by default, in bytes (as the CLI's `max_reply`). */
const MAX_REPLY = 4 << 20;

/**
 * A failed model call. `kind` is one of the WIT failure kinds (`token-limit` included);
 * `retryable` says whether another attempt may pass, `retryAfterMs` after how long when
 * the provider said; `usage` is what the call billed all the same.
 */
export class ProviderError extends Error {
  constructor(kind, message, { retryable = false, retryAfterMs, usage } = {}) {
    super(message);
    this.name = "ProviderError";
    this.kind = kind;
    this.retryable = retryable;
    this.retryAfterMs = retryAfterMs;
    this.usage = usage;
  }
}

/**
 * OpenAI's chat completions, or any server that speaks them (`/chat/completions` under
 * `baseUrl`), streamed as SSE by default. OpenAI's own conventions
 * (`max_completion_tokens`, no temperature for a model not known to take one,
 * `reasoning_effort`) hold at api.openai.com and for `openai/…` models the request's
 * traits know; anything else gets the compatible shape (`max_tokens`). `api: "openai"`
 * or `"openai-compatible"` decides it yourself.
 */
export function openai({ baseUrl = "https://api.openai.com/v1", apiKey, api, ...options } = {}) {
  if (api !== undefined && api !== "openai" && api !== "openai-compatible") {
    throw new RangeError(`api must be "openai" or "openai-compatible", not ${JSON.stringify(api)}`);
  }
  return provider("openai", new Base(baseUrl), apiKey, "openai", api, options);
}

/** Anthropic's Messages API (`/v1/messages`), streamed as SSE by default. */
export function anthropic({ baseUrl = "https://api.anthropic.com", apiKey, ...options } = {}) {
  return provider("anthropic", new Base(baseUrl), apiKey, "anthropic", undefined, options);
}

/**
 * Google's Gemini API (`models/M:generateContent`, or `:streamGenerateContent?alt=sse`
 * streamed, the default); the key goes in a header, never the URL.
 */
export function gemini({ baseUrl = "https://generativelanguage.googleapis.com/v1beta", apiKey, ...options } = {}) {
  return provider("gemini", new Base(baseUrl), apiKey, "gemini", undefined, options);
}

/**
 * Ollama's native `/api/chat`, streamed as NDJSON by default. Each model's context length
 * and whether it thinks are asked of the server once (`/api/show`), so the call sets
 * `num_ctx` and `think` to fit; `onNote` hears of a prompt too long for the model's context.
 */
export function ollama({ host = "http://127.0.0.1:11434", apiKey, ...options } = {}) {
  const base = new Base(host.includes("://") ? host : `http://${host}`);
  return provider("ollama", base, apiKey, "ollama", undefined, options);
}

/**
 * Route each request by the provider in its model reference (`openai/gpt-4o` →
 * `providers.openai`), as the CLI does.
 */
export function byProvider(providers) {
  return (request) => {
    const provider = request.model.split("/", 1)[0];
    const complete = providers[provider];
    if (!complete) throw new ProviderError("provider-error", `no provider '${provider}' for model '${request.model}' (known: ${Object.keys(providers).join(", ")})`);
    return complete(request);
  };
}

// --- the transport ------------------------------------------------------------------------------

function provider(name, base, apiKey, family, api, options) {
  const {
    stream = true,
    onText,
    onNote = (note) => console.warn(note),
    timeoutMs = 120_000,
    maxReply = MAX_REPLY,
    retries = 0,
    maxRetryWaitMs = 60_000,
    fetch = globalThis.fetch,
  } = options;
  const secrets = [apiKey ?? "", ...base.secrets].filter((s) => s.length >= 4);
  const servers = new Map();
  const settings = {
    attempts: retries + 1,
    baseMs: 500n,
    maxWaitMs: BigInt(maxRetryWaitMs),
    stream,
    maxReply: BigInt(maxReply),
    limits: [{ ms: BigInt(timeoutMs), what: `the call's timeout of ${timeoutMs / 1000} s (timeoutMs)` }],
    raiseWait: " (maxRetryWaitMs)",
    raiseReply: " (maxReply)",
  };

  async function call(request) {
    const reference = request.model;
    const model = modelName(reference, name);
    let server;
    if (family === "ollama") {
      if (!servers.has(model)) servers.set(model, askServer(fetch, base, model, timeoutMs));
      server = await servers.get(model);
    }
    const target = { reference, model, family, api, baseUrl: base.url.href, server, keyVar: "the API key", urlVar: "the base URL" };
    const exchange = new wire.Exchange(witRequest(request), [{ tag: "http", val: target }], settings);
    try {
      for (;;) {
        const action = exchange.next(BigInt(Date.now()));
        switch (action.tag) {
          case "note":
            onNote?.(action.val, request);
            break;
          case "wait":
            await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(action.val) - Date.now())));
            break;
          case "send":
            await send(exchange, action.val.request, request);
            break;
          case "done": {
            const { text, usage, stop } = action.val.completion;
            if (!stream) onText?.(text, request);
            return { text, usage, stop };
          }
          case "failed":
            throw fromFailure(action.val);
          default:
            throw new ProviderError("provider-error", `the exchange asked for ${action.tag}, which this provider does not do`);
        }
      }
    } finally {
      exchange[Symbol.dispose]?.();
    }
  }

  /** One attempt: send it, hand over the status and the bytes as they arrive. */
  async function send(exchange, sent, request) {
    const { url, shown } = base.join(sent.path, sent.query);
    const headers = Object.fromEntries(sent.headers);
    if (apiKey) {
      const [key, value] = wire.authHeader(sent.api, apiKey);
      headers[key] = value;
    }
    const signal = AbortSignal.timeout(timeoutMs);
    let response;
    try {
      response = await fetch(url, { method: "POST", headers, body: sent.body, signal });
    } catch (e) {
      return exchange.transportFailed(toFailure(transportError(e, shown, timeoutMs)));
    }
    exchange.status(response.status, [...response.headers], shown);
    const body = response.body?.getReader();
    try {
      while (body && exchange.wantsMore()) {
        let chunk;
        try {
          chunk = await body.read();
        } catch (e) {
          // An error's body is read for its message only: what came is enough.
          if (!response.ok) break;
          if (e?.name === "TimeoutError" || signal.aborted) return exchange.transportFailed(toFailure(timedOut(shown, timeoutMs)));
          const broke = new ProviderError("transport", `the reply from ${shown} broke off: ${e?.cause?.message ?? e?.message ?? e}`, { retryable: true });
          return exchange.transportFailed(toFailure(broke));
        }
        if (chunk.done) break;
        for (const piece of exchange.body(chunk.value)) onText?.(piece, request);
      }
      exchange.bodyEnd();
    } finally {
      // Frees the connection when the reply was not read to its end (an error).
      await body?.cancel().catch(() => {});
    }
  }

  return async function complete(request) {
    try {
      return await call(request);
    } catch (e) {
      throw providerError(e, secrets);
    }
  };
}

/** A provider's base URL: path segments go after its path, its own query stays; shown with query values redacted. */
class Base {
  constructor(raw) {
    let url;
    try {
      url = new URL(raw.trim());
    } catch {
      throw new TypeError("a provider's base URL must be an http:// or https:// URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new TypeError(`a provider's base URL must be an http:// or https:// URL, not ${url.protocol}`);
    url.hash = "";
    this.url = url;
    // `/v1/` and `/v1` are the same base: segments go after its last one.
    this.path = url.pathname.replace(/\/+$/, "");
    this.host = url.hostname;
    /** The query's values: a server may echo them. */
    this.secrets = [...url.searchParams.values()];
  }

  join(segments, query) {
    const url = new URL(this.url);
    url.pathname = this.path + segments.map((s) => `/${encodeSegment(s)}`).join("");
    const added = new URLSearchParams(query).toString();
    const own = this.url.search.slice(1);
    url.search = [own, added].filter(Boolean).join("&");
    const shown = new URL(url);
    const pairs = [...shown.searchParams].map(([k, v]) => `${encodeURIComponent(k)}=${k === "alt" ? encodeURIComponent(v) : "***"}`);
    shown.search = pairs.join("&");
    return { url: url.href, shown: shown.href };
  }
}

// One path segment, percent-encoded as the CLI's `url` crate does (the WHATWG path-segment set):
// `/`, `?`, `#`, `%` and the like are encoded, `:` and `@` are not.
function encodeSegment(segment) {
  return segment.replace(/[\u0000-\u0020"#%/<>?`{}\u007f]|[^\u0000-\u007f]/gu, (c) => encodeURIComponent(c));
}

/** What an Ollama server says of `model` (`/api/show`); nothing when it cannot say, and the call goes on without it. */
async function askServer(fetch, base, model, timeoutMs) {
  const [path, body] = wire.showRequest(model);
  try {
    const response = await fetch(base.join(path, []).url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body,
      signal: AbortSignal.timeout(Math.min(timeoutMs, 10_000)),
    });
    if (!response.ok) return {};
    return wire.parseShow(await response.text());
  } catch {
    return {};
  }
}

// The request as the WIT takes it: the lists it must have, a bigint id.
function witRequest(request) {
  return { ...request, id: BigInt(request.id), traits: request.traits ?? [], cacheMarks: request.cacheMarks ?? [] };
}

// `openai/gpt-4o` → `gpt-4o`; a reference without this provider's prefix is sent as is.
function modelName(reference, provider) {
  return reference.startsWith(`${provider}/`) ? reference.slice(provider.length + 1) : reference;
}

// Whatever a call threw, as a ProviderError with no secret in its message. The wire
// layer's failures come as the WIT `wire-failure`, which jco throws as a ComponentError's payload.
function providerError(e, secrets) {
  const error = e instanceof ProviderError ? e : e?.payload && typeof e.payload.kind === "string" ? fromFailure(e.payload) : new ProviderError("provider-error", e?.message ?? String(e));
  error.message = secrets.reduce((m, s) => m.replaceAll(s, "[redacted]"), error.message);
  return error;
}

function toFailure(e) {
  return { kind: e.kind, message: e.message, retryable: e.retryable, retryAfterMs: e.retryAfterMs === undefined ? undefined : BigInt(e.retryAfterMs), usage: e.usage };
}

function fromFailure({ kind, message, retryable, retryAfterMs, usage }) {
  return new ProviderError(kind, message, { retryable, retryAfterMs: retryAfterMs === undefined ? undefined : Number(retryAfterMs), usage });
}

function timedOut(url, timeoutMs) {
  return new ProviderError("timeout", `no complete answer from ${url} within ${timeoutMs / 1000} s`);
}

function transportError(e, url, timeoutMs) {
  if (e?.name === "TimeoutError") return timedOut(url, timeoutMs);
  if (e?.name === "AbortError") return new ProviderError("cancelled", `the call to ${url} was cancelled`);
  const cause = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(e);
  // Reached, then closed before any reply: the request cannot have been answered.
  if (["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"].includes(e?.cause?.code)) {
    return new ProviderError("transport", `the connection to ${url} was closed before any reply: ${e.cause.message ?? cause}`, { retryable: true });
  }
  return new ProviderError("transport", `cannot reach ${url} (${cause}): is the endpoint running?`, { retryable: true });
}
