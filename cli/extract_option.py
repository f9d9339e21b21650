"""``--extract``: read files as language-model answers (docs/llm-output.md), shared by the commands.

Without the flag a file is read as it is (strict mode): a line that is not an action is a failing
``parse`` step. With it, the plan or definition is taken out of prose, fences, emphasis, numbering and
``[PLAN]`` markers first, and each report says what was removed.
"""

from __future__ import annotations

import argparse
from collections import Counter
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from plansight.analyses.syntax.extraction import Extraction
    from plansight.analyses.workspace.sources import FileSource

SHOWN = 5
"""Removed stretches listed one by one in the text report; the rest are counted."""


def add_extract_option(parser: argparse.ArgumentParser) -> None:
    """Declare ``--extract`` on a command that reads plans or problems."""
    parser.add_argument("--extract", action="store_true",
                        help="read files as language-model answers: take the plan or PDDL out of prose, "
                             "Markdown fences, emphasis, list numbering and [PLAN] markers, and report "
                             "what was removed (docs/llm-output.md)")


def file_source(args: argparse.Namespace, memoize: bool = False, max_bytes: int | None = None) -> FileSource:
    """The disk, read through extraction when ``--extract`` was given; files over ``max_bytes`` (by
    default the reading policy's limit) are refused."""
    from plansight.analyses.syntax.reading import MAX_FILE_BYTES
    from plansight.analyses.workspace.extracting_source import ExtractingSource
    from plansight.analyses.workspace.lint import DiskSource

    disk = DiskSource(memoize=memoize, max_bytes=MAX_FILE_BYTES if max_bytes is None else max_bytes)
    return ExtractingSource(disk) if getattr(args, "extract", False) else disk


def extraction_of(source: FileSource, path: str | None) -> Extraction | None:
    """What extraction removed from ``path`` (None in strict mode)."""
    from plansight.analyses.workspace.extracting_source import ExtractingSource

    if path is None or not isinstance(source, ExtractingSource):
        return None
    return source.extraction(path)


def extracted_json(source: FileSource, path: str | None) -> dict[str, Any] | None:
    """The ``extracted`` section of a JSON report (None in strict mode)."""
    extraction = extraction_of(source, path)
    return extraction.to_json() if extraction is not None else None


def removal_summary(extracted: dict[str, Any]) -> str:
    """``removed 3 stretches (2 list numbering, 1 Markdown fence)`` from an ``extracted`` JSON section."""
    removed = extracted["removed"]
    if not removed:
        return "nothing removed"
    counts = Counter(entry["reason"] for entry in removed)
    kinds = ", ".join(f"{count} {reason}" for reason, count in counts.items())
    return f"removed {len(removed)} stretch{'es' if len(removed) != 1 else ''} ({kinds})"


def write_extracted_text(extraction: Extraction | None, out: TextIO, indent: str = "  ") -> None:
    """One line saying what was removed, then up to :data:`SHOWN` stretches with their line and reason."""
    if extraction is None:
        return
    removed = extraction.removed
    out.write(f"{indent}extracted: {removal_summary(extraction.to_json())}\n")
    entries = extraction.to_json()["removed"]
    for removal, entry in zip(removed[:SHOWN], entries, strict=False):
        line = extraction.original.count("\n", 0, removal.span.start) + 1
        out.write(f"{indent}  line {line}: {removal.reason}: {entry['text']!r}\n")
    if len(removed) > SHOWN:
        out.write(f"{indent}  … and {len(removed) - SHOWN} more (--format json lists them all)\n")
