"""``textDocument/formatting`` and ``rangeFormatting``: the core formatter, as the smallest edits; and
``onTypeFormatting`` on Enter: the new line indented to the same layout (``line_indent.py``).

The layout is the core's (``analyses/editing/formatter.py``), the same ``plansight format`` prints. The
answer is one edit per block of lines that changes (``format_edits.py``), so the editor keeps the
cursor, the selection and the folds everywhere else, and formatting a large file whose layout is off
in a few places sends those few lines, not the file. A document with syntax errors gets
no edit; the reason goes to the log, since formatting it could lose what the user wrote. The
whole-document edits are kept per version and settings (the server's ``caches.py``): format-on-save right
after a format command, or a client that asks twice, does not lay out a 1 MB problem again. The layout of
each open document's latest formatted version is kept too, and the next version's is made from it
(``format_reuse.py``): after an edit, only the items the edit touched are laid out again, for the whole
document and for a range alike.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing.format_edits import line_edits
from plansight.analyses.editing.format_reuse import LaidOut, format_again
from plansight.analyses.editing.formatter import TextEdit, format_range, refusal
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
        self._layouts: dict[str, LaidOut] = {}
        """the layout of the latest formatted version per open document (uri)"""
        self._lock = threading.Lock()

    def register(self) -> None:
        """Install the document and range formatting handlers."""
        server = self._server

        @server.feature(types.TEXT_DOCUMENT_FORMATTING)
        async def formatting(params: types.DocumentFormattingParams) -> list[types.TextEdit] | None:
            uri = params.text_document.uri
            open_uris = frozenset(server.workspace.text_documents)  # read on the event loop
            return await in_context(server, uri, lambda context: self.document_edits(context, uri, open_uris))

        @server.feature(types.TEXT_DOCUMENT_RANGE_FORMATTING)
        async def range_formatting(
                params: types.DocumentRangeFormattingParams) -> list[types.TextEdit] | None:
            uri = params.text_document.uri
            open_uris = frozenset(server.workspace.text_documents)
            return await in_context(server, uri,
                                    lambda context: self.range_edits(context, params.range, uri, open_uris))

        @server.feature(types.TEXT_DOCUMENT_ON_TYPE_FORMATTING,
                        types.DocumentOnTypeFormattingOptions(first_trigger_character="\n"))
        async def on_type_formatting(
                params: types.DocumentOnTypeFormattingParams) -> list[types.TextEdit] | None:
            if params.ch != "\n":
                return None
            return await in_context(server, params.text_document.uri,
                                    lambda context: new_line_edits(context, params.position))

    def _formatted(self, context: DocumentContext, uri: str,
                   open_uris: frozenset[str]) -> tuple[str | None, str]:
        """The formatted text (or None and why not), from the layout kept for the document's previous
        version where the edit allows; the new layout is kept in its place. The layouts of documents no
        longer in ``open_uris`` are forgotten (runs in a worker thread: the lock is never taken on the
        event loop)."""
        with self._lock:
            for closed in [u for u in self._layouts if u not in open_uris]:
                del self._layouts[closed]
            result, laid = format_again(self._layouts.get(uri), context.parsed, *_settings(context))
            if laid is not None and uri in open_uris:
                self._layouts[uri] = laid
            return result.text, result.reason

    def _layout(self, context: DocumentContext, uri: str, open_uris: frozenset[str]) -> LaidOut | None:
        """The current version's layout (None for plans and files the formatter refuses)."""
        with self._lock:
            laid = self._layouts.get(uri)
        if laid is None or laid.text != context.text:
            self._formatted(context, uri, open_uris)
            with self._lock:
                laid = self._layouts.get(uri)
        return laid if laid is not None and laid.text == context.text else None

    def document_edits(self, context: DocumentContext, uri: str,
                       open_uris: frozenset[str] = frozenset()) -> list[types.TextEdit]:
        """The edit that formats the whole document, cached per version; none when the formatter refuses
        (a file with syntax errors, say).
        """
        def compute() -> tuple[tuple[TextEdit, ...], str]:
            formatted, reason = self._formatted(context, uri, open_uris)
            if formatted is None:
                return (), reason
            return tuple(line_edits(context.text, formatted)), ""

        key = (version_of(context.parsed), _settings(context))
        edits, reason = context.caches.formatting.get(key, compute)
        if reason:
            logger.info("not formatting %s: %s", context.uri, reason)
            return []
        return _lsp_edits(context, edits)

    def range_edits(self, context: DocumentContext, range_: types.Range, uri: str,
                    open_uris: frozenset[str] = frozenset()) -> list[types.TextEdit]:
        """The edits that format the forms overlapping ``range_``, read from the document's layout (kept
        from version to version; a plan's single section laid out alone, from the parse's outline); none
        when the formatter refuses the file."""
        reason = refusal(context.parsed)
        if reason is not None:
            logger.info("not formatting %s: %s", context.uri, reason)
            return []
        indent, width = _settings(context)
        outline = context.parsed.outline
        sections = [section.span for section in outline.sections] if outline is not None else []
        laid = self._layout(context, uri, open_uris) if context.kind != "plan" else None
        edit = format_range(context.text, context.mapper.span(range_), indent, width, context.kind == "plan",
                            sections, None if laid is None else (laid.lines, laid.placed()))
        if edit is None:
            return []
        start, end = edit.span
        moved = [TextEdit(Span(start + e.span.start, start + e.span.end), e.new_text)
                 for e in line_edits(context.text[start:end], edit.new_text)]
        return _lsp_edits(context, moved)


def _settings(context: DocumentContext) -> tuple[int, int]:
    return context.settings.format_indent, context.settings.format_line_width


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
