"""agon for Python: the agon:debate WebAssembly component on wasmtime.

The same ``agon.wasm`` the CLI runs, shipped inside this package. This
package only converts values and drives the loop; every debate decision is
made inside the component.

    from agon import run_debate, openai
    transcript = run_debate(spec, openai("http://127.0.0.1:8080/v1"))
"""

from ._drive import drive, drive_async, run_debate, run_debate_async
from ._engine import (
    AgonError,
    Session,
    build_spec,
    builtin_roles,
    check_document,
    document_info,
    estimate,
    parse_role,
    protocol_documents,
    protocols,
    spec_text,
    timeline_svg,
    validate_spec,
    version,
)
from .providers import ProviderError, by_provider, ollama, openai
from .types import Variant

__all__ = [
    "AgonError",
    "ProviderError",
    "Session",
    "Variant",
    "builtin_roles",
    "by_provider",
    "check_document",
    "document_info",
    "drive",
    "drive_async",
    "ollama",
    "openai",
    "parse_role",
    "protocol_documents",
    "protocols",
    "estimate",
    "run_debate",
    "run_debate_async",
    "spec_text",
    "timeline_svg",
    "build_spec",
    "validate_spec",
    "version",
]
