"""The one policy for reading a user's file, shared by every command and the language server.

Every path plansight reads (a file named on the command line, a file found in a folder, the target
of a ``; @domain`` line, a submission to grade) goes through :func:`read_text_file`, so every
command accepts and refuses the same files with the same words (docs/reliability.md):

* only regular files are read. A FIFO, a socket or a device is refused *before* anything could
  block on it: its type is checked with ``os.stat`` first and again with ``fstat`` on a descriptor
  opened with ``O_NONBLOCK`` (opening a named pipe without it waits for a writer forever);
* files over :data:`MAX_FILE_BYTES` are refused without being read, and a file that grows past it
  while being read is refused too (``/dev/zero`` behind a symlink cannot exhaust memory);
* a NUL byte near the start means binary: refused;
* a UTF-8 byte-order mark is dropped (editors hide it) but remembered, so a command that writes the
  file back can restore it; invalid UTF-8 is replaced with U+FFFD (a stray Latin-1 comment must not
  hide the PDDL) and remembered too, so nothing rewrites such a file and loses those bytes.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

MAX_FILE_BYTES = 50 * 1024 * 1024
"""Larger files are refused: no real PDDL file comes close, and reading a stray 2 GB log would hang."""

BINARY_PROBE = 8192
"""How many leading bytes are searched for a NUL to tell a binary file."""

_BOM = b"\xef\xbb\xbf"
_CHUNK = 1 << 20
_OPTIONAL_FLAGS = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
"""Where the platform has them: never wait for a pipe's writer, never adopt a terminal, no newline
translation (Windows)."""

_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


@dataclass(frozen=True, slots=True)
class FileText:
    """What reading one path gave: its text, or why there is none."""

    text: str | None
    failure: str | None = None
    """Why ``text`` is None, worded to follow "`PATH` could not be read: "."""
    bom: bool = False
    """The file started with a UTF-8 byte-order mark (not part of ``text``)."""
    lossy: bool = False
    """Some bytes were not valid UTF-8 and were replaced by U+FFFD in ``text``."""


def special_file_reason(mode: int) -> str | None:
    """Why a file of this ``st_mode`` is not read, or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "it is a folder"
    for test, name in _SPECIAL_KINDS:
        if test(mode):
            return f"it is {name}, not a regular file"
    return "it is not a regular file"


def path_problem(path: str) -> str | None:
    """Why ``path`` would be refused before reading a byte of it (missing, not a regular file, too large).

    For the CLI's checks of its arguments: only a ``stat``, so it is cheap and never blocks.
    """
    try:
        info = os.stat(path)
    except OSError as error:
        return _os_reason(error)
    return special_file_reason(info.st_mode) or _size_problem(info.st_size)


def read_text_file(path: str, limit: int | None = None) -> FileText:
    """The text of ``path`` under the policy above; never raises and never blocks on a special file.

    ``limit`` reads only the first ``limit`` bytes (for sniffing a header); the checks are the same.
    """
    problem = path_problem(path)
    if problem is not None:
        return FileText(None, problem)
    flags = os.O_RDONLY | _OPTIONAL_FLAGS
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        return FileText(None, _os_reason(error))
    try:
        info = os.fstat(descriptor)
        # checked again on what was opened: the path may have been replaced since the stat above
        problem = special_file_reason(info.st_mode) or _size_problem(info.st_size)
        if problem is not None:
            return FileText(None, problem)
        wanted = MAX_FILE_BYTES + 1 if limit is None else min(limit, MAX_FILE_BYTES + 1)
        data = _read_at_most(descriptor, min(wanted, BINARY_PROBE))
        if b"\0" in data:  # before reading the rest: a binary file is refused at the cost of its head
            return FileText(None, "it looks like a binary file")
        if wanted > len(data) == BINARY_PROBE:
            data += _read_at_most(descriptor, wanted - len(data))
    except OSError as error:
        return FileText(None, _os_reason(error))
    finally:
        os.close(descriptor)
    if len(data) > MAX_FILE_BYTES:  # it grew after the size check, or it lies about its size
        return FileText(None, f"it grew past {MAX_FILE_BYTES:,} bytes "
                              f"({MAX_FILE_BYTES // 1024 // 1024} MiB) while being read")
    bom = data.startswith(_BOM)
    if bom:
        data = data[len(_BOM):]
    try:
        return FileText(data.decode("utf-8"), bom=bom)
    except UnicodeDecodeError:
        return FileText(data.decode("utf-8", errors="replace"), bom=bom, lossy=True)


class UnreadableFile(OSError):
    """Raised by :func:`read_text_or_raise`; ``strerror`` is the policy's reason, so callers that
    report ``error.strerror`` for any ``OSError`` word it like every other command."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(reason)
        self.strerror = reason
        self.filename = path


def read_text_or_raise(path: str) -> str:
    """:func:`read_text_file` for code written around ``open()``: the text, or :class:`UnreadableFile`."""
    read = read_text_file(path)
    if read.text is None:
        raise UnreadableFile(path, read.failure or "it could not be read")
    return read.text


def _read_at_most(descriptor: int, size: int) -> bytes:
    chunks: list[bytes] = []
    remaining = size
    while remaining > 0:
        chunk = os.read(descriptor, min(_CHUNK, remaining))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def _size_problem(size: int) -> str | None:
    if size <= MAX_FILE_BYTES:
        return None
    return (f"it is {size:,} bytes; files over {MAX_FILE_BYTES:,} bytes "
            f"({MAX_FILE_BYTES // 1024 // 1024} MiB) are not read")


def _os_reason(error: OSError) -> str:
    if isinstance(error, FileNotFoundError):
        return "no such file"
    if isinstance(error, PermissionError):
        return "permission denied"
    if isinstance(error, IsADirectoryError):
        return "it is a folder"
    return error.strerror or type(error).__name__
