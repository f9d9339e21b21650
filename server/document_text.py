"""The server's copy of an open document, edited by the Language Server Protocol's line rules.

pygls applies an incremental ``didChange`` to the lines of ``str.splitlines``, which also breaks at
U+2028, U+2029, U+0085, form feed, vertical tab and U+001C-U+001E. The specification ends lines only
at ``\\n``, ``\\r\\n`` and ``\\r``, and so does every editor: with one of those characters in the text,
pygls's copy drifted from the editor's after the first edit, and every later diagnostic was computed
on text the user never wrote. Here positions are turned into offsets by the same
:class:`~plansight.server.convert.RangeMapper` that places diagnostics, so what the server edits
and what it reports agree by construction.
"""

from __future__ import annotations

import logging
from collections.abc import Generator, Sequence
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from plansight.server.convert import RangeMapper, encoding_name

logger = logging.getLogger(__name__)

# Pinned pygls internals (checked by name in tests/test_pinned_internals.py): a subclass method decorated
# with ``lsp_method`` replaces pygls's builtin ``lsp_text_document__did_change`` (builtins are collected by
# attribute name), a builtin handler is a generator that yields ``(user_handler, args, None)``, the user's
# handler sits in ``fm.features``, and ``Workspace.text_documents`` (keyed by unquoted URI) plus
# ``update_text_document`` with a whole-document change replace a document's text.


def apply_change(text: str, change: types.TextDocumentContentChangeEvent, encoding: str) -> str:
    """``text`` after one content change.

    A position past the end of its line means the line's end and a line past the last means the
    document's end, as the specification says; a range given end-first is read as the same range
    start-first rather than refused, so one sloppy client edit cannot lose the document.
    """
    if not isinstance(change, types.TextDocumentContentChangePartial):
        return change.text
    mapper = RangeMapper(text, encoding)
    start, end = mapper.offset(change.range.start), mapper.offset(change.range.end)
    if end < start:
        start, end = end, start
    return text[:start] + change.text + text[end:]


def apply_changes(text: str, changes: Sequence[types.TextDocumentContentChangeEvent], encoding: str) -> str:
    """``text`` after a ``didChange``'s changes, each read against the text the previous one left."""
    for change in changes:
        text = apply_change(text, change, encoding)
    return text


class DocumentSyncProtocol(LanguageServerProtocol):
    """Keeps pygls's workspace copy of each open document by the specification's line rules.

    The edit is computed here and stored as a whole-document replacement, so pygls's own incremental
    code (the one that splits at U+2028) never runs, and ``workspace.get_text_document(uri).source``
    stays what the editor shows.
    """

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams,
    ) -> Generator[Any, Any, None]:
        """Apply the edits by the specification's rules, then run the feature's own handler."""
        workspace = self.workspace
        document = workspace.text_documents.get(unquote(params.text_document.uri))
        if document is None:
            logger.warning("didChange for %s, which is not open; ignored", params.text_document.uri)
        else:
            text = apply_changes(document.source, params.content_changes,
                                 encoding_name(workspace.position_encoding))
            workspace.update_text_document(params.text_document,
                                           types.TextDocumentContentChangeWholeDocument(text=text))
        if (user_handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield user_handler, (params,), None
