"""Where the analyses get file contents from.

The analyses never open files themselves: the CLI reads the disk, the language server reads its open
editor buffers first and the disk second. Both hand the analyses a :class:`FileSource`, which keeps the
core testable with an in-memory dictionary and lets unsaved edits take part in cross-file checks.
"""

from __future__ import annotations

import os
import stat
import threading
from typing import Protocol, runtime_checkable

MAX_FILE_BYTES = 50 * 1024 * 1024
"""Larger files are refused: no real PDDL file comes close, and reading a stray 2 GB log would hang."""

_BINARY_PROBE = 8192


class FileSource(Protocol):
    """Where the core reads files from: the disk for the CLI, the editor's unsaved buffers over the disk for
    the server.
    """

    def read(self, path: str) -> str | None:
        """The text of ``path``, or None when it cannot be read (missing, a folder, binary, ...)."""
        ...

    def list_dir(self, directory: str) -> list[str]:
        """Names (not paths) of the regular files in ``directory``, sorted; [] when it is not one."""
        ...


@runtime_checkable
class ExplainsFailures(Protocol):
    """A source that can say why :meth:`FileSource.read` returned None, for a message a user can act on."""

    def failure(self, path: str) -> str:
        """Why ``path`` cannot be read, as a short phrase for a diagnostic (``no such file``, ...)."""
        ...


class DiskSource:
    """Reads files from disk as UTF-8, keeping CRLF line endings so positions match the editor's.

    Invalid UTF-8 is replaced rather than refused (a stray Latin-1 comment must not hide the PDDL),
    a leading byte-order mark is dropped (editors hide it too), and binary or oversized files are
    refused. With ``memoize=True`` each file is read once; the CLI uses that during one run, where
    files do not change and a folder's domain is looked up for every problem in it.
    """

    def __init__(self, memoize: bool = False) -> None:
        self._memoize = memoize
        self._lock = threading.Lock()
        self._texts: dict[str, str | None] = {}
        self._listings: dict[str, list[str]] = {}

    def read(self, path: str) -> str | None:
        """The file's text, or None when it cannot be read; remembered for the source's lifetime when
        memoizing.
        """
        if self._memoize:
            with self._lock:
                if path in self._texts:
                    return self._texts[path]
        text = self._read(path)
        if self._memoize:
            with self._lock:
                self._texts[path] = text
        return text

    def list_dir(self, directory: str) -> list[str]:
        """The regular files in ``directory``, sorted; remembered for the source's lifetime when memoizing."""
        if self._memoize:
            with self._lock:
                if directory in self._listings:
                    return list(self._listings[directory])
        names = self._list_dir(directory)
        if self._memoize:
            with self._lock:
                self._listings[directory] = names
        return list(names)

    def failure(self, path: str) -> str:
        """Why ``path`` cannot be read, in words for a diagnostic (``no such file``, ``it is a folder``, ...).
        """
        try:
            info = os.stat(path)
        except FileNotFoundError:
            return "no such file"
        except PermissionError:
            return "permission denied"
        except OSError as error:
            return error.strerror or type(error).__name__
        if stat.S_ISDIR(info.st_mode):
            return "it is a folder"
        if not stat.S_ISREG(info.st_mode):
            return "it is not a regular file"
        if info.st_size > MAX_FILE_BYTES:
            size, limit = info.st_size / 1024 / 1024, MAX_FILE_BYTES // 1024 // 1024
            return f"it is {size:.1f} MB; files over {limit} MB are not read"
        try:
            with open(path, "rb") as handle:
                head = handle.read(_BINARY_PROBE)
        except PermissionError:
            return "permission denied"
        except OSError as error:
            return error.strerror or type(error).__name__
        if b"\0" in head:
            return "it looks like a binary file"
        return "it could not be read"

    @staticmethod
    def _read(path: str) -> str | None:
        try:
            with open(path, "rb") as handle:
                if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                    return None
                data = handle.read(MAX_FILE_BYTES + 1)
        except OSError:  # missing, a folder, permission denied, ...
            return None
        if len(data) > MAX_FILE_BYTES or b"\0" in data[:_BINARY_PROBE]:
            return None
        return data.decode("utf-8-sig", errors="replace")

    @staticmethod
    def _list_dir(directory: str) -> list[str]:
        try:
            with os.scandir(directory or ".") as entries:
                return sorted(entry.name for entry in entries if _is_file(entry))
        except OSError:
            return []


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


class MemorySource:
    """Files held in a dictionary: for tests, and as the overlay of unsaved buffers over another source."""

    def __init__(self, files: dict[str, str], fallback: FileSource | None = None) -> None:
        self._files = {os.path.normpath(path): text for path, text in files.items()}
        self._fallback = fallback

    def read(self, path: str) -> str | None:
        """The text held for ``path``, else what the fallback source reads."""
        text = self._files.get(os.path.normpath(path))
        if text is None and self._fallback is not None:
            return self._fallback.read(path)
        return text

    def list_dir(self, directory: str) -> list[str]:
        """The names held in ``directory`` together with the fallback's, sorted."""
        folder = os.path.normpath(directory or ".")
        names = {os.path.basename(p) for p in self._files if (os.path.dirname(p) or ".") == folder}
        if self._fallback is not None:
            names.update(self._fallback.list_dir(directory))
        return sorted(names)
