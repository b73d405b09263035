"""The journals folder, kept by one actor on the driver's machine: the folder need not be
shared between machines."""

from __future__ import annotations

import urllib.parse
import uuid
from pathlib import Path
from typing import Any

import ray


def _journal_name(id: str) -> str:
    return urllib.parse.quote(id, safe="-_.@") + ".ndjson" if len(id) <= 120 else (
        urllib.parse.quote(id[:80], safe="-_.@") + "-" + uuid.uuid5(uuid.NAMESPACE_URL, id).hex + ".ndjson")


class _Journals:
    """The journals folder, on the driver's machine: each line a runner sends is
    appended and flushed before the runner goes on (calls from one runner are
    handled in the order sent)."""

    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        #: Journals set aside, and why, for the driver to report.
        self.aside: list[tuple[str, str]] = []

    def _path(self, id: str) -> Path:
        return self.folder / _journal_name(id)

    def read(self, id: str) -> str:
        """The journal so far ("" if none, or if it had to be set aside); a torn last line is set aside and cut."""
        path = self._path(id)
        if not path.exists():
            return ""
        try:
            text = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeError) as e:
            # One bad journal must not stop the sweep: its debate starts afresh.
            self.set_aside(id, f"cannot be read ({type(e).__name__}: {e})")
            return ""
        keep = text[: text.rfind("\n") + 1]
        if keep != text:
            with open(f"{path}.torn", "a", encoding="utf-8") as aside:
                aside.write(text[len(keep):] + "\n")
            path.write_text(keep, encoding="utf-8")
        return keep

    def set_aside(self, id: str, why: str) -> None:
        """Renames the journal ``<name>.bad`` (``.bad.1``, …), so a fresh one can start."""
        path = self._path(id)
        if not path.exists():
            return
        aside, n = Path(f"{path}.bad"), 0
        while aside.exists():
            n += 1
            aside = Path(f"{path}.bad.{n}")
        path.rename(aside)
        self.aside.append((str(aside), f"the journal of {id!r} {why}: set aside as {aside}, the debate starts afresh"))

    def taken_aside(self) -> list[tuple[str, str]]:
        """The journals set aside since the last call, and why."""
        out, self.aside = self.aside, []
        return out

    def start(self, id: str, header: str) -> None:
        """A new journal; one already there is kept beside it as ``.1`` (``.2``, …)."""
        path = self._path(id)
        if path.exists():
            n = 1
            while Path(f"{path}.{n}").exists():
                n += 1
            path.rename(f"{path}.{n}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(header if header.endswith("\n") else header + "\n")

    def append(self, id: str, line: str) -> None:
        with open(self._path(id), "a", encoding="utf-8") as f:
            f.write(line if line.endswith("\n") else line + "\n")


# Ray's actor class (typed loosely: ray's stubs do not cover .options on a decorated class).
_RemoteJournals: Any = ray.remote(_Journals)
