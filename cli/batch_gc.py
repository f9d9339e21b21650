"""The CLI's decision about Python's cyclic garbage collector: off for the whole command.

Parsing and checking a 1 MB problem allocates about a million small objects, none in reference
cycles; the generational collector would traverse them again and again while they are built, which
more than doubles the run time. Reference counting frees them as usual, and the analyses leave no
cycles behind (``tests/test_index_warming.py`` checks the server's path), so a batch run gives up
nothing by switching the collector off. The core never touches the collector: this is the entry
point's call, and the language server makes its own (``server/memory.py``), since it runs for hours.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_off() -> Iterator[None]:
    """Disable the collector for the block; restore whatever state the caller had (tests call
    ``main`` many times in one process)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
