"""One analysis of one document version, as run in a worker thread.

Everything here is a plain function of its inputs (text, an overlay of the file system, settings) so
that it can run off the event loop without touching server state, and it never raises: a file that
trips a bug in a check still gets diagnostics (one ``internal-error``) and the server lives on.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from lsprotocol import types

from plansight.analyses.diagnostics.diagnostic import Diagnostic, make
from plansight.analyses.diagnostics.severity_overrides import apply_severity_overrides
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.syntax.documents import ParsedDocument, detect_kind
from plansight.analyses.workspace.lint import Analyzer, AnalyzerCaches, AnalyzerOptions
from plansight.analyses.workspace.references import find_reference
from plansight.analyses.workspace.sources import FileSource
from plansight.server.caches import ServerCaches
from plansight.server.convert import RangeMapper, to_lsp_diagnostics
from plansight.server.documents import DocumentSnapshot, OverlaySource, ParseCache, is_file_path
from plansight.server.settings import Settings

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class AnalysisRequest:
    """Everything one analysis needs, captured on the event loop so the worker thread never reads mutable
    server state.
    """

    uri: str
    path: str
    version: int | None
    text: str
    source: OverlaySource
    settings: Settings
    encoding: str
    workspace_root: str | None
    cancelled: Callable[[], bool] | None = None
    """Asked during the equivalence search and plan simulation: true stops them (a newer edit made this
    text stale)."""
    comparing: Callable[[str], None] | None = None
    """Told the reference's file name before a problem is compared with it, so that the server can
    show progress when the comparison takes long."""


@dataclass(frozen=True, slots=True)
class AnalysisOutcome:
    """What an analysis produced: the snapshot to publish and its diagnostics in LSP form."""

    snapshot: DocumentSnapshot
    lsp_diagnostics: list[types.Diagnostic]
    interrupted: bool = False
    """Cancelled while it ran: its diagnostics may lack the equivalence check's."""


class CachedAnalyzer(Analyzer):
    """The core :class:`Analyzer`, parsing through a server's shared :class:`ParseCache`.

    One analyzer is built per analysis (it is cheap) because it is bound to that analysis's overlay
    of the editor buffers and the settings of that moment; what it computes outlives it in the
    server's caches (``caches.py``).
    """

    def __init__(self, source: FileSource, parses: ParseCache, options: AnalyzerOptions,
                 caches: AnalyzerCaches | None = None) -> None:
        super().__init__(source, options, caches if caches is not None else AnalyzerCaches(parses=0))
        self._shared = parses
        self._own: dict[tuple[str, str], ParsedDocument] = {}
        """the parses this analysis has read: an edit retires its text from the shared cache
        (``caches.py``), and a stale analysis still finishing must not parse that text again"""

    def parse(self, path: str, text: str | None = None) -> ParsedDocument | None:
        """The parse of ``path`` (from ``text`` when given, else as the overlay reads it), shared through the
        parse cache; None when it cannot be read.
        """
        if text is None:
            text = self.source.read(path)
            if text is None:
                return None
        key = (path, text)
        parsed = self._own.get(key)
        if parsed is None:
            parsed = self._own[key] = self._shared.parse(path, text)
        return parsed


def analyzer_of(request: AnalysisRequest, caches: ServerCaches) -> CachedAnalyzer:
    """The analyzer of one request: its buffers, its settings, the server's caches."""
    settings = request.settings
    options = AnalyzerOptions(
        domain_globs=domain_globs_of(request),
        reference_globs=reference_globs_of_settings(settings, request.workspace_root),
        equivalence_budget=(settings.equivalence_state_budget, settings.equivalence_time_limit_s),
        simulation_budget=(settings.simulation_time_limit_s, settings.simulation_work_budget),
        simulation_epsilon=settings.simulation_epsilon)
    return CachedAnalyzer(request.source, caches.parses, options, caches.analysis)


def analyse(request: AnalysisRequest, caches: ServerCaches) -> AnalysisOutcome:
    """Lint one document version and convert its diagnostics; the worker-thread entry point."""
    snapshot = _snapshot(request, caches)
    try:
        # the line table of this text, built once for the diagnostics and every request on this
        # version (``context.py`` asks the same memo)
        mapper = caches.mappers.get((request.path, request.text, request.encoding),
                                    lambda: RangeMapper(request.text, request.encoding))
        converted = to_lsp_diagnostics(snapshot.diagnostics, request.text, request.uri, request.encoding,
                                       request.source.read, mapper)
    except Exception as error:
        logger.exception("converting diagnostics of %s failed", request.uri)
        snapshot = _failed(request, error)
        converted = to_lsp_diagnostics(snapshot.diagnostics, request.text, request.uri, request.encoding,
                                       lambda _path: None)
    interrupted = request.cancelled is not None and request.cancelled()
    return AnalysisOutcome(snapshot, converted, interrupted)


def _snapshot(request: AnalysisRequest, caches: ServerCaches) -> DocumentSnapshot:
    text, path = request.text, request.path
    limit = request.settings.max_file_chars
    if len(text) > limit:
        size_mb = len(text.encode("utf-8", "surrogatepass")) / 1_000_000
        diagnostic = make(
            "file-too-large",
            f"This file is {size_mb:.1f} MB, over the {request.settings.max_file_size_mb:g} MB limit, so "
            "plansight does not analyse it in the editor. Raise `plansight.diagnostics.maxFileSizeMB` "
            "or run `plansight lint` on it.",
            Span(0, 0))
        return DocumentSnapshot(request.uri, request.version, path, text, detect_kind(path, text), None,
                                (diagnostic,))
    try:
        analyzer = analyzer_of(request, caches)
        if request.comparing is not None:
            _announce_reference(analyzer, path, text, request.comparing)
        result = analyzer.lint(path, text=text, cancelled=request.cancelled)
        parsed = analyzer.parse(path, text)
        diagnostics = apply_severity_overrides(result.diagnostics, request.settings.severity_overrides)
        return DocumentSnapshot(request.uri, request.version, path, text, result.kind, parsed,
                                diagnostics, result.domain_path, result.problem_path)
    except Exception as error:
        logger.exception("analysing %s (version %s) failed", request.uri, request.version)
        return _failed(request, error)


def _announce_reference(analyzer: Analyzer, path: str, text: str, comparing: Callable[[str], None]) -> None:
    parsed = analyzer.parse(path, text)  # cached: the lint that follows reuses it
    if parsed is not None and parsed.kind == "problem":
        link = find_reference(parsed, analyzer.options.reference_globs)
        if link is not None:
            comparing(os.path.basename(link.path))


def _failed(request: AnalysisRequest, error: Exception) -> DocumentSnapshot:
    diagnostic: Diagnostic = make(
        "internal-error",
        f"plansight could not analyse this file: internal error {type(error).__name__}: {error}. "
        "Other files are unaffected; the server log has the details — please report it.",
        Span(0, 0))
    kind = detect_kind(request.path, request.text)
    return DocumentSnapshot(request.uri, request.version, request.path, request.text, kind, None,
                            (diagnostic,))


def domain_globs_of(request: AnalysisRequest) -> tuple[tuple[str, str], ...]:
    """Settings globs made absolute: they are written relative to the workspace folder."""
    return domain_globs_of_settings(request.settings, request.workspace_root)


def domain_globs_of_settings(settings: Settings, root: str | None) -> tuple[tuple[str, str], ...]:
    """The ``domainGlobs`` setting resolved against the workspace root, in the form the core's associator
    takes.
    """
    return resolve_globs(((entry.glob, entry.domain) for entry in settings.domain_globs), root)


def reference_globs_of_settings(settings: Settings, root: str | None) -> tuple[tuple[str, str], ...]:
    """``plansight.referenceGlobs`` made absolute, for ``analyses.references.find_reference``."""
    return resolve_globs(((entry.glob, entry.reference) for entry in settings.reference_globs), root)


def reference_plan_globs_of_settings(settings: Settings, root: str | None) -> tuple[tuple[str, str], ...]:
    """``plansight.referencePlanGlobs`` made absolute (``{stem}`` kept), for ``find_reference_plan``."""
    pairs = ((entry.glob, entry.reference_plan) for entry in settings.reference_plan_globs)
    return resolve_globs(pairs, root)


def resolve_globs(pairs: Iterable[tuple[str, str]], root: str | None) -> tuple[tuple[str, str], ...]:
    """Settings' ``(glob, target)`` pairs with both made absolute against the workspace folder."""
    resolved = []
    for glob, target in pairs:
        if root is not None:
            if not os.path.isabs(glob):
                glob = os.path.join(root, glob)
            if not os.path.isabs(target):
                target = os.path.join(root, target)
        resolved.append((glob, os.path.normpath(target) if is_file_path(target) else target))
    return tuple(resolved)
