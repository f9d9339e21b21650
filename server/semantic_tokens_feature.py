"""``textDocument/semanticTokens/full``, ``/full/delta`` and ``/range``: names coloured by their meaning.

The tokens are the core's (``analyses/editing/semantic_tokens.py``: the symbol index plus keywords, numbers
and comments); this module only picks the document's index and encodes positions in the negotiated
encoding. A range request (the visible part of a large problem) encodes only that part, kept per version
(the server's ``caches.py``).

Whole-document answers carry a result id, and the last one of each open document is kept with the
tokens it was made from: after an edit the next answer is computed from it
(``analyses/editing/semantic_token_edits.py``: when the parse says the edit touched only elements of
``:init`` or the goal and the symbol index was updated without a change of declarations, only the edited
lines are coloured again and the tokens after them are the previous ones, moved; otherwise the names come
from the whole index, the edited lines alone are scanned again and only the tokens that changed encoded
again), and a ``full/delta`` request naming that id gets back just the edit of the integer
array instead of the whole array (about 700,000 integers for a 1 MB problem), which is what VS Code asks
for after each change once the server offers it.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing.semantic_token_edits import (
    ArrayEdit,
    EncodedTokens,
    advance,
    array_edit,
    encode_document,
    update_document,
)
from plansight.analyses.editing.semantic_tokens import TOKEN_MODIFIERS, TOKEN_TYPES, encode, semantic_tokens
from plansight.analyses.editing.symbols import SymbolIndex
from plansight.analyses.syntax.documents import ParsedDocument
from plansight.server.caches import VersionKey, version_of
from plansight.server.context import DocumentContext, in_context
from plansight.server.convert import encoding_name
from plansight.server.documents import path_key
from plansight.server.feature_contract import ServerFeature
from plansight.server.index_chain import same_text
from plansight.server.symbol_lookup import index_of

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer

LEGEND = types.SemanticTokensLegend(token_types=list(TOKEN_TYPES), token_modifiers=list(TOKEN_MODIFIERS))


@dataclass(frozen=True, slots=True)
class _Answer:
    """The last whole-document answer for one document: its id, what it was computed from, the tokens."""

    result_id: str
    versions: tuple[VersionKey, ...]
    tokens: EncodedTokens


@dataclass(frozen=True, slots=True)
class _Followed:
    """A document's tokens carried along its parses since the last answer (``_follow``), and the symbol
    index of the version they are of (by identity: the index a request for that version finds)."""

    index: SymbolIndex
    tokens: EncodedTokens


class SemanticTokensFeature(ServerFeature):
    """Semantic highlighting: each name coloured by what it refers to, which a grammar cannot know."""

    methods = (types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA,
               types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE)

    def __init__(self, server: PlansightServer) -> None:
        self._server = server
        self._answers: dict[str, _Answer] = {}
        """the last whole-document answer per open document (uri)"""
        self._followed: dict[str, _Followed] = {}
        """per open document (uri) with an answer, its tokens moved along the parses made since"""
        self._uris: dict[str, str] = {}
        """path key -> uri of the documents with an answer"""
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    def register(self) -> None:
        """Install the full, delta and range semantic-token handlers."""
        server = self._server
        diagnostics = getattr(server, "diagnostics", None)
        if diagnostics is not None:
            diagnostics.caches.chain.listeners.append(self._follow)

        @server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
        async def full(params: types.SemanticTokensParams) -> types.SemanticTokens | None:
            answer = await self._whole(params.text_document.uri, None)
            assert not isinstance(answer, types.SemanticTokensDelta)  # no previous id, no delta
            return answer

        @server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA, LEGEND)
        async def delta(params: types.SemanticTokensDeltaParams
                        ) -> types.SemanticTokens | types.SemanticTokensDelta | None:
            return await self._whole(params.text_document.uri, params.previous_result_id)

        @server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE, LEGEND)
        async def in_range(params: types.SemanticTokensRangeParams) -> types.SemanticTokens | None:
            encoding = encoding_name(self._server.workspace.position_encoding)
            return await in_context(self._server, params.text_document.uri,
                                    lambda context: tokens_of(context, params.range, encoding))

    def _follow(self, parsed: ParsedDocument, index: SymbolIndex) -> None:
        """A new parse of a file was indexed by an update of its previous one: move the file's tokens to
        it too when that costs in proportion to the edit (~3 ms for a fact typed into a 1 MB problem).

        VS Code asks for tokens after a pause, not after every keystroke: without this the request after
        a burst of edits finds tokens only of a version several edits back, and colours the whole
        document again from the index (~100 ms). Any parse the tokens cannot follow cheaply (a
        declaration changed, a section parsed again) stops them; the next request then does the work."""
        derived = parsed.derived
        if derived is None:
            return
        with self._lock:
            uri = self._uris.get(path_key(parsed.path))
            answer = self._answers.get(uri) if uri is not None else None
            if uri is None or answer is None:
                return
            followed = self._followed.get(uri)
            if followed is not None and same_text(followed.tokens.text, parsed.text):
                return  # the same text parsed again (its parse was retired): the tokens are of it already
            self._followed.pop(uri, None)
            bases = [followed.tokens] if followed is not None else []
            bases.append(answer.tokens)
            wanted = derived.previous_text
            base = next((b for b in bases if b.text is wanted or b.text == wanted), None)
            tokens = advance(base, parsed.text, index, derived) if base is not None else None
            if tokens is not None:
                self._followed[uri] = _Followed(index, tokens)

    async def _whole(self, uri: str, previous_id: str | None
                     ) -> types.SemanticTokens | types.SemanticTokensDelta | None:
        encoding = encoding_name(self._server.workspace.position_encoding)
        open_uris = frozenset(self._server.workspace.text_documents)  # read on the event loop
        return await in_context(self._server, uri, lambda context: self.whole_document(
            context, uri, encoding, previous_id, open_uris))

    def whole_document(self, context: DocumentContext, uri: str, encoding: str, previous_id: str | None,
                       open_uris: frozenset[str] = frozenset()
                       ) -> types.SemanticTokens | types.SemanticTokensDelta:
        """The tokens of the whole document: the full array, or, when the client holds the answer
        ``previous_id`` names, the edit of it. The answers of documents no longer in ``open_uris`` are
        forgotten (runs in a worker thread: the lock is never taken on the event loop)."""
        versions = (version_of(context.parsed), version_of(context.domain), version_of(context.problem))
        with self._lock:
            for closed in [u for u in self._answers if u not in open_uris]:
                del self._answers[closed]
                self._followed.pop(closed, None)
            self._uris = {k: u for k, u in self._uris.items() if u in self._answers}
            self._uris[path_key(context.path)] = uri
            previous = self._answers.get(uri)
            followed = self._followed.get(uri)
            same = previous is not None and previous.versions == versions
            if previous is not None and same and previous.tokens.encoding == encoding:
                answer, edit = previous, None
            else:
                index = index_of(context) if context.parsed.model is not None else None
                if followed is not None and index is followed.index and followed.tokens.encoding == encoding:
                    tokens = followed.tokens
                    del self._followed[uri]  # the answer holds them now
                    edit = array_edit(previous.tokens.data, tokens.data) if previous is not None else None
                elif previous is not None:
                    tokens, edit = update_document(previous.tokens, context.text, index, encoding,
                                                   context.parsed.derived)
                else:
                    tokens, edit = encode_document(context.text, index, encoding), None
                answer = _Answer(str(next(self._ids)), versions, tokens)
            if uri in open_uris:
                self._answers[uri] = answer
        if previous_id is not None and previous is not None and previous_id == previous.result_id:
            return types.SemanticTokensDelta(edits=_lsp_edits(edit), result_id=answer.result_id)
        return types.SemanticTokens(data=answer.tokens.data, result_id=answer.result_id)


def _lsp_edits(edit: ArrayEdit | None) -> list[types.SemanticTokensEdit]:
    if edit is None:
        return []
    return [types.SemanticTokensEdit(start=edit.start, delete_count=edit.delete_count, data=edit.data)]


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
