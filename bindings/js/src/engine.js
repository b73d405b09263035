// The engine: the agon:debate component as jco transpiled it, with errors that
// carry the core's message. Conversion only: every debate decision is made
// inside the component.
import { engine } from "../gen/agon.js";

/** Misuse of the engine (bad spec, unknown request id, bad journal), with the core's message. */
export class AgonError extends Error {
  constructor(payload) {
    super(message(payload));
    this.name = "AgonError";
    /** The WIT `error` variant, e.g. `{ tag: "invalid-spec", val: { field, reason } }`. */
    this.payload = payload;
  }
}

// The same sentences as agon-core's `Display for Error`; a case this SDK does
// not know yet still gets a readable message.
function message(error) {
  const { tag, val } = error ?? {};
  switch (tag) {
    case "invalid-spec":
      return val.field ? `invalid spec: ${val.field}: ${val.reason}` : `invalid spec: ${val.reason}`;
    case "unknown-request":
      return `no request with id ${val} was released`;
    case "already-answered":
      return `request ${val} was already answered`;
    case "invalid-journal":
      return `invalid journal at line ${val.line}: ${val.reason}`;
    case "invalid-role":
      return `invalid role file at line ${val.line}: ${val.reason}`;
    default:
      return `${tag}: ${JSON.stringify(val, (_k, v) => (typeof v === "bigint" ? v.toString() : v))}`;
  }
}

// jco reports a WIT `result` error as a ComponentError whose payload is the
// `error` variant; rethrow it as an AgonError carrying the core's message.
function rethrowing(fn) {
  return function (...args) {
    try {
      return fn.apply(this, args);
    } catch (e) {
      if (e && typeof e === "object" && "payload" in e && e.payload?.tag) throw new AgonError(e.payload);
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

/** Every protocol the engine offers: `[{ name, summary }]`. */
export const protocols = () => engine.protocols();

/** The engine's version. */
export const version = () => engine.version();

/** A spec as the engine takes it: JSON text, or an object to serialize. */
export function specText(spec) {
  return typeof spec === "string" ? spec : JSON.stringify(spec);
}
