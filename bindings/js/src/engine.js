// The engine: the agon:debate component as jco transpiled it, with errors that
// carry the core's message. Conversion only: every debate decision is made
// inside the component.
import { engine, wire } from "../gen/agon.js";
import shippedCatalog from "../gen/catalog.js";

/**
 * The component's `wire` interface: agon-wire, the providers' wire formats in one
 * place (the request for a model request, the reading of its reply). The providers
 * in providers.js keep only the transport; a host of one's own can do the same.
 */
export { wire };

/** Misuse of the engine (bad spec, unknown request id, bad journal), with the core's message. */
export class AgonError extends Error {
  constructor(error) {
    super(error.message);
    this.name = "AgonError";
    /** The WIT `error-kind` case, e.g. `"invalid-spec"`. */
    this.kind = error.kind.tag;
    /** Its payload, e.g. `{ field, reason }` for an invalid spec. */
    this.detail = error.kind.val;
  }
}

// jco reports a WIT `result` error as a ComponentError whose payload is the
// `error` record; rethrow it as an AgonError carrying the core's message.
function rethrowing(fn) {
  return function (...args) {
    try {
      return fn.apply(this, args);
    } catch (e) {
      if (e && typeof e === "object" && "payload" in e && e.payload?.kind?.tag) throw new AgonError(e.payload);
      throw e;
    }
  };
}

/** The raw WIT resource: `Session.create(specJson)`, `poll()`, `handle(input)`, ... */
export const Session = engine.Session;
Session.create = rethrowing(Session.create);
Session.fromJournal = rethrowing(Session.fromJournal);
Session.prototype.handle = rethrowing(Session.prototype.handle);

/** Check a spec (object or JSON text) without starting a debate; returns it normalized, as JSON text. */
export function validateSpec(spec) {
  return rethrowing(engine.validateSpec)(specText(spec));
}

/**
 * The model catalog this package ships (catalog/models.json, a snapshot of models.dev, MIT): each
 * model's traits (reasoning, temperature, context, max output) and price, by reference. A copy:
 * change it freely and pass it to `buildSpec` as `catalog`.
 */
export function catalog() {
  return structuredClone(shippedCatalog);
}

/**
 * Build a spec from what a user chose: `{ question, protocol, models, judge?, noJudge?, context?, files?,
 * follows? ({session, transcript}: a finished debate to follow up), options?, roles?,
 * reasoning?, seatReasoning?, catalog?, catalogOverrides?, ... }` (snake_case keys are accepted as well).
 * Seat ids, the judge and role-council's roles are decided by the engine, as in every other host. Each
 * model gets its price and traits from the shipped catalog (`catalog: null` for none, or one of your
 * own), so every request carries what the wire layer shapes its call by. Returns the spec as an object,
 * validated and normalized.
 */
export function buildSpec(request) {
  const snake = Object.fromEntries(
    Object.entries(request).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]),
  );
  if (snake.catalog === undefined) snake.catalog = shippedCatalog;
  return JSON.parse(rethrowing(engine.buildSpec)(JSON.stringify(snake)));
}

/**
 * The worst case of a spec, before it runs: `{calls, promptTokens, completionTokens,
 * costMicroUsd (undefined unless every model is priced), unpriced}`.
 */
export function estimate(spec) {
  return rethrowing(engine.estimate)(specText(spec));
}

/** Parse a role file (markdown with YAML frontmatter); errors name the line. */
export function parseRole(text) {
  return rethrowing(engine.parseRole)(text);
}

/** The built-in role files (four debaters and a judge), as text. */
export const builtinRoles = () => engine.builtinRoles();

/**
 * Check a protocol document (an object or JSON text) on its own; returns it normalized, as JSON
 * text. A mistake throws an `AgonError` whose `detail.field` is its JSON path.
 */
export function checkDocument(document) {
  return rethrowing(engine.checkDocument)(specText(document));
}

/**
 * A protocol document (an object or JSON text), checked and described as `protocols()` describes a
 * built-in: its name, summary, rounds and seats, and the options a spec may set for it. A mistake
 * throws an `AgonError`, as `checkDocument` does.
 */
export function documentInfo(document) {
  return rethrowing(engine.documentInfo)(specText(document));
}

/** The built-in protocols that are protocol documents: `[[name, documentJson], …]`, to start one's own from. */
export const protocolDocuments = () => engine.protocolDocuments();

/** Every protocol the engine offers: `[{ name, summary }]`. */
export const protocols = () => engine.protocols();

/** The engine's version. */
export const version = () => engine.version();

/** A spec as the engine takes it: JSON text, or an object to serialize. */
export function specText(spec) {
  return typeof spec === "string" ? spec : JSON.stringify(spec);
}

/**
 * A file as a spec's `files` entry, `{ path, text }`, from its bytes (read them with `fs.readFile`
 * in Node, `file.arrayBuffer()` in a browser). Throws, naming the file, when it is not UTF-8 text or
 * holds a NUL byte; the engine checks the caps, frames it in every prompt and records its SHA-256.
 */
export function contextFile(path, bytes) {
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    text = "\0";
  }
  if (text.includes("\0")) {
    throw new Error(`the context file ${path} is binary, not text: only text files can be context`);
  }
  return { path, text };
}
