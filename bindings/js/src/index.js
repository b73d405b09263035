// agon for JavaScript: the agon:debate component (transpiled by jco), the
// drive loop, and two fetch-based providers. Runs in Node 20+ and in browsers.
export {
  Session,
  AgonError,
  validateSpec,
  buildSpec,
  estimate,
  parseRole,
  builtinRoles,
  checkDocument,
  documentInfo,
  protocolDocuments,
  timelineSvg,
  protocols,
  version,
  specText,
} from "./engine.js";
export { runDebate, drive } from "./drive.js";
export { openai, ollama, byProvider, ProviderError } from "./providers.js";
