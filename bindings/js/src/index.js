// agon for JavaScript: the agon:debate component (transpiled by jco), the
// drive loop, and fetch-based providers over the component's wire layer
// (OpenAI and compatible servers, Anthropic, Gemini, Ollama). Runs in Node 20+
// and in browsers. Rendering (Markdown, ADR, HTML, pictures) is
// `agon-debate/report` (src/report.js), a component of its own.
export {
  Session,
  AgonError,
  validateSpec,
  buildSpec,
  catalog,
  wire,
  estimate,
  parseRole,
  builtinRoles,
  checkDocument,
  documentInfo,
  protocolDocuments,
  protocols,
  version,
  specText,
  contextFile,
} from "./engine.js";
export { runDebate, drive } from "./drive.js";
export { openai, anthropic, gemini, ollama, byProvider, ProviderError } from "./providers.js";
