"""agon for Python: the agon:debate WebAssembly component on wasmtime.

The same ``agon.wasm`` the CLI runs, shipped inside this package. This
package only converts values and drives the loop; every debate decision is
made inside the component.

    from agon import run_debate, openai
    transcript = run_debate(spec, openai("http://127.0.0.1:8080/v1"))

The providers (``openai``, ``anthropic``, ``gemini``, ``ollama``) keep only the
transport: what to send and how to read the reply is the component's wire
layer, the same code every agon host runs.
"""

from . import evaluate
from ._drive import drive, drive_async, run_debate, run_debate_async
from ._engine import (
    AgonError,
    Session,
    build_spec,
    builtin_roles,
    catalog,
    check_document,
    document_info,
    estimate,
    parse_role,
    protocol_documents,
    protocols,
    spec_text,
    html_page,
    timeline_svg,
    validate_spec,
    version,
)
from .files import ContextFile, context_file
from .providers import ProviderError, anthropic, by_provider, gemini, ollama, openai
from .types import Transcript, TranscriptResult, Variant

__all__ = [
    "AgonError",
    "ProviderError",
    "anthropic",
    "Session",
    "Transcript",
    "TranscriptResult",
    "Variant",
    "builtin_roles",
    "by_provider",
    "catalog",
    "check_document",
    "ContextFile",
    "context_file",
    "document_info",
    "drive",
    "drive_async",
    "gemini",
    "ollama",
    "openai",
    "parse_role",
    "protocol_documents",
    "protocols",
    "estimate",
    "evaluate",
    "run_debate",
    "run_debate_async",
    "spec_text",
    "html_page",
    "timeline_svg",
    "build_spec",
    "validate_spec",
    "version",
]
