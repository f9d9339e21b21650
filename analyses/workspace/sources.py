"""Where the analyses get file contents from.

The analyses never open files themselves: the CLI reads the disk, the language server reads its open
editor buffers first and the disk second. Both hand the analyses a :class:`FileSource`, which keeps the
core testable with an in-memory dictionary and lets unsaved edits take part in cross-file checks.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import Protocol, runtime_checkable

from plansight.analyses.syntax.reading import MAX_FILE_BYTES, path_problem, read_text_file

__all__ = ["MAX_FILE_BYTES", "DiskSource", "ExplainsFailures", "FileSource", "MemorySource", "ReadsHeads"]

MEMO_CHARS = 4_000_000
"""Text a memoizing :class:`DiskSource` keeps: a few domains and the files being linted, not a folder."""


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
class ReadsHeads(Protocol):
    """A source that can read the start of a file alone: finding a problem's domain sniffs the header
    of every file of its folder, which must not read a sibling problem of hundreds of MB whole."""

    def read_head(self, path: str, limit: int) -> str | None:
        """The text of at most the first ``limit`` bytes of ``path`` (the whole text if it is at hand),
        or None when the file cannot be read."""
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
    a BOM is dropped and invalid UTF-8 replaced. With ``memoize=True`` files are read once while they
    are in use; the CLI uses that during one run, where files do not change and a folder's domain is
    looked up for every problem in it. Only the most recently read ``memo_chars`` characters of text
    are kept: a folder of large problems must not stay in memory until the run ends, while the domain
    every problem reads stays among the most recent.
    """

    def __init__(self, memoize: bool = False, memo_chars: int = MEMO_CHARS,
                 max_bytes: int = MAX_FILE_BYTES) -> None:
        self._memoize = memoize
        self._max_bytes = max_bytes
        self._memo_chars = memo_chars
        self._lock = threading.Lock()
        self._texts: OrderedDict[str, str | None] = OrderedDict()
        self._chars = 0
        self._listings: dict[str, list[str]] = {}

    def read(self, path: str) -> str | None:
        """The file's text, or None when it cannot be read; remembered while among the most recently
        read when memoizing.
        """
        if self._memoize:
            with self._lock:
                if path in self._texts:
                    self._texts.move_to_end(path)
                    return self._texts[path]
        text = self._read(path)
        if self._memoize:
            with self._lock:
                self._remember(path, text)
        return text

    def _remember(self, path: str, text: str | None) -> None:
        """Keep ``text`` as the newest entry; forget the oldest beyond the budget (the newest stays even
        when it alone exceeds it: the file being linted is read again by its own checks)."""
        previous = self._texts.pop(path, None)
        self._chars -= len(previous or "")
        self._texts[path] = text
        self._chars += len(text or "")
        while self._chars > self._memo_chars and len(self._texts) > 1:
            _, dropped = self._texts.popitem(last=False)
            self._chars -= len(dropped or "")

    def read_head(self, path: str, limit: int) -> str | None:
        """The start of the file: its remembered text, or its first ``limit`` bytes read from disk."""
        if self._memoize:
            with self._lock:
                if path in self._texts:
                    return self._texts[path]
        try:
            small = os.stat(path).st_size <= limit
        except OSError:
            small = True  # read() says why
        if small:  # read whole and remembered: it is likely to be read again
            return self.read(path)
        return read_text_file(path, limit=limit, max_bytes=self._max_bytes).text

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
        problem = path_problem(path, self._max_bytes)
        if problem is not None:
            return problem
        try:
            size = os.stat(path).st_size
        except OSError:
            size = 0
        if size > MAX_FILE_BYTES:  # readable by `lint`, but too large to model as another file's partner
            return f"it is {size:,} bytes; a partner over {MAX_FILE_BYTES:,} bytes (50 MiB) is not analysed"
        return read_text_file(path, max_bytes=self._max_bytes).failure or "it could not be read"

    def _read(self, path: str) -> str | None:
        return read_text_file(path, max_bytes=self._max_bytes).text

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
