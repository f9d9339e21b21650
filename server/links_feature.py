"""Document links: the paths of ``; @domain`` / ``; @problem`` / ``; @reference`` / ``; @reference-plan``
/ ``; @plan`` directives and a problem's ``(:domain NAME)`` open the file they name."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from lsprotocol import types

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.workspace.association import resolve_link
from plansight.server.convert import path_to_uri
from plansight.server.documents import is_file_path
from plansight.server.feature_contract import ServerFeature
from plansight.server.symbol_lookup import SymbolRequest, run_on_context

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer


class LinksFeature(ServerFeature):
    """Makes the paths in directive comments clickable."""

    methods = (types.TEXT_DOCUMENT_DOCUMENT_LINK,)

    def __init__(self, server: PlansightServer) -> None:
        self._server = server

    def register(self) -> None:
        """Install the document-link handler."""
        server = self._server

        @server.feature(types.TEXT_DOCUMENT_DOCUMENT_LINK, types.DocumentLinkOptions(resolve_provider=False))
        async def document_link(params: types.DocumentLinkParams) -> list[types.DocumentLink] | None:
            return await run_on_context(server, params.text_document.uri, links)


def links(request: SymbolRequest) -> list[types.DocumentLink]:
    """A link for each directive whose target can be read; broken ones are left to their diagnostic."""
    context = request.context
    found: list[types.DocumentLink] = []
    if is_file_path(context.path):
        for directive in context.parsed.directives:
            value = directive.value.rstrip()
            target = resolve_link(context.path, value)
            if context.source.read(target) is None:
                continue  # the broken-link diagnostic explains it; a link would open an empty editor
            found.append(types.DocumentLink(
                range=context.mapper.range(Span(directive.span.start, directive.span.start + len(value))),
                target=path_to_uri(target), tooltip=f"Open the linked {directive.key} `{value}`"))
    problem = context.parsed.problem
    if problem is not None and problem.domain_name is not None and context.domain is not None \
            and is_file_path(context.domain.path):
        found.append(types.DocumentLink(
            range=context.mapper.range(problem.domain_name.span), target=path_to_uri(context.domain.path),
            tooltip=f"Open the domain ({os.path.basename(context.domain.path)})"))
    return found
