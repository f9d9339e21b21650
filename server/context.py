"""The current text of a document with its parse and its partners, for request handlers.

Diagnostics are published from snapshots computed in the background, but a hover, a completion or a
code lens is asked about the buffer *as it is now*, possibly before that version's analysis ended.
:func:`build_context` answers from the current text, parsing through the server's caches
(``caches.py``: the text the diagnostics analysed is not parsed twice) and linking partners by the
same association rules the diagnostics used. It runs in a worker thread with the collector paused the
way the server's analyses pause it (``memory.py``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from plansight.analyses.syntax.documents import FileKind, ParsedDocument, detect_kind
from plansight.analyses.workspace.association import Association
from plansight.analyses.workspace.sources import DiskSource
from plansight.server.analysis import AnalysisRequest, CachedAnalyzer, analyzer_of
from plansight.server.caches import ServerCaches
from plansight.server.convert import RangeMapper, encoding_name
from plansight.server.documents import OverlaySource, is_file_path, uri_to_path

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer
    from plansight.server.settings import Settings

logger = logging.getLogger(__name__)

_T = TypeVar("_T")
_P = ParamSpec("_P")


@dataclass(frozen=True, slots=True)
class DocumentContext:
    """One document at its current version, ready for any feature.

    ``domain`` / ``problem`` are the partner files' parses (the document's own parse when it *is*
    the domain or problem); ``association`` says which rule linked them.
    """

    uri: str
    path: str
    version: int | None
    text: str
    kind: FileKind
    parsed: ParsedDocument
    domain: ParsedDocument | None
    problem: ParsedDocument | None
    association: Association
    mapper: RangeMapper
    settings: Settings
    source: OverlaySource
    analyzer: CachedAnalyzer
    """parses any other file (unsaved buffers win), e.g. a ``; @reference`` target"""
    caches: ServerCaches
    """the server's caches, for the answers kept per version (symbol index, tokens, formatting)"""

    def read_partner(self, path: str) -> ParsedDocument | None:
        """Parse another file as the editor has it (an unsaved buffer wins over the disk)."""
        return self.analyzer.parse(path)


ContextRequest = AnalysisRequest
"""What :func:`build_context` needs, captured on the event loop (it reads the live buffers): the same
record an analysis takes, so the diagnostics worker can build a request's context from its own."""


def capture_context(server: PlansightServer, uri: str) -> ContextRequest | None:
    """Copy what a context needs from the server; call on the event loop, then build anywhere."""
    store = server.documents
    source = OverlaySource.of(store.open, DiskSource())
    doc = store.open.get(uri)
    path = doc.path if doc is not None else uri_to_path(uri)
    text = doc.text if doc is not None else source.read(path)
    if text is None or len(text) > server.settings.max_file_chars:
        return None
    return ContextRequest(uri, path, doc.version if doc is not None else None, text, source,
                          server.settings, encoding_name(server.workspace.position_encoding),
                          server.workspace_root)


def build_context(request: ContextRequest, caches: ServerCaches) -> DocumentContext | None:
    """Parse and link; safe in a worker thread (it touches only ``request`` and the caches)."""
    analyzer = analyzer_of(request, caches)
    parsed = analyzer.parse(request.path, request.text)
    if parsed is None:
        return None
    association = Association()
    if parsed.kind in ("problem", "plan", "ltl") and (is_file_path(request.path) or parsed.directives):
        try:
            association = analyzer.associate(parsed)
        except Exception:  # linking is best effort here; the diagnostics report its failures
            logger.exception("linking partners of %s failed", request.uri)
    domain = parsed if parsed.kind == "domain" else association.domain
    problem = parsed if parsed.kind == "problem" else association.problem
    return DocumentContext(
        uri=request.uri, path=request.path, version=request.version, text=request.text,
        kind=parsed.kind if parsed.kind != "unknown" else detect_kind(request.path, request.text),
        parsed=parsed, domain=domain, problem=problem, association=association,
        mapper=caches.mappers.get((request.path, request.text, request.encoding),
                                  lambda: RangeMapper(request.text, request.encoding)),
        settings=request.settings,
        source=request.source, analyzer=analyzer, caches=caches)


async def in_context(server: PlansightServer, uri: str, work: Callable[[DocumentContext], _T]) -> _T | None:
    """Capture on the event loop, then build the context and run ``work`` on it in one worker thread.

    None when the document cannot be read or parsed; an exception of ``work`` or of the build is raised.
    """
    request = capture_context(server, uri)
    if request is None:
        return None

    diagnostics = server.diagnostics

    def job() -> _T | None:
        with diagnostics.gc.paused():
            context = build_context(request, diagnostics.caches)
            return None if context is None else work(context)

    return await asyncio.to_thread(job)


async def context_in_worker(server: PlansightServer, request: ContextRequest) -> DocumentContext | None:
    """:func:`build_context` in a worker thread, for a request captured with :func:`capture_context`."""
    return await in_worker(server, build_context, request, server.diagnostics.caches)


async def in_worker(server: PlansightServer, work: Callable[_P, _T],
                    *args: _P.args, **kwargs: _P.kwargs) -> _T:
    """``asyncio.to_thread(work, ...)`` with the collector paused the way the server's analyses pause it
    (``memory.py``): parses, symbol indexes and comparisons allocate many acyclic objects."""
    gc = server.diagnostics.gc

    def job() -> _T:
        with gc.paused():
            return work(*args, **kwargs)

    return await asyncio.to_thread(job)
