"""Answers remembered per document version, for the requests whose answer is the whole file.

An editor asks for the semantic tokens or the formatting of one version more than once (switching
tabs, a theme change, format-on-save after a format command); on a 1 MB problem each answer costs
hundreds of milliseconds of pure Python. The parse cache hands out the same
:class:`~plansight.analyses.syntax.documents.ParsedDocument` object for the same text, so the identity of
the parses (the document's and its partners') is the version key. Entries keep those objects alive,
so an ``id`` is never reused while its entry exists; only the last few entries are kept, since a
1 MB answer is megabytes of memory.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

_T = TypeVar("_T")


class VersionCache(Generic[_T]):
    """``get(objects, options, compute)``: ``compute()`` once per identity of ``objects`` and equal
    ``options``, for the ``size`` most recent keys."""

    def __init__(self, size: int = 4) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, tuple[tuple[object, ...], _T]] = OrderedDict()

    def get(self, objects: tuple[object, ...], options: Hashable, compute: Callable[[], _T]) -> _T:
        """The cached answer for these objects and options, computing it on a miss; the objects are kept alive
        with the entry so their identities cannot be reused.
        """
        key = (tuple(id(o) for o in objects), options)
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None:
                self._entries.move_to_end(key)
                return hit[1]
        value = compute()  # outside the lock: two threads computing one answer is merely wasteful
        with self._lock:
            self._entries[key] = (objects, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return value
