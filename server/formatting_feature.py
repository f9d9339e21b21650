"""``textDocument/formatting`` and ``rangeFormatting``: the core formatter, as the smallest edits; and
``onTypeFormatting`` on Enter: the new line indented to the same layout (``line_indent.py``).

The layout is the core's (``analyses/editing/formatter.py``), the same ``plansight format`` prints. The
answer is one edit per block of lines that changes (``format_edits.py``), so the editor keeps the
cursor, the selection and the folds everywhere else, and formatting a large file whose layout is off
in a few places sends those few lines, not the file. A document with syntax errors gets
no edit; the reason goes to the log, since formatting it could lose what the user wrote. The
whole-document edits are kept per version and settings (the server's ``caches.py``): format-on-save right
after a format command, or a client that asks twice, does not lay out a 1 MB problem again.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing.format_edits import line_edits
from plansight.analyses.editing.formatter import TextEdit, format_parsed, format_range, refusal
from plansight.analyses.editing.line_indent import new_line_edit
from plansight.server.caches import version_of
from plansight.server.context import DocumentContext, in_context
from plansight.server.feature_contract import ServerFeature

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer

logger = logging.getLogger(__name__)


class FormattingFeature(ServerFeature):
    """Whole-document and range formatting with the core's formatter."""

    methods = (types.TEXT_DOCUMENT_FORMATTING, types.TEXT_DOCUMENT_RANGE_FORMATTING,
               types.TEXT_DOCUMENT_ON_TYPE_FORMATTING)

    def __init__(self, server: PlansightServer) -> None:
        self._server = server

    def register(self) -> None:
        """Install the document and range formatting handlers."""
        server = self._server

        @server.feature(types.TEXT_DOCUMENT_FORMATTING)
        async def formatting(params: types.DocumentFormattingParams) -> list[types.TextEdit] | None:
            return await in_context(server, params.text_document.uri, document_edits)

        @server.feature(types.TEXT_DOCUMENT_RANGE_FORMATTING)
        async def range_formatting(
                params: types.DocumentRangeFormattingParams) -> list[types.TextEdit] | None:
            return await in_context(server, params.text_document.uri,
                                    lambda context: range_edits(context, params.range))

        @server.feature(types.TEXT_DOCUMENT_ON_TYPE_FORMATTING,
                        types.DocumentOnTypeFormattingOptions(first_trigger_character="\n"))
        async def on_type_formatting(
                params: types.DocumentOnTypeFormattingParams) -> list[types.TextEdit] | None:
            if params.ch != "\n":
                return None
            return await in_context(server, params.text_document.uri,
                                    lambda context: new_line_edits(context, params.position))


def _settings(context: DocumentContext) -> tuple[int, int]:
    return context.settings.format_indent, context.settings.format_line_width


def document_edits(context: DocumentContext) -> list[types.TextEdit]:
    """The edit that formats the whole document, cached per version; none when the formatter refuses (a file
    with syntax errors, say).
    """
    def compute() -> tuple[tuple[TextEdit, ...], str]:
        result = format_parsed(context.parsed, *_settings(context))
        if result.text is None:
            return (), result.reason
        return tuple(line_edits(context.text, result.text)), ""

    edits, reason = context.caches.formatting.get((version_of(context.parsed), _settings(context)), compute)
    if reason:
        logger.info("not formatting %s: %s", context.uri, reason)
        return []
    return _lsp_edits(context, edits)


def range_edits(context: DocumentContext, range_: types.Range) -> list[types.TextEdit]:
    """The edits that format the forms overlapping ``range_`` (a single section laid out alone, from the
    parse's outline); none when the formatter refuses the file."""
    reason = refusal(context.parsed)
    if reason is not None:
        logger.info("not formatting %s: %s", context.uri, reason)
        return []
    indent, width = _settings(context)
    outline = context.parsed.outline
    sections = [section.span for section in outline.sections] if outline is not None else []
    edit = format_range(context.text, context.mapper.span(range_), indent, width, context.kind == "plan",
                        sections)
    if edit is None:
        return []
    start, end = edit.span
    moved = [TextEdit(Span(start + e.span.start, start + e.span.end), e.new_text)
             for e in line_edits(context.text[start:end], edit.new_text)]
    return _lsp_edits(context, moved)


def new_line_edits(context: DocumentContext, position: types.Position) -> list[types.TextEdit]:
    """The indentation of the line the cursor is on after Enter (``line_indent.py``); works on files with
    syntax errors too, since only the parentheses before the line are read."""
    if context.kind not in ("domain", "problem", "plan", "unknown"):
        return []
    line_start = context.mapper.offset(types.Position(line=position.line, character=0))
    edit = new_line_edit(context.text, line_start, context.settings.format_indent, context.kind == "plan")
    if edit is None:
        return []
    span, new_text = edit
    return [types.TextEdit(range=context.mapper.range(span), new_text=new_text)]


def _lsp_edits(context: DocumentContext, edits: Sequence[TextEdit]) -> list[types.TextEdit]:
    mapper = context.mapper
    return [types.TextEdit(range=mapper.range(edit.span), new_text=edit.new_text) for edit in edits]
