"""A :class:`FileSource` that reads language-model answers in extraction mode (``--extract``).

It wraps the source a command already uses and hands the analyses each file with what is not the plan or
the PDDL definition blanked (docs/llm-output.md), keeping what it removed so the command can report it.
The blanked text keeps the file's offsets and line breaks, so diagnostics point into the original file.
"""

from __future__ import annotations

import os
import threading
from pathlib import PurePath

from plansight.analyses.syntax.documents import LTL_SUFFIXES, PLAN_SUFFIXES
from plansight.analyses.syntax.extraction import Extraction, ExtractionKind, extract
from plansight.analyses.workspace.sources import ExplainsFailures, FileSource


def extraction_kind(path: str) -> ExtractionKind | None:
    """What to take out of a file: a plan from plan files, a definition (a problem when there is one) from
    the others; LTL goals are read as they are."""
    suffix = PurePath(path).suffix.lower()
    if suffix in LTL_SUFFIXES:
        return None
    return "plan" if suffix in PLAN_SUFFIXES else "problem"


class ExtractingSource:
    """Reads through ``inner`` and extracts the plan or definition from every file it returns."""

    def __init__(self, inner: FileSource) -> None:
        self._inner = inner
        self._lock = threading.Lock()
        self._extractions: dict[str, Extraction] = {}

    def read(self, path: str) -> str | None:
        """The file's text with everything extraction removed blanked, or None when it cannot be read."""
        text = self._inner.read(path)
        kind = extraction_kind(path)
        if text is None or kind is None:
            return text
        extraction = extract(text, kind)
        with self._lock:
            self._extractions[_key(path)] = extraction
        return extraction.text

    def list_dir(self, directory: str) -> list[str]:
        """The inner source's listing."""
        return self._inner.list_dir(directory)

    def failure(self, path: str) -> str:
        """Why the inner source could not read ``path``."""
        if isinstance(self._inner, ExplainsFailures):
            return self._inner.failure(path)
        return "cannot be read"

    def extraction(self, path: str) -> Extraction | None:
        """What was taken out of ``path`` when it was read (None before it was read, or for LTL files)."""
        with self._lock:
            found = self._extractions.get(_key(path))
        if found is None and extraction_kind(path) is not None and self.read(path) is not None:
            with self._lock:
                found = self._extractions.get(_key(path))
        return found


def _key(path: str) -> str:
    return os.path.normcase(os.path.abspath(path))
