"""``textDocument/semanticTokens/full`` and ``/range``: names coloured by what they resolve to.

The tokens are the core's (``analyses/editing/semantic_tokens.py``: the symbol index plus keywords, numbers
and comments); this module only picks the document's index and encodes positions in the negotiated
encoding. A range request (the visible part of a large problem) encodes only that part. The encoded
array is kept per version (the server's ``caches.py``): a repeated request on an unchanged 1 MB problem
costs nothing but sending it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing.semantic_tokens import TOKEN_MODIFIERS, TOKEN_TYPES, encode, semantic_tokens
from plansight.server.caches import version_of
from plansight.server.context import DocumentContext, in_context
from plansight.server.convert import encoding_name
from plansight.server.feature_contract import ServerFeature
from plansight.server.symbol_lookup import index_of

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer

LEGEND = types.SemanticTokensLegend(token_types=list(TOKEN_TYPES), token_modifiers=list(TOKEN_MODIFIERS))


class SemanticTokensFeature(ServerFeature):
    """Semantic highlighting: each name coloured by what it refers to, which a grammar cannot know."""

    methods = (types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE)

    def __init__(self, server: PlansightServer) -> None:
        self._server = server

    def register(self) -> None:
        """Install the full and range semantic-token handlers."""
        server = self._server

        @server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
        async def full(params: types.SemanticTokensParams) -> types.SemanticTokens | None:
            return await self._tokens(params.text_document.uri, None)

        @server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE, LEGEND)
        async def in_range(params: types.SemanticTokensRangeParams) -> types.SemanticTokens | None:
            return await self._tokens(params.text_document.uri, params.range)

    async def _tokens(self, uri: str, range_: types.Range | None) -> types.SemanticTokens | None:
        encoding = encoding_name(self._server.workspace.position_encoding)
        return await in_context(self._server, uri, lambda context: tokens_of(context, range_, encoding))


def tokens_of(context: DocumentContext, range_: types.Range | None, encoding: str) -> types.SemanticTokens:
    """The encoded semantic tokens of the document (or of ``range_``), cached per version of it and its
    partners.
    """
    span: Span | None = context.mapper.span(range_) if range_ is not None else None

    def compute() -> list[int]:
        index = index_of(context) if context.parsed.model is not None else None
        return encode(context.text, semantic_tokens(context.text, index, span), encoding)

    versions = (version_of(context.parsed), version_of(context.domain), version_of(context.problem))
    return types.SemanticTokens(data=context.caches.tokens.get((versions, encoding, span), compute))
