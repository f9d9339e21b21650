"""The one place where core objects become ``lsprotocol`` types.

The core speaks in code-point :class:`Span` offsets and its own :class:`Severity`/:class:`Tag`
enums so that it never depends on the editor protocol; everything the client
sees is translated here, once. Positions are counted in the encoding negotiated at ``initialize``:
UTF-16 unless the client offered and pygls chose UTF-8 or UTF-32.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from enum import Enum
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

from plansight.analyses.diagnostics.diagnostic import Diagnostic, Severity, Tag
from plansight.analyses.diagnostics.spans import LineIndex, Span
from plansight.analyses.diagnostics.spans import Position as SpanPosition

SOURCE = "plansight"

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFORMATION: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}
_TAG = {Tag.UNNECESSARY: types.DiagnosticTag.Unnecessary, Tag.DEPRECATED: types.DiagnosticTag.Deprecated}


UTF8, UTF16 = types.PositionEncodingKind.Utf8.value, types.PositionEncodingKind.Utf16.value


def encoding_name(encoding: str | Enum | None) -> str:
    """``"utf-16"`` for ``PositionEncodingKind.Utf16`` (``str()`` of a str-enum is its *name*)."""
    if encoding is None:
        return UTF16
    return str(encoding.value) if isinstance(encoding, Enum) else str(encoding)


class RangeMapper:
    """Turns spans of one text into LSP ranges in the negotiated position encoding."""

    __slots__ = ("_encoding", "_index", "_text")

    def __init__(self, text: str, encoding: str = UTF16) -> None:
        self._text = text
        self._index = LineIndex(text)
        self._encoding = encoding_name(encoding)

    def position(self, offset: int) -> types.Position:
        """The LSP position of a code-point offset, in the position encoding negotiated with the client."""
        if self._encoding == UTF16:
            pos = self._index.position(offset)
            return types.Position(line=pos.line, character=pos.character)
        offset = max(0, min(offset, len(self._text)))
        line = self._index.line_of(offset)
        start = self._index.line_start(line)
        offset = min(offset, max(start, self._index.line_end(line)))
        if self._encoding == UTF8:
            segment = self._text[start:offset]
            return types.Position(line=line, character=len(segment.encode("utf-8", "surrogatepass")))
        return types.Position(line=line, character=offset - start)

    def range(self, span: Span) -> types.Range:
        """The LSP range of a span."""
        return types.Range(start=self.position(span.start), end=self.position(span.end))

    def offset(self, position: types.Position) -> int:
        """The code-point offset of a client position; past a line's end clamps to the line's end."""
        if self._encoding == UTF16:
            return self._index.offset(SpanPosition(position.line, position.character))
        if position.line >= self._index.line_count:
            return len(self._text)
        line = max(position.line, 0)
        start, end = self._index.line_start(line), self._index.line_end(line)
        if self._encoding == UTF8:
            return start + _utf8_prefix_length(self._text[start:end], max(position.character, 0))
        return min(start + max(position.character, 0), end)

    def span(self, range_: types.Range) -> Span:
        """The span an LSP range covers."""
        return Span(self.offset(range_.start), self.offset(range_.end))


def _utf8_prefix_length(line: str, units: int) -> int:
    """How many code points of ``line`` fit in its first ``units`` UTF-8 bytes (a lone surrogate, which
    strict UTF-8 cannot encode, counts as the three bytes "surrogatepass" gives it)."""
    encoded = line.encode("utf-8", "surrogatepass")[:units]
    try:
        return len(encoded.decode("utf-8", "surrogatepass"))
    except UnicodeDecodeError as error:  # the cut fell inside a character: that character does not fit
        return len(encoded[:error.start].decode("utf-8", "surrogatepass"))


def path_to_uri(path: str) -> str:
    """A ``file://`` URI for a filesystem path (pseudo-paths of unsaved buffers are already URIs)."""
    if "://" in path or path.startswith("untitled:"):
        return path
    return from_fs_path(os.path.abspath(path)) or Path(os.path.abspath(path)).as_uri()


def to_lsp_diagnostic(
    diagnostic: Diagnostic,
    mapper: RangeMapper,
    uri: str,
    partner_mapper: Callable[[str], RangeMapper | None],
) -> types.Diagnostic:
    """One core diagnostic as the client sees it.

    ``partner_mapper`` gives the range mapper of another file named by related information (the
    domain declaring a predicate, say); when that file cannot be read the location points at its
    first character rather than dropping the explanation.
    """
    related = []
    for item in diagnostic.related:
        if item.path is None:
            target_uri, target_range = uri, mapper.range(item.span)
        else:
            other = partner_mapper(item.path)
            target_uri = path_to_uri(item.path)
            target_range = other.range(item.span) if other is not None else _START
        related.append(types.DiagnosticRelatedInformation(
            location=types.Location(uri=target_uri, range=target_range), message=item.message))
    data: dict[str, str] = {"code": diagnostic.code, **dict(diagnostic.data)}
    return types.Diagnostic(
        range=mapper.range(diagnostic.span),
        message=diagnostic.message,
        severity=_SEVERITY[diagnostic.severity],
        code=diagnostic.code,
        source=SOURCE,
        tags=[_TAG[tag] for tag in diagnostic.tags] or None,
        related_information=related or None,
        data=data,
    )


def to_lsp_diagnostics(
    diagnostics: Iterable[Diagnostic],
    text: str,
    uri: str,
    encoding: str,
    partner_text: Callable[[str], str | None],
    mapper: RangeMapper | None = None,
) -> list[types.Diagnostic]:
    """All diagnostics of one document, sharing one line index per file involved; ``mapper`` is the
    document's own when the caller already has it (the server's, shared with its requests)."""
    if mapper is None:
        mapper = RangeMapper(text, encoding)
    partners: dict[str, RangeMapper | None] = {}

    def partner_mapper(path: str) -> RangeMapper | None:
        if path not in partners:
            other = partner_text(path)
            partners[path] = RangeMapper(other, encoding) if other is not None else None
        return partners[path]

    return [to_lsp_diagnostic(d, mapper, uri, partner_mapper) for d in diagnostics]


_START = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
