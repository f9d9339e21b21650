"""``textDocument/foldingRange``: every section, action and action part, and comment blocks
(``analyses/editing/folding.py``; works on broken files too)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from lsprotocol import types

from plansight.analyses.editing.folding import folding_ranges
from plansight.analyses.syntax.reading import read_text_file
from plansight.server.documents import uri_to_path
from plansight.server.feature_contract import ServerFeature

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer

_KINDS = {"comment": types.FoldingRangeKind.Comment, "region": types.FoldingRangeKind.Region}


class FoldingFeature(ServerFeature):
    """Folding ranges from parentheses and comments, available even while a file does not parse."""

    methods = (types.TEXT_DOCUMENT_FOLDING_RANGE,)

    def __init__(self, server: PlansightServer) -> None:
        self._server = server

    def register(self) -> None:
        """Install the folding-range handler."""
        server = self._server

        @server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
        async def folding(params: types.FoldingRangeParams) -> list[types.FoldingRange] | None:
            document = server.documents.open.get(params.text_document.uri)
            text = document.text if document is not None else _read(params.text_document.uri)
            if text is None or len(text) > server.settings.max_file_chars:
                return None
            folds = await asyncio.to_thread(folding_ranges, text)
            return [types.FoldingRange(start_line=f.start_line, end_line=f.end_line, kind=_KINDS[f.kind])
                    for f in folds]


def _read(uri: str) -> str | None:
    """A closed file, read under the same policy as every other disk read (a FIFO must not block)."""
    try:
        path = uri_to_path(uri)
    except ValueError:
        return None
    return read_text_file(path).text
