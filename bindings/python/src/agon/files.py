"""Files as context: a file's text under the path it is shown by.

A spec's ``files`` is ``[{"path", "text"}]``; the engine frames each file in
every prompt, checks the caps, and records its size and SHA-256 in the
transcript. This only reads a file and refuses one that is not text, by name.
"""

from __future__ import annotations

import os
from typing import Optional, TypedDict, Union


class ContextFile(TypedDict):
    """One file of a spec's ``files``."""

    path: str
    text: str


def context_file(path: Union[str, "os.PathLike[str]"], data: Optional[bytes] = None) -> ContextFile:
    """The file at ``path`` (or ``data``, shown as ``path``) as a spec's ``files`` entry.

    Raises ValueError naming the file when it is not UTF-8 text or holds a NUL byte;
    the engine checks the caps and refuses the spec naming the field and the file.
    """
    shown = os.fspath(path)
    if data is None:
        with open(shown, "rb") as f:
            data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = "\0"
    if "\0" in text:
        raise ValueError(f"the context file {shown} is binary, not text: only text files can be context")
    return {"path": shown, "text": text}
