"""``plansight/association``: which domain (and problem) a file is checked against, and by which rule.

The editor's status bar shows the answer and lets the user change the link, so the rule matters as
much as the path: a problem found by convention is relinked with a ``; @domain`` line, one mapped by
``plansight.domainGlobs`` by editing the setting.

The association is recomputed on request (it is cheap: header sniffing plus parses that are cached)
in a worker thread, from the latest analysed snapshot's parse when it is still current; the rules
are the core's (:class:`~plansight.analyses.workspace.association.Associator`), so the answer always matches
what the diagnostics were computed against.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from plansight.analyses.syntax.documents import FileKind, ParsedDocument, detect_kind
from plansight.analyses.syntax.lexical import sniff_header
from plansight.analyses.workspace.association import Association
from plansight.analyses.workspace.lint import AnalyzerOptions
from plansight.analyses.workspace.references import ReferenceLink, find_reference, find_reference_plan
from plansight.analyses.workspace.sources import DiskSource
from plansight.server.analysis import (
    AnalysisRequest,
    CachedAnalyzer,
    domain_globs_of,
    reference_globs_of_settings,
    reference_plan_globs_of_settings,
)
from plansight.server.commands import ASSOCIATION as ASSOCIATION_CALL
from plansight.server.commands import AssociationResult, DomainLink, Link
from plansight.server.context import in_worker
from plansight.server.convert import encoding_name
from plansight.server.documents import OverlaySource, ParseCache, uri_to_path
from plansight.server.feature_contract import ServerFeature

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer

logger = logging.getLogger(__name__)

ASSOCIATION = ASSOCIATION_CALL.id


class AssociationFeature(ServerFeature):
    """Answers ``plansight/association`` for one server instance (the answer's shape is
    ``AssociationResult`` in ``server/commands.py``; references: ``analyses/workspace/references.py``)."""

    methods = (ASSOCIATION,)

    def __init__(self, server: PlansightServer) -> None:
        self._server = server
        self._store = server.documents
        self._disk = DiskSource()
        # Partners only (the document's own parse comes from its snapshot); few, since the request
        # is made for the active editor.
        self._parses = ParseCache(versions_per_file=1, max_files=16)

    def register(self) -> None:
        """Install the handler of the custom association request."""
        @self._server.feature(ASSOCIATION)
        async def association(params: Any) -> AssociationResult:
            return await self.associate(_uri_of(params))

    async def associate(self, uri: str | None) -> AssociationResult:
        """The domain and problem a document is checked against, computed off the event loop; ``unknown`` when
        it cannot be determined, never an error.
        """
        if not uri:
            return _result("unknown")
        request = self._request(uri)
        if request is None:
            return _result("unknown")
        snapshot = self._store.snapshot(uri)
        parsed = snapshot.parsed if snapshot is not None and snapshot.text is request.text else None
        try:
            return await in_worker(self._server, self._compute, request, parsed)
        except Exception:  # a bug here must not cost the user the rest of the server
            logger.exception("computing the association of %s failed", uri)
            return _result(detect_kind(request.path, request.text))

    def _request(self, uri: str) -> AnalysisRequest | None:
        server = self._server
        source = OverlaySource.of(self._store.open, self._disk)
        doc = self._store.open.get(uri)
        path = doc.path if doc is not None else uri_to_path(uri)
        text = doc.text if doc is not None else source.read(path)
        if text is None:
            return None
        version = doc.version if doc is not None else None
        return AnalysisRequest(uri=uri, path=path, version=version, text=text, source=source,
                               settings=server.settings,
                               encoding=encoding_name(server.workspace.position_encoding),
                               workspace_root=server.workspace_root)

    def _compute(self, request: AnalysisRequest, parsed: ParsedDocument | None) -> AssociationResult:
        """The worker-thread job."""
        kind = detect_kind(request.path, request.text)
        if kind not in ("problem", "plan") or len(request.text) > request.settings.max_file_chars:
            return _result(kind)
        analyzer = CachedAnalyzer(request.source, self._parses, AnalyzerOptions(domain_globs_of(request)))
        document = parsed if parsed is not None else analyzer.parse(request.path, request.text)
        if document is None:
            return _result(kind)
        result = _describe(document.kind, analyzer.associate(document))
        settings, root = request.settings, request.workspace_root
        if document.kind == "problem":
            result["reference"] = _link(find_reference(document, reference_globs_of_settings(settings, root)))
        elif document.kind == "plan":
            result["referencePlan"] = _link(
                find_reference_plan(document, reference_plan_globs_of_settings(settings, root)))
        return result


def _uri_of(params: Any) -> str | None:
    """pygls hands a custom request's params over as a dict or as an attribute object."""
    uri = params.get("uri") if isinstance(params, dict) else getattr(params, "uri", None)
    return uri if isinstance(uri, str) else None


def _result(kind: FileKind, domain: DomainLink | None = None,
            problem: Link | None = None) -> AssociationResult:
    return {"kind": kind, "domain": domain, "problem": problem, "reference": None, "referencePlan": None}


def _link(link: ReferenceLink | None) -> Link | None:
    return None if link is None else {"path": link.path, "how": link.how}


def _describe(kind: FileKind, association: Association) -> AssociationResult:
    domain: DomainLink | None = None
    problem: Link | None = None
    if association.domain is not None:
        domain = {"path": association.domain.path, "name": _domain_name(association.domain),
                  "how": association.domain_how}
    if association.problem is not None:
        problem = {"path": association.problem.path, "how": association.problem_how}
    return _result(kind, domain, problem)


def _domain_name(document: ParsedDocument) -> str | None:
    model = document.domain
    if model is not None:
        return model.name.display
    header = sniff_header(document.text)
    return header.name if header is not None else None
