"""Pausing the cyclic garbage collector while a large model is built.

Building the model of a 1 MB problem allocates hundreds of thousands of small immutable objects, none
of them in reference cycles; CPython's generational collector would still traverse the growing heap
again and again, which more than doubles parse time. Reference counting frees everything as usual.
The pause is counted so that concurrent parses (the server runs them in worker threads) nest.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0


@contextmanager
def gc_paused() -> Iterator[None]:
    """Keep the cyclic collector off for the duration of the block; nested and concurrent uses share one
    pause, and the collector comes back only when the last one ends.
    """
    global _depth
    with _lock:
        if _depth == 0 and gc.isenabled():
            gc.disable()
            _depth = 1
        elif _depth:
            _depth += 1
    try:
        yield
    finally:
        with _lock:
            if _depth:
                _depth -= 1
                if _depth == 0:
                    gc.enable()
