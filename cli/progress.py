"""The progress bar every batch subcommand shows on a terminal (never in JSON mode or when piped)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sized
from typing import TypeVar

_T = TypeVar("_T")

THRESHOLD = 20
"""Fewer quick items (files to lint or simulate) finish before a progress bar would be worth drawing."""


def should_show(count: int, text_format: bool, disabled: bool = False, threshold: int = THRESHOLD) -> bool:
    """A bar only for people: text output, stderr a terminal, not ``--no-progress``, and more than
    ``threshold`` items (slow items, such as plans evaluated against a reference, pass 0)."""
    return text_format and not disabled and count > threshold and sys.stderr.isatty()


def _file_name(item: object) -> str:
    return os.path.basename(item) if isinstance(item, str) else ""


def with_progress(items: Iterable[_T], label: str, show: bool, *, total: int | None = None,
                  describe: Callable[[_T], str] = _file_name) -> Iterator[_T]:
    """Yield ``items``; while each is being handled, a bar on stderr says ``label``, how far along, how
    many items a second, and ``describe(item)`` (by default the file name of items that are paths).
    ``total`` is needed when ``items`` has no length (results streaming in from worker processes)."""
    if not show:
        yield from items
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
               TimeRemainingColumn(), TextColumn("{task.fields[current]}", style="dim"))
    count = total if total is not None else len(items) if isinstance(items, Sized) else None
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(label, total=count, current="", rate="")
        start = time.monotonic()
        for done, item in enumerate(items, 1):
            progress.update(task, current=describe(item))
            yield item
            progress.update(task, advance=1, rate=f"{done / max(1e-6, time.monotonic() - start):.1f}/s")
