"""Positions in the source text, independent of any editor protocol.

The core measures everything in code-point offsets into the document text because that is what
Python strings index by; converting to (line, UTF-16 character) happens once, at the edge (the CLI's
JSON/SARIF output and the server), through :class:`LineIndex`.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import NamedTuple


class Span(NamedTuple):
    """A half-open range ``[start, end)`` of code-point offsets into one document.

    A named tuple rather than a dataclass: a large problem has a span on every one of its hundreds of
    thousands of names, and tuples are several times cheaper to create.
    """

    start: int
    end: int

    def cover(self, other: Span) -> Span:
        """The smallest span holding both, for a diagnostic that must underline two pieces at once."""
        return Span(min(self.start, other.start), max(self.end, other.end))

    def contains(self, offset: int) -> bool:
        """Whether ``offset`` falls inside, ends included, so a cursor right after a name still counts as on
        it.
        """
        return self.start <= offset <= self.end


NO_SPAN = Span(0, 0)

_LINE_BREAK = re.compile("\r\n|\r|\n")
"""A line terminator as the LSP specification counts them: ``\\n``, ``\\r\\n`` or a lone ``\\r``."""


@dataclass(frozen=True, slots=True)
class Position:
    """A 0-based line and a 0-based character counted in UTF-16 code units (the LSP convention)."""

    line: int
    character: int


def line_start_at(text: str, offset: int) -> int:
    """The offset where the line holding ``offset`` starts (after a ``\\n``, ``\\r\\n`` or lone ``\\r``)."""
    newline, carriage = text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)
    if carriage > newline and text.startswith("\n", carriage + 1):  # ``offset`` is the LF of a CRLF
        carriage = text.rfind("\r", 0, carriage)
    return max(newline, carriage) + 1


def line_end_at(text: str, offset: int) -> int:
    """The offset of the line terminator that ends the line holding ``offset`` (or the text's length)."""
    match = _LINE_BREAK.search(text, offset)
    return match.start() if match is not None else len(text)


_LONE_CR = re.compile(r"\r(?!\n)")


def unify_line_breaks(text: str) -> str:
    """``text`` with each lone ``\\r`` turned into ``\\n``: the same length, so every offset stays valid,
    for code that finds lines by ``\\n`` (CRLF needs nothing: its ``\\n`` already ends the line)."""
    return _LONE_CR.sub("\n", text) if "\r" in text else text


class LineIndex:
    """Maps code-point offsets to LSP positions and back for one text.

    Lines end where the Language Server Protocol specification says they do, at ``\\n``, ``\\r\\n``
    and a lone ``\\r``, and nowhere else: U+2028, U+0085 or a form feed are ordinary characters to an
    editor, so they must be to every position the user sees.
    """

    __slots__ = ("_ascii", "_line_starts", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        starts = [0]
        if "\r" in text and text.count("\r") != text.count("\r\n"):
            starts.extend(match.end() for match in _LINE_BREAK.finditer(text))
        else:  # only \n and \r\n: the line starts are the characters after each \n
            find = text.find
            pos = find("\n")
            while pos != -1:
                starts.append(pos + 1)
                pos = find("\n", pos + 1)
        self._line_starts = starts
        self._ascii = text.isascii()

    @property
    def line_count(self) -> int:
        """How many lines the text has; a text ending in a newline has an empty last line."""
        return len(self._line_starts)

    def line_of(self, offset: int) -> int:
        """The 0-based line holding ``offset``."""
        return bisect.bisect_right(self._line_starts, offset) - 1

    def line_start(self, line: int) -> int:
        """The offset where 0-based ``line`` starts."""
        return self._line_starts[line]

    def line_end(self, line: int) -> int:
        """Offset just past the line's last character, excluding its line ending."""
        starts = self._line_starts
        end = starts[line + 1] - 1 if line + 1 < len(starts) else len(self._text)
        if end > self._line_starts[line] and self._text[end - 1 : end] == "\r":
            end -= 1
        return end

    def position(self, offset: int) -> Position:
        """The LSP position of a code-point offset, its character counted in UTF-16 code units as the protocol
        requires; offsets past a line's end are clamped to it.
        """
        offset = max(0, min(offset, len(self._text)))
        line = self.line_of(offset)
        start = self._line_starts[line]
        offset = min(offset, max(start, self.line_end(line)))
        if self._ascii:
            return Position(line, offset - start)
        segment = self._text[start:offset]
        # "surrogatepass": a lone surrogate (an editor's broken buffer) is one UTF-16 unit, not a crash
        return Position(line, len(segment.encode("utf-16-le", "surrogatepass")) // 2)

    def offset(self, position: Position) -> int:
        """The code-point offset of an LSP position; characters past the line end clamp to it."""
        if position.line >= len(self._line_starts):
            return len(self._text)
        start = self._line_starts[max(position.line, 0)]
        end = self.line_end(max(position.line, 0))
        if self._ascii:
            return min(start + max(position.character, 0), end)
        units = 0
        index = start
        while index < end and units < position.character:
            units += 2 if ord(self._text[index]) > 0xFFFF else 1
            index += 1
        return index

    def range(self, span: Span) -> tuple[Position, Position]:
        """The start and end positions of ``span``, ready for an LSP range."""
        return self.position(span.start), self.position(span.end)
