"""Lexical rules read without a full parse: the ``(define (domain|problem NAME`` header of a PDDL file
and the line file-level diagnostics point at.

Linking files (which domain a problem belongs to), grading a folder and the editor's symbol lookups
all need a file's kind and name before (or instead of) parsing it; one definition keeps them agreeing,
and it sits in the syntax layer so every layer above can use it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from plansight.analyses.diagnostics.spans import Span

_HEADER_WINDOW = 1 << 16
"""How far into a file the header is looked for (comments before it included)."""


@dataclass(frozen=True, slots=True)
class Header:
    """What ``(define (domain NAME)`` / ``(define (problem NAME)`` says, read without a full parse."""

    kind: Literal["domain", "problem"]
    name: str

    @property
    def key(self) -> str:
        """The name compared across files: PDDL names are case-insensitive."""
        return self.name.lower()


_HEADER = re.compile(r";[^\n]*|\(\s*define\s*\(\s*(domain|problem)\s+([^\s();]+)", re.IGNORECASE)


def sniff_header(text: str) -> Header | None:
    """The kind and name of a PDDL file from its header (comments skipped).

    Looking for a domain among a folder's files must not fully parse every 5 MB problem next to it.
    """
    for match in _HEADER.finditer(text, 0, min(len(text), _HEADER_WINDOW)):
        if match.group(1) is not None:
            kind: Literal["domain", "problem"] = "domain" if match.group(1).lower() == "domain" else "problem"
            return Header(kind, match.group(2))
    return None


def first_line_span(text: str) -> Span:
    """Where file-level diagnostics go: the first line's text (an empty span in an empty file)."""
    end = text.find("\n")
    end = len(text) if end == -1 else end
    if end > 0 and text[end - 1] == "\r":
        end -= 1
    return Span(0, end)
