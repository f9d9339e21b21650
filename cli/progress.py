"""The progress bar every batch subcommand shows on a terminal (never in JSON mode or when piped)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from typing import TypeVar

_T = TypeVar("_T")

THRESHOLD = 20
"""Fewer items finish before a progress bar would be worth drawing."""


def should_show(count: int, text_format: bool, disabled: bool = False) -> bool:
    return text_format and not disabled and count > THRESHOLD and sys.stderr.isatty()


def with_progress(items: Sequence[_T], label: str, show: bool, name: str = "") -> Iterator[_T]:
    """Yield ``items``; while each is being handled, a bar on stderr says ``label`` and how far along.
    Items that are paths get their file name shown (``name`` overrides with a fixed text)."""
    if not show:
        yield from items
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
               TextColumn("{task.fields[current]}", style="dim"))
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(label, total=len(items), current="")
        for item in items:
            progress.update(task, current=name or (os.path.basename(item) if isinstance(item, str) else ""))
            yield item
            progress.advance(task)
