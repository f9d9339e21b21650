"""The one policy for reading a user's file, shared by every command and the language server.

Every path plansight reads (a file named on the command line, a file found in a folder, the target
of a ``; @domain`` line, a submission to grade) goes through :func:`read_text_file`, so every
command accepts and refuses the same files with the same words (docs/reliability.md):

* only regular files are read. A FIFO, a socket or a device is refused *before* anything could
  block on it: its type is checked with ``os.stat`` first and again with ``fstat`` on a descriptor
  opened with ``O_NONBLOCK`` (opening a named pipe without it waits for a writer forever);
* files over :data:`MAX_FILE_BYTES` (or the limit the caller gives, ``plansight lint``'s
  :data:`MAX_STREAMED_FILE_BYTES`) are refused without being read, and a file that grows past it
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
"""Larger files are refused by default, and by the editor: no real PDDL file comes close, a full
analysis takes about 45 times the file in memory, and reading a stray 2 GB log would hang."""

MAX_STREAMED_FILE_BYTES = 1024 * 1024 * 1024
"""``plansight lint``'s limit: it checks a problem over the full analysis's limit a chunk at a time
(``analyses/syntax/problem_stream.py``), in memory a small multiple of the file (docs/reliability.md)."""

STREAM_ABOVE_CHARS = 16 * 1024 * 1024
"""``plansight lint``'s default: problems longer than this are checked a chunk at a time (a full
analysis of one peaks at about 45 times its size)."""

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


def path_problem(path: str, max_bytes: int = MAX_FILE_BYTES) -> str | None:
    """Why ``path`` would be refused before reading a byte of it (missing, not a regular file, too large).

    For the CLI's checks of its arguments: only a ``stat``, so it is cheap and never blocks.
    """
    try:
        info = os.stat(path)
    except OSError as error:
        return _os_reason(error)
    return special_file_reason(info.st_mode) or _size_problem(info.st_size, max_bytes)


def read_text_file(path: str, limit: int | None = None, max_bytes: int = MAX_FILE_BYTES) -> FileText:
    """The text of ``path`` under the policy above; never raises and never blocks on a special file.

    ``limit`` reads only the first ``limit`` bytes (for sniffing a header); the checks are the same.
    ``max_bytes`` is the size over which the file is refused.
    """
    problem = path_problem(path, max_bytes)
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
        problem = special_file_reason(info.st_mode) or _size_problem(info.st_size, max_bytes)
        if problem is not None:
            return FileText(None, problem)
        wanted = max_bytes + 1 if limit is None else min(limit, max_bytes + 1)
        head = _read_at_most(descriptor, min(wanted, BINARY_PROBE))
        if b"\0" in head:  # before reading the rest: a binary file is refused at the cost of its head
            return FileText(None, "it looks like a binary file")
        data = bytearray(head)
        if wanted > len(data) == BINARY_PROBE:
            _read_rest(descriptor, data, wanted, info.st_size)
    except OSError as error:
        return FileText(None, _os_reason(error))
    finally:
        os.close(descriptor)
    if len(data) > max_bytes:  # it grew after the size check, or it lies about its size
        return FileText(None, f"it grew past {max_bytes:,} bytes ({_mib(max_bytes)}) while being read")
    bom = data.startswith(_BOM)
    # decoded in place, without a copy of the bytes: a file of 100 MB then peaks at twice its size
    with memoryview(data) as view, view[len(_BOM) if bom else 0:] as body:
        try:
            text = str(body, "utf-8")
            lossy = False
        except UnicodeDecodeError:
            text = str(body, "utf-8", "replace")
            lossy = True
    return FileText(text, bom=bom, lossy=lossy)


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


def _read_rest(descriptor: int, data: bytearray, size: int, expected: int) -> None:
    """Read on into ``data`` until it holds ``size`` bytes or the file ends: into one buffer of the
    size ``fstat`` gave, then (a file that grows meanwhile) a chunk at a time."""
    filled = len(data)
    data.extend(bytes(max(0, min(size, expected + 1) - filled)))
    with memoryview(data) as view:
        while filled < len(data):
            count = os.readv(descriptor, [view[filled:]]) if hasattr(os, "readv") else _read_one(
                descriptor, view[filled:])
            if not count:
                break
            filled += count
    del data[filled:]
    if filled == len(data) < size:
        data += _read_at_most(descriptor, size - filled)


def _read_one(descriptor: int, target: memoryview) -> int:
    chunk = os.read(descriptor, min(_CHUNK, len(target)))
    target[:len(chunk)] = chunk
    return len(chunk)


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


def _size_problem(size: int, max_bytes: int = MAX_FILE_BYTES) -> str | None:
    if size <= max_bytes:
        return None
    return f"it is {size:,} bytes; files over {max_bytes:,} bytes ({_mib(max_bytes)}) are not read"


def _mib(size: int) -> str:
    """``50 MiB``, or ``1 GiB``."""
    if size >= 1 << 30 and size % (1 << 30) == 0:
        return f"{size >> 30} GiB"
    return f"{size // 1024 // 1024} MiB"


def _os_reason(error: OSError) -> str:
    if isinstance(error, FileNotFoundError):
        return "no such file"
    if isinstance(error, PermissionError):
        return "permission denied"
    if isinstance(error, IsADirectoryError):
        return "it is a folder"
    return error.strerror or type(error).__name__
