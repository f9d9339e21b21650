"""Keeping Python's cyclic garbage collector out of the keystroke path.

The model of a 1 MB problem is about a million small immutable objects, none in reference cycles,
and the server keeps the latest two per open file. CPython's generational collector would traverse
each new model in generation 0 and 1, and then the whole heap again on every full collection, which
profiling showed to cost more than a second per analysis of a 1 MB file. Reference counting frees
these objects anyway, so:

* the collector is paused while an analysis or a request's work runs in a worker thread
  (:meth:`GcPolicy.paused`); the pause is counted, so work in several threads nests and the collector
  is enabled again only when the last one ends. Pausing is the server's decision, not the
  analyses': the core never touches the collector (the CLI makes its own choice for a batch);
* after a large analysis, and again after the symbol index of the published version has been built
  in the background (``diagnostics_feature``), everything alive is moved to the permanent generation
  (:func:`gc.freeze`), so no later collection walks those models again — in particular none lands
  inside the first editor request after an edit; objects freed by reference counting leave it as
  usual;
* that is only sound because an analysis leaves no reference cycles behind (models, indexes and the
  per-analysis analyzer are acyclic; ``tests/test_index_warming.py`` checks it): the memory of
  each old version is returned as soon as the caches drop it, not at the next idle collection;
* what freezing could still hide (cyclic garbage among objects that were alive when frozen) is
  collected once the server has had no analysis for a while, when a pause costs the user nothing;
  then the C library's free heap pages go back to the system (``native_heap.py``), so the resident
  size falls back to what the open documents' current versions need (docs/reliability.md, Memory).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from plansight.server.native_heap import release_free_memory

logger = logging.getLogger(__name__)

FREEZE_ABOVE_CHARS = 200_000
IDLE_COLLECT_SECONDS = 15.0
RELEASE_IDLE_SECONDS = 2.0
"""after this long without an analysis, free heap pages go back to the system (``native_heap.py``)"""


class _Pause:
    """The counted pause itself. The collector is one per process, so its pause count must be too:
    two servers (or a server and a test) that each counted on their own would enable it while the
    other's analysis still ran. It is the only state :class:`GcPolicy` instances share."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0

    @contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if self._depth == 0 and gc.isenabled():
                gc.disable()
                self._depth = 1
            elif self._depth:
                self._depth += 1
        try:
            yield
        finally:
            with self._lock:
                if self._depth:
                    self._depth -= 1
                    if self._depth == 0:
                        gc.enable()


_pause = _Pause()


class GcPolicy:
    """When to pause, freeze and run the cyclic garbage collector around analyses, as the module explains."""

    def __init__(self, freeze_above_chars: int = FREEZE_ABOVE_CHARS,
                 idle_seconds: float = IDLE_COLLECT_SECONDS,
                 release_seconds: float = RELEASE_IDLE_SECONDS) -> None:
        self._freeze_above = freeze_above_chars
        self._idle_seconds = idle_seconds
        self._lock = threading.Lock()
        self._frozen = False
        self._release_seconds = min(release_seconds, idle_seconds)
        self._timers: list[asyncio.TimerHandle] = []

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Wrap a request's work in a worker thread: no collection while it allocates. A collector
        that was disabled before (by whoever embeds the server) stays disabled."""
        with _pause():
            yield

    @contextmanager
    def analysing(self, text_chars: int) -> Iterator[None]:
        """Wrap one analysis (in its worker thread); what a large one leaves alive is frozen."""
        with _pause():
            yield
            if text_chars >= self._freeze_above:
                with self._lock:
                    gc.freeze()
                    self._frozen = True

    def collect_when_idle(self, busy: Callable[[], bool], prune: Callable[[], None] = lambda: None) -> None:
        """Called on the event loop after each analysis: (re)start the idle countdowns, the short one
        to give freed memory back (after ``prune`` has let go of what is no longer needed), the long
        one to collect."""
        for timer in self._timers:
            timer.cancel()
        self._timers = []
        if self._frozen:
            loop = asyncio.get_running_loop()
            self._timers = [loop.call_later(self._release_seconds, self._release, busy, prune),
                            loop.call_later(self._idle_seconds, self._collect, busy, prune)]

    def _release(self, busy: Callable[[], bool], prune: Callable[[], None]) -> None:
        """The old versions' memory, freed by reference counting, back to the system: milliseconds,
        unlike a collection of the whole heap."""
        if not busy():
            prune()
            release_free_memory()

    def _collect(self, busy: Callable[[], bool], prune: Callable[[], None]) -> None:
        self._timers = []
        if busy():
            self.collect_when_idle(busy, prune)
            return
        with self._lock:
            gc.unfreeze()
            self._frozen = False
        prune()
        found = gc.collect()
        release_free_memory()
        logger.debug("idle garbage collection freed %d objects", found)
