// Providers: a ModelRequest in, `{ text, usage }` out, over fetch (Node 20+ and
// browsers). A failed call throws a ProviderError whose `kind` is the WIT
// failure kind, so the engine records it as what it is.

/** A failed model call; `kind` is one of the WIT failure kinds. */
export class ProviderError extends Error {
  constructor(kind, message) {
    super(message);
    this.name = "ProviderError";
    this.kind = kind;
  }
}

/**
 * Any OpenAI-compatible `/chat/completions` endpoint, streamed as SSE by default.
 * `onText(piece, request)` sees the reply as it arrives.
 */
export function openai({ baseUrl = "https://api.openai.com/v1", apiKey, stream = true, onText, timeoutMs = 120_000, fetch = globalThis.fetch } = {}) {
  const url = `${baseUrl.replace(/\/+$/, "")}/chat/completions`;
  return async function complete(request) {
    const body = {
      model: modelName(request.model, "openai"),
      messages: request.messages.map(({ role, content }) => ({ role, content })),
      // Always sent: some local servers generate without end otherwise.
      max_tokens: request.maxTokens,
      temperature: request.temperature,
      stream,
    };
    if (stream) body.stream_options = { include_usage: true };
    const headers = { "Content-Type": "application/json" };
    if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
    const response = await post(fetch, url, headers, body, timeoutMs, apiKey);
    if (!stream) {
      const reply = await json(response, url);
      const choice = reply.choices?.[0];
      if (choice?.finish_reason === "content_filter") throw refused(url);
      const text = choice?.message?.content;
      if (typeof text !== "string") throw new ProviderError("provider-error", `${url} sent no choices[0].message.content`);
      onText?.(text, request);
      return { text, usage: openaiUsage(reply.usage) };
    }
    let text = "";
    let usage;
    let finished = false;
    for await (const data of sseData(response, url, timeoutMs)) {
      if (data.trim() === "[DONE]") {
        finished = true;
        break;
      }
      const chunk = parse(data, `malformed stream event from ${url}`);
      if (chunk.error) throw new ProviderError("provider-error", `${url} reported an error mid-stream: ${JSON.stringify(chunk.error)}`);
      usage = openaiUsage(chunk.usage) ?? usage;
      const choice = chunk.choices?.[0];
      const piece = choice?.delta?.content;
      if (typeof piece === "string" && piece.length > 0) {
        text += piece;
        onText?.(piece, request);
      }
      if (choice?.finish_reason === "content_filter") throw refused(url);
      if (choice?.finish_reason) finished = true;
    }
    if (!finished) throw new ProviderError("provider-error", `the stream from ${url} ended before the reply was complete`);
    return { text, usage };
  };
}

/** Ollama's native `/api/chat`, streamed as NDJSON by default. */
export function ollama({ host = "http://127.0.0.1:11434", stream = true, onText, timeoutMs = 120_000, fetch = globalThis.fetch } = {}) {
  const base = host.includes("://") ? host : `http://${host}`;
  const url = `${base.replace(/\/+$/, "")}/api/chat`;
  return async function complete(request) {
    const body = {
      model: modelName(request.model, "ollama"),
      messages: request.messages.map(({ role, content }) => ({ role, content })),
      stream,
      options: { num_predict: request.maxTokens, temperature: request.temperature },
    };
    const response = await post(fetch, url, { "Content-Type": "application/json" }, body, timeoutMs);
    let text = "";
    for await (const line of lines(response, url, timeoutMs)) {
      if (line.trim() === "") continue;
      const chunk = parse(line, `malformed NDJSON from ${url}`);
      if (chunk.error) throw new ProviderError("provider-error", `${url} answered with an error: ${JSON.stringify(chunk.error)}`);
      const piece = chunk.message?.content;
      if (typeof piece === "string" && piece.length > 0) {
        text += piece;
        onText?.(piece, request);
      }
      if (chunk.done === true) {
        const usage = Number.isInteger(chunk.prompt_eval_count) && Number.isInteger(chunk.eval_count)
          ? { promptTokens: chunk.prompt_eval_count, completionTokens: chunk.eval_count }
          : undefined;
        return { text, usage };
      }
    }
    throw new ProviderError("provider-error", `the stream from ${url} ended before the reply was complete`);
  };
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

// `openai/gpt-4o` → `gpt-4o`; a reference without this provider's prefix is sent as is.
function modelName(reference, provider) {
  return reference.startsWith(`${provider}/`) ? reference.slice(provider.length + 1) : reference;
}

async function post(fetch, url, headers, body, timeoutMs, secret) {
  let response;
  try {
    response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    throw transportError(e, url, timeoutMs);
  }
  if (!response.ok) {
    let detail = "";
    try {
      detail = (await response.text()).split(/\s+/).join(" ").trim().slice(0, 300);
    } catch {
      // The status alone says enough.
    }
    if (secret && secret.length >= 4) detail = detail.replaceAll(secret, "[redacted]");
    const kind = response.status === 429 ? "rate-limited" : "provider-error";
    throw new ProviderError(kind, `HTTP ${response.status} from ${url}: ${detail}`);
  }
  return response;
}

function transportError(e, url, timeoutMs) {
  if (e?.name === "TimeoutError") return new ProviderError("timeout", `no complete answer from ${url} within ${timeoutMs / 1000} s`);
  if (e?.name === "AbortError") return new ProviderError("cancelled", `the call to ${url} was cancelled`);
  const cause = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(e);
  return new ProviderError("provider-error", `cannot reach ${url} (${cause}): is the endpoint running?`);
}

async function json(response, url) {
  const text = await response.text();
  const value = parse(text, `malformed JSON from ${url}`);
  if (value.error) throw new ProviderError("provider-error", `${url} answered with an error: ${JSON.stringify(value.error)}`);
  return value;
}

function parse(text, what) {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ProviderError("provider-error", `${what}: ${e.message}: ${text.slice(0, 120)}`);
  }
}

function refused(url) {
  return new ProviderError("refused", `${url} refused to answer (content filter)`);
}

function openaiUsage(u) {
  if (!u || !Number.isInteger(u.prompt_tokens) || !Number.isInteger(u.completion_tokens)) return undefined;
  return { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens };
}

// The body's lines as they arrive (reader.read(): async iteration of streams is
// not in every browser yet).
async function* lines(response, url, timeoutMs) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch (e) {
        if (e?.name === "TimeoutError") throw transportError(e, url, timeoutMs);
        throw new ProviderError("provider-error", `the reply from ${url} broke off: ${e?.message ?? e}`);
      }
      if (chunk.done) break;
      buffer += chunk.value;
      let newline;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        yield buffer.slice(0, newline).replace(/\r$/, "");
        buffer = buffer.slice(newline + 1);
      }
    }
    if (buffer.length > 0) yield buffer;
  } finally {
    // Frees the connection when the caller stops early (after `[DONE]`, or on an error).
    await reader.cancel().catch(() => {});
  }
}

// Server-sent events: the `data` of each event (its `data:` lines joined by "\n").
async function* sseData(response, url, timeoutMs) {
  let data = [];
  for await (const line of lines(response, url, timeoutMs)) {
    if (line === "") {
      if (data.length > 0) yield data.join("\n");
      data = [];
    } else if (line.startsWith("data:")) {
      data.push(line.slice(5).replace(/^ /, ""));
    }
  }
  if (data.length > 0) yield data.join("\n");
}
