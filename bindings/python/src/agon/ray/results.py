"""The results file, in ``agon batch``'s shape: the engine writes every line and reads
the file (``batch-result-line``, ``batch-error-line``, ``repair-batch-results``), so both
hosts write the same bytes and mend a file the same way; this module only does the file
operations the engine's answer names."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .._engine import _Instance, _lift, _text
from ..types import Outcome


def result_line(id: str, question: str, outcome: Outcome, transcript_json: str) -> str:
    """One results line, byte for byte as ``agon batch`` writes it: the engine's. The engine
    reads the outcome from the transcript, where it is ``outcome`` (the argument stays for
    callers of the earlier signature)."""
    line = _Instance().call("batch-result-line", id, question, transcript_json)
    if not isinstance(line, str):
        raise ValueError(f"no results line for {id!r}: its transcript has no outcome (the debate has not ended)")
    return line


def error_line(id: str, question: str, error: str) -> str:
    """The line of a debate that could not run, as ``agon batch`` writes it. On an instance of
    its own: the debate's may have trapped."""
    return _text(_Instance().call("batch-error-line", id, question, error))


def finished_ids(path: Path, keep_errors: bool = False) -> set[str]:
    """Ids already in a results file, after mending it as the engine says (as ``agon batch``
    does): a torn last line (a crash mid-write) is set aside in ``RESULTS.torn`` and cut, its
    debate runs again; unless ``keep_errors``, error lines move to ``RESULTS.errors`` and
    their debates run again."""
    if not path.exists():
        return set()
    data = path.read_bytes()
    repair: dict[str, Any] = _lift(_Instance().call("repair-batch-results", data, keep_errors))
    torn_at, retry = repair["torn_at"], repair["retry"]
    if torn_at is not None:
        _append(Path(f"{path}.torn"), data[torn_at:] + b"\n")
    if retry is not None:
        # The error lines first, where they stay; then the results without them, atomically.
        _append(Path(f"{path}.errors"), retry["error_lines"])
        tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
        with open(tmp, "wb") as f:
            f.write(retry["kept_lines"])
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    elif torn_at is not None:
        with open(path, "r+b") as f:
            f.truncate(torn_at)
            os.fsync(f.fileno())
    elif repair["newline_missing"]:
        _append(path, b"\n")
    return set(repair["finished"])


def _append(path: Path, data: bytes) -> None:
    with open(path, "ab") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
