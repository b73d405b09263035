"""The locks a sweep holds on its results and its journals folder, as ``agon batch`` locks its results."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO


class OutputLocked(RuntimeError):
    """Another run (``run_batch`` or ``agon batch``) is writing the same results or journals."""


class _Lock:
    """An OS file lock (``flock``), taken at once or not at all, as ``agon batch``
    takes ``RESULTS.lock``: the holder writes its pid into the file, and removes
    the file (while still holding it) when it lets go. The OS drops the lock when
    its process dies, however it dies, so a lock is never stale."""

    def __init__(self, path: Path, what: str) -> None:
        self.path = path
        while True:
            file = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held until release()
            if not _try_lock(file):
                try:
                    file.seek(0)
                    pid = file.read().strip()
                except OSError:
                    pid = ""
                file.close()
                holder = f" (pid {pid})" if pid.isdigit() else ""
                raise OutputLocked(
                    f"{what} is being written by another run{holder}, which holds the lock {path}: "
                    "wait for it to end (or stop it), then run this again"
                )
            try:
                now, held = os.stat(path), os.fstat(file.fileno())
                same = (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)
            except FileNotFoundError:
                same = False
            if same:
                break
            file.close()  # its last holder removed it between our open and our lock: again
        file.truncate(0)
        file.write(str(os.getpid()))
        file.flush()
        self.file: IO[str] = file

    def release(self) -> None:
        # Removed while still held, so nobody can lock this file after we let it go.
        try:
            self.path.unlink()
        except OSError:
            pass
        self.file.close()  # closing drops the lock


if sys.platform == "win32":
    import msvcrt

    def _try_lock(file: IO[str]) -> bool:
        try:
            file.seek(0)  # every taker locks the same first byte
            msvcrt.locking(file.fileno(), msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False
else:
    import fcntl

    def _try_lock(file: IO[str]) -> bool:
        try:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False
