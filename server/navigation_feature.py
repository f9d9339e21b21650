"""Go to definition / declaration, find references and document highlight.

All four start from the name under the cursor and its declaration in the symbol index; references
follow the declaration into every file linked to it (:mod:`~plansight.server.symbol_lookup`), so
"find references" on a domain predicate lists its uses in the problems and plans too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from plansight.analyses.editing.symbols import Occurrence
from plansight.server.convert import path_to_uri
from plansight.server.feature_contract import ServerFeature
from plansight.server.symbol_lookup import SymbolRequest, index_of, references, run_on_context

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer


class NavigationFeature(ServerFeature):
    """Go to definition or declaration, find references and highlight occurrences, across the domain, problem
    and plan.
    """

    methods = (types.TEXT_DOCUMENT_DEFINITION, types.TEXT_DOCUMENT_DECLARATION,
               types.TEXT_DOCUMENT_REFERENCES, types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)

    def __init__(self, server: PlansightServer) -> None:
        self._server = server

    def register(self) -> None:
        """Install the definition, declaration, references and highlight handlers."""
        server = self._server

        @server.feature(types.TEXT_DOCUMENT_DEFINITION)
        async def definition(params: types.DefinitionParams) -> list[types.Location] | None:
            return await run_on_context(server, params.text_document.uri,
                                        lambda request: declaration_location(request, params.position))

        @server.feature(types.TEXT_DOCUMENT_DECLARATION)
        async def declaration(params: types.DeclarationParams) -> list[types.Location] | None:
            return await run_on_context(server, params.text_document.uri,
                                        lambda request: declaration_location(request, params.position))

        @server.feature(types.TEXT_DOCUMENT_REFERENCES)
        async def references_(params: types.ReferenceParams) -> list[types.Location] | None:
            return await run_on_context(server, params.text_document.uri, lambda request: reference_locations(
                request, params.position, params.context.include_declaration))

        @server.feature(types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
        async def highlight(params: types.DocumentHighlightParams) -> list[types.DocumentHighlight] | None:
            return await run_on_context(server, params.text_document.uri,
                                        lambda request: highlights(request, params.position))


def _under_cursor(request: SymbolRequest, position: types.Position) -> Occurrence | None:
    context = request.context
    return index_of(context).at(context.mapper.offset(position))


def declaration_location(request: SymbolRequest, position: types.Position) -> list[types.Location] | None:
    """Where the name under the cursor is declared, possibly in another file; None when it is not a known
    name.
    """
    occurrence = _under_cursor(request, position)
    if occurrence is None or occurrence.target is None:
        return None
    target = occurrence.target
    mapper = request.mapper(target.path)
    if mapper is None:
        return None
    return [types.Location(uri=_uri(request, target.path), range=mapper.range(target.span))]


def reference_locations(request: SymbolRequest, position: types.Position,
                        include_declaration: bool) -> list[types.Location] | None:
    """Every occurrence of the name under the cursor across the associated files, the declaration included
    when asked.
    """
    occurrence = _under_cursor(request, position)
    if occurrence is None or occurrence.target is None:
        return None
    locations: list[types.Location] = []
    for found in references(request.context, occurrence.target):
        mapper = request.mapper(found.path, found.text)
        if mapper is None:
            continue
        uri = _uri(request, found.path)
        locations.extend(types.Location(uri=uri, range=mapper.range(o.span)) for o in found.occurrences
                         if include_declaration or not o.is_declaration)
    return locations


def highlights(request: SymbolRequest, position: types.Position) -> list[types.DocumentHighlight] | None:
    """The occurrences in this document of the name under the cursor; a requirement or a built-in
    (no declaration) highlights its other spellings."""
    occurrence = _under_cursor(request, position)
    if occurrence is None:
        return None
    index = index_of(request.context)
    if occurrence.target is not None:
        same = index.references_to(occurrence.target)
    else:
        same = [o for o in index.occurrences
                if o.target is None and o.kind == occurrence.kind and o.key == occurrence.key]
    mapper = request.context.mapper
    return [types.DocumentHighlight(
        range=mapper.range(o.span),
        kind=types.DocumentHighlightKind.Write if o.is_declaration else types.DocumentHighlightKind.Read)
        for o in same]


def _uri(request: SymbolRequest, path: str) -> str:
    return request.context.uri if path == request.context.path else path_to_uri(path)
