"""The one bounded, thread-safe memo behind every cache of the analyzer and the language server.

Each cache is an attribute of the object that uses it (an
:class:`~plansight.analyses.workspace.lint.Analyzer`, a server instance), never a module global: two
servers in one process, or two analyzers, share nothing, and dropping the owner frees everything it
remembered. Keys are values (paths, texts,
settings), never ``id()`` of objects: Python caches a string's hash, and a dictionary compares an
identical string by identity first, so a 1 MB text as a key costs nothing per lookup.

The server computes in worker threads, so a key is computed once however many threads ask for it at
the same time (later callers wait for the first one's result); a failed computation is not kept.
What bounds a cache is memory: the model of a 1 MB problem is tens of megabytes, so besides the
total ``size`` a cache can keep only the ``per_group`` newest entries of each group (the versions of
one file).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from typing import Generic, TypeVar

_K = TypeVar("_K", bound=Hashable)
_V = TypeVar("_V")


class Memo(Generic[_K, _V]):
    """``get(key, compute)``: ``compute()`` once per key, for the ``size`` most recently used keys.

    With ``group``, at most ``per_group`` keys of one group are kept (the newest). A ``size`` of 0
    remembers nothing (every ``get`` computes).
    """

    def __init__(self, size: int, *, group: Callable[[_K], Hashable] | None = None,
                 per_group: int = 0) -> None:
        self._size = size
        self._group = group
        self._per_group = per_group
        self._lock = threading.Lock()
        self._entries: OrderedDict[_K, Future[_V]] = OrderedDict()

    def get(self, key: _K, compute: Callable[[], _V]) -> _V:
        if self._size <= 0:
            return compute()
        with self._lock:
            future = self._entries.get(key)
            owner = future is None
            if future is None:
                future = self._entries[key] = Future()
                self._evict(key)
            else:
                self._entries.move_to_end(key)
        if owner:
            try:
                future.set_result(compute())  # outside the lock: a big parse must not block other files
            except BaseException as error:
                with self._lock:
                    if self._entries.get(key) is future:
                        del self._entries[key]
                future.set_exception(error)
        return future.result()

    def ready(self, key: _K) -> _V | None:
        """The value of ``key`` if it has been computed successfully, without waiting or computing."""
        with self._lock:
            future = self._entries.get(key)
        if future is None or not future.done() or future.exception() is not None:
            return None
        return future.result()

    def newest_ready(self, related: Callable[[_K], bool]) -> _V | None:
        """The most recently used value whose key satisfies ``related`` and that has been computed
        successfully (not one still being computed), or None; what an incremental computation starts from.
        """
        with self._lock:
            futures = [future for key, future in reversed(self._entries.items()) if related(key)]
        for future in futures:
            if future.done() and future.exception() is None:
                return future.result()
        return None

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._entries

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def discard(self, stale: Callable[[_K], bool]) -> int:
        """Forget every key for which ``stale`` is true; returns how many were forgotten."""
        with self._lock:
            keys = [key for key in self._entries if stale(key)]
            for key in keys:
                del self._entries[key]
        return len(keys)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def _evict(self, newest: _K) -> None:
        """Drop the oldest entries beyond the group's and the total bound (called under the lock)."""
        if self._group is not None and self._per_group > 0:
            group = self._group(newest)
            same = [k for k in reversed(self._entries) if self._group(k) == group]
            for stale in same[self._per_group:]:
                del self._entries[stale]
        while len(self._entries) > self._size:
            self._entries.popitem(last=False)
