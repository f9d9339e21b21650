"""Where the analyses get file contents from.

The analyses never open files themselves: the CLI reads the disk, the language server reads its open
editor buffers first and the disk second. Both hand the analyses a :class:`FileSource`, which keeps the
core testable with an in-memory dictionary and lets unsaved edits take part in cross-file checks.
"""

from __future__ import annotations

import os
import threading
from typing import Protocol, runtime_checkable

from plansight.analyses.syntax.reading import MAX_FILE_BYTES, read_text_file

__all__ = ["MAX_FILE_BYTES", "DiskSource", "ExplainsFailures", "FileSource", "MemorySource"]


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
    """Reads files from disk under the one reading policy (``analyses/syntax/reading.py``), keeping
    CRLF line endings so positions match the editor's: special, binary and oversized files are refused,
    a BOM is dropped and invalid UTF-8 replaced. With ``memoize=True`` each file is read once; the CLI
    uses that during one run, where files do not change and a folder's domain is looked up for every
    problem in it.
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
        return read_text_file(path).failure or "it could not be read"

    @staticmethod
    def _read(path: str) -> str | None:
        return read_text_file(path).text

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
