"""Handing memory that Python has freed back to the operating system, where the C library allows it.

CPython returns its small-object arenas to the system as soon as they are empty, but everything
larger (the text of a 1 MB document, the lists and dictionaries of a model) comes from the C
library's ``malloc``. glibc keeps what is freed in its heaps for reuse, one heap per thread that
allocated, and gives back only the top of each heap on its own; after a large file's old versions are
dropped the server's resident size would stay at its high-water mark. ``malloc_trim(0)`` returns every
free page of every heap. It walks the heaps (milliseconds), so the server calls it only when idle
(``memory.py``). Elsewhere (macOS, Windows, musl) there is no such call and nothing is done.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import sys
from collections.abc import Callable
from functools import cache

logger = logging.getLogger(__name__)


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim  # type: ignore[no-any-return]


def release_free_memory() -> bool:
    """Return the C heaps' free pages to the system; whether the platform offered a way to."""
    trim = _malloc_trim()
    if trim is None:
        return False
    released = trim(0)
    logger.debug("malloc_trim released memory: %s", bool(released))
    return True
