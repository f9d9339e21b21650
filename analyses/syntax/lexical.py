"""PDDL's lexical rules, in one place: names, words, comments, the ``(define (domain|problem NAME``
header and the directive comments at the top of a file.

The parser, the editor features (formatting, folding, cursor context, quick fixes, semantic tokens)
and the cheap "what is this file" look-ups all scan text. When each kept its own regex they drifted
apart: file kind detection read a ``(define (problem`` written inside a ``;`` comment of a plan as a
header while the domain search skipped it. Everything that needs one of these rules takes it from
here, as a pattern string to embed in a larger regex or as a function.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from plansight.analyses.diagnostics.spans import Span, line_end_at, line_start_at, unify_line_breaks

COMMENT = r";[^\r\n]*"
"""A comment: ``;`` to the end of the line (its line break, ``\\n``, ``\\r\\n`` or a lone ``\\r``
as the LSP specification counts them, is not part of it)."""
WORD_CHAR = r"[^\s();]"
WORD = WORD_CHAR + "+"
"""One word: what lies between blanks, parentheses and comments (names, ``?x``, ``:init``, numbers)."""
NAME = r"[A-Za-z0-9_][A-Za-z0-9_\-]*"
"""What the lexer reads as a name. PDDL's grammar asks for a letter first; digits and ``_`` are
accepted too because planning benchmarks use them (``1``-named objects, ``_tmp``)."""
STRICT_NAME = r"[A-Za-z][A-Za-z0-9_\-]*"
"""A name as PDDL's grammar writes it (a letter, then letters, digits, ``-`` and ``_``): what a
rename may produce, and what the fast path for plain ``:init`` atoms accepts."""
NAME_END = r"(?![A-Za-z0-9_\-])"
"""Lookahead: the name or keyword before it is complete (``:init`` but not ``:init-x``)."""

COMMENT_RE = re.compile(COMMENT)
WORD_RE = re.compile(WORD)
STRICT_NAME_RE = re.compile(STRICT_NAME)

HEADER_WINDOW = 1 << 16
"""How much of a file the header look-up reads: a header sits at the top, and a 5 MB problem
must not be scanned to the end to learn that it is a problem."""

_HEADER = re.compile(
    COMMENT + r"|\(\s*define\s*\(\s*(domain|problem)" + r"(?![^\s();])(?:\s+(" + WORD + r"))?",
    re.IGNORECASE)
_DIRECTIVE = re.compile(
    r"^[ \t]*;+[ \t]*@(domain|problem|reference-plan|reference|plan|equivalence)"
    r"[ \t]+(\S[^\r\n]*?)[ \t]*\r?$",
    re.IGNORECASE | re.MULTILINE,
)
_FIRST_CODE = re.compile(r"^[ \t]*([^;\s])", re.MULTILINE)

HeaderKind = Literal["domain", "problem"]


@dataclass(frozen=True, slots=True)
class Header:
    """What ``(define (domain NAME)`` / ``(define (problem NAME)`` says, read without a full parse."""

    kind: HeaderKind
    name: str

    @property
    def key(self) -> str:
        """The name compared across files: PDDL names are case-insensitive."""
        return self.name.lower()


def _header(text: str) -> tuple[HeaderKind, str | None] | None:
    for match in _HEADER.finditer(text, 0, min(len(text), HEADER_WINDOW)):
        if match.group(1) is not None:
            kind: HeaderKind = "domain" if match.group(1).lower() == "domain" else "problem"
            return kind, match.group(2)
    return None


def sniff_header(text: str) -> Header | None:
    """The kind and name of a PDDL file from its header (comments skipped); None without a named
    header. Looking for a domain among a folder's files must not fully parse every problem next to it."""
    found = _header(text)
    if found is None or found[1] is None:
        return None
    return Header(found[0], found[1])


def sniff_kind(text: str) -> HeaderKind | None:
    """``domain`` or ``problem`` from the header even when its name is still missing (a file being
    typed is still parsed as what it is becoming); comments skipped."""
    found = _header(text)
    return None if found is None else found[0]


def first_line_span(text: str) -> Span:
    """Where file-level diagnostics go: the first line's text (an empty span in an empty file)."""
    return Span(0, line_end_at(text, 0))


def without_comment(line: str) -> str:
    """The line up to its comment (words never hold a ``;``, so the first one starts it)."""
    return line.split(";", 1)[0]


def without_comments(text: str) -> str:
    """The text with every comment removed (newlines kept, so line numbers stay)."""
    return COMMENT_RE.sub("", text)


def is_comment_line(line: str) -> bool:
    """A line holding only a comment (blank lines are not comment lines)."""
    return line.lstrip().startswith(";")


def in_comment(text: str, offset: int) -> bool:
    """Whether ``offset`` lies inside a comment: a ``;`` before it on its line."""
    return ";" in text[line_start_at(text, offset):offset]


def first_code_offset(text: str) -> int:
    """Where the first line that is neither blank nor a comment starts its text (``len(text)``
    when there is none)."""
    match = _FIRST_CODE.search(unify_line_breaks(text))  # `^` knows `\n` only; same offsets
    return match.start(1) if match is not None else len(text)


def directive_comments(text: str) -> Iterator[tuple[str, str, Span]]:
    """``; @domain PATH`` and friends as (key lower-cased, value, span of the value); only comment
    lines at the top count, before the first form."""
    text = unify_line_breaks(text)  # `^`/`$` know `\n` only; a lone `\r` ends a line too (same offsets)
    for match in _DIRECTIVE.finditer(text, 0, first_code_offset(text)):
        yield match.group(1).lower(), match.group(2), Span(match.start(2), match.end(2))
