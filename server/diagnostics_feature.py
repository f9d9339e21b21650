"""Diagnostics as the user types: didOpen/didChange/didSave/didClose -> publishDiagnostics.

The scheduling rules, and why:

* **Debounced per document.** A keystroke pushes that document's deadline back by
  ``plansight.diagnostics.debounceMs``; a burst of edits costs one analysis, not one per key.
* **Off the event loop.** Parsing a multi-megabyte problem takes seconds; it runs in a worker thread so
  the loop keeps reading messages and other documents keep getting their diagnostics.
* **Coalesced.** At most one analysis per document is in flight. Edits that arrive meanwhile mark
  the document dirty and cancel the running analysis's long check (the equivalence search stops
  within milliseconds); its result is dropped and the newest text is analysed next.
* **Visible when slow.** A problem compared with a reference for longer than ``PROGRESS_AFTER_S``
  shows a work-done progress until the analysis ends or is cancelled (if the client supports it).
* **Never stale.** A result is published only if the version it analysed is still the buffer's
  version, and the ``version`` field tells the client which text the ranges belong to.
* **Cross-file.** Problems are checked against their domain and plans against both, as the editor
  has them (unsaved buffers win). So editing (or closing) a domain re-checks the open problems and
  plans that use it, and editing a problem re-checks its open plans.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types

from plansight.analyses.syntax.documents import ParsedDocument, detect_kind
from plansight.analyses.workspace.sources import DiskSource, FileSource
from plansight.server.analysis import AnalysisOutcome, AnalysisRequest, analyse
from plansight.server.caches import ServerCaches
from plansight.server.convert import encoding_name
from plansight.server.documents import (
    DocumentStore,
    OpenDocument,
    OverlaySource,
    ParseCache,
    path_key,
    uri_to_path,
)
from plansight.server.feature_contract import ServerFeature
from plansight.server.memory import GcPolicy
from plansight.server.symbol_lookup import warm_index

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer

logger = logging.getLogger(__name__)

ANALYSIS_THREADS = 3
"""Enough that one huge file in analysis never holds up small ones; more would only add GIL churn."""
WARM_AFTER_S = 0.03
"""How long after publishing a version's diagnostics the server waits for a newer edit before it builds
the version's symbol index. While the user types, the next keystroke usually arrives within this
time, and no index is built for a version that it replaces."""
PROGRESS_AFTER_S = 0.3
"""A comparison with a reference shows progress only when it is slow enough to be noticed."""
_progress_tokens = itertools.count(1)


@dataclass(slots=True)
class _Schedule:
    """Per-document scheduling state: whether the buffer changed since the last analysis started,
    when the debounce expires (event-loop clock), and the task pumping analyses for it."""

    dirty: bool = True
    due: float = 0.0
    task: asyncio.Task[None] | None = None
    cancel: threading.Event | None = None
    """Set to stop the analysis in flight (its worker polls it during the equivalence search)."""

    def cancel_in_flight(self) -> None:
        if self.cancel is not None:
            self.cancel.set()


class _Comparison:
    """The worker thread's word that the document is being compared with a reference (its name)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.reference: str | None = None
        self.known = asyncio.Event()
        self._loop = loop

    def __call__(self, reference: str) -> None:
        self.reference = reference
        with contextlib.suppress(RuntimeError):  # the loop closed: the server is exiting
            self._loop.call_soon_threadsafe(self.known.set)


class DiagnosticsFeature(ServerFeature):
    """Owns the analysis thread pool and the per-document schedules of one server instance.

    The one feature every server has: it keeps ``server.documents`` in sync with the editor, and the
    other features read the buffers, snapshots and parse cache it keeps.
    """

    methods = (types.TEXT_DOCUMENT_DID_OPEN, types.TEXT_DOCUMENT_DID_CHANGE, types.TEXT_DOCUMENT_DID_SAVE,
               types.TEXT_DOCUMENT_DID_CLOSE, types.WORKSPACE_DID_CHANGE_WATCHED_FILES)

    def __init__(self, server: PlansightServer, store: DocumentStore | None = None,
                 disk: FileSource | None = None) -> None:
        self._server = server
        self._store = store if store is not None else server.documents
        self._disk: FileSource = disk if disk is not None else DiskSource()
        self._schedules: dict[str, _Schedule] = {}
        self._pool: ThreadPoolExecutor | None = None
        self._in_flight: set[Future[AnalysisOutcome] | Future[None]] = set()
        self._caches = ServerCaches()
        self._gc = GcPolicy()
        self._closed = False

    # --- registration ----------------------------------------------------------------------------

    def register(self) -> None:
        """Install the document lifecycle handlers that keep buffers current and schedule analyses."""
        server = self._server

        # pygls tags handler functions with attributes, which bound methods cannot carry
        @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
        def did_open(params: types.DidOpenTextDocumentParams) -> None:
            self.did_open(params)

        @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
        def did_change(params: types.DidChangeTextDocumentParams) -> None:
            self.did_change(params)

        @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
        def did_save(params: types.DidSaveTextDocumentParams) -> None:
            self.did_save(params)

        @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
        def did_close(params: types.DidCloseTextDocumentParams) -> None:
            self.did_close(params)

        @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
        def did_change_watched_files(params: types.DidChangeWatchedFilesParams) -> None:
            self.did_change_watched_files(params)

    @property
    def caches(self) -> ServerCaches:
        """This server's caches, shared with its request handlers (one parse per file text)."""
        return self._caches

    @property
    def parses(self) -> ParseCache:
        return self._caches.parses

    @property
    def gc(self) -> GcPolicy:
        """How this server's worker threads treat the garbage collector (``memory.py``)."""
        return self._gc

    @property
    def busy(self) -> bool:
        """Whether a worker thread is still analysing (used to exit without waiting for it)."""
        return bool(self._in_flight)

    def shutdown(self) -> None:
        self.close()

    def close(self) -> None:
        """After ``shutdown`` nothing new is analysed; threads already running are abandoned."""
        self._closed = True
        for schedule in self._schedules.values():
            schedule.cancel_in_flight()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    # --- handlers --------------------------------------------------------------------------------

    def did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        """Track the new buffer and analyse it at once, then re-check the open files that depend on it."""
        item = params.text_document
        self._store.open[item.uri] = OpenDocument(item.uri, uri_to_path(item.uri), item.version, item.text,
                                                  item.language_id)
        self._schedule(item.uri, delay=0.0)
        self._schedule_dependents(item.uri)

    def did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        """Take the edited text from pygls's workspace and schedule a debounced analysis of it and of its
        dependents.
        """
        uri = params.text_document.uri
        doc = self._store.open.get(uri)
        if doc is None:
            logger.warning("didChange for %s, which is not open; ignored", uri)
            return
        # the protocol has already applied the changes to the workspace copy (document_text.py)
        doc.text = self._server.workspace.get_text_document(uri).source
        doc.version = params.text_document.version
        self._retire(doc)
        self._schedule(uri)
        self._schedule_dependents(uri)

    def did_save(self, params: types.DidSaveTextDocumentParams) -> None:
        """Re-check the saved document and its dependents at once."""
        # The buffer already was the truth for this document; saving matters to files that read it
        # from disk only when they are not open, but a re-check is cheap and picks up external edits.
        uri = params.text_document.uri
        if uri in self._store.open:
            self._schedule(uri, delay=0.0)
            self._schedule_dependents(uri)

    def did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        """Forget the buffer, stop its analyses and clear its diagnostics; dependents are re-checked against
        the file on disk.
        """
        uri = params.text_document.uri
        doc = self._store.open.pop(uri, None)
        self._store.snapshots.pop(uri, None)
        if doc is not None:
            self._caches.retire(doc.path, None, self._live_texts())
        schedule = self._schedules.pop(uri, None)
        if schedule is not None:
            schedule.cancel_in_flight()
            if schedule.task is not None:
                schedule.task.cancel()
        self._server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        if doc is not None:
            # the disk version of this file now stands in for the buffer
            self._schedule_dependents(uri, closed=doc)

    def did_change_watched_files(self, params: types.DidChangeWatchedFilesParams) -> None:
        """A partner changed on disk (or appeared): re-check every open document that may read it."""
        changed = {path_key(uri_to_path(change.uri)) for change in params.changes}
        for uri, doc in self._store.open.items():
            if path_key(doc.path) in changed:
                continue  # the buffer wins over the disk
            snapshot = self._store.snapshots.get(uri)
            if snapshot is None or snapshot.missing_partner or any(snapshot.depends_on(k) for k in changed):
                self._schedule(uri)

    def recheck_all(self) -> None:
        """Settings changed: every open document may be affected."""
        for uri in list(self._store.open):
            self._schedule(uri, delay=0.0)

    # --- memory ----------------------------------------------------------------------------------

    def _retire(self, doc: OpenDocument) -> None:
        """The buffer moved to a new text: drop what was computed from its older ones (``caches.py``).

        Its published snapshot keeps its links (dependents are scheduled by them) but lets go of its
        model, which no request reads once the version has changed.
        """
        snapshot = self._store.snapshots.get(doc.uri)
        if snapshot is not None and snapshot.text is not doc.text and snapshot.parsed is not None:
            self._store.snapshots[doc.uri] = snapshot.retired()
        dropped = self._caches.retire(doc.path, doc.text, self._live_texts())
        if dropped:
            logger.debug("forgot %d cached answers about older versions of %s", dropped, doc.uri)

    def _retire_all(self) -> None:
        """Before idle memory goes back to the system: what requests of older versions stored late."""
        for doc in list(self._store.open.values()):
            self._retire(doc)

    def _live_texts(self) -> set[str]:
        return {doc.text for doc in self._store.open.values()}

    # --- scheduling ------------------------------------------------------------------------------

    def _schedule(self, uri: str, delay: float | None = None) -> None:
        loop = asyncio.get_running_loop()
        if delay is None:
            delay = self._server.settings.debounce_ms / 1000
        schedule = self._schedules.setdefault(uri, _Schedule())
        schedule.dirty = True
        schedule.cancel_in_flight()  # its result will be dropped: stop its long check now
        schedule.due = loop.time() + delay
        if schedule.task is None or schedule.task.done():
            schedule.task = loop.create_task(self._pump(uri, schedule), name=f"plansight-analyse {uri}")

    def _schedule_dependents(self, uri: str, closed: OpenDocument | None = None) -> None:
        """Re-check open problems/plans that (may) read the document at ``uri``.

        A dependent is one whose last analysis used this file as its domain or problem, one still
        missing a partner (this file may be it), or one in this file's folder or below (the
        conventions (docs/files-and-links.md) search the same folder, then parents, so an edit here can change
        which domain they pick).
        """
        doc = closed or self._store.open.get(uri)
        if doc is None:
            return
        kind = detect_kind(doc.path, doc.text)
        if kind not in ("domain", "problem"):
            return
        wanted = ("problem", "plan", "ltl") if kind == "domain" else ("plan", "ltl")
        key = path_key(doc.path)
        folder = os.path.dirname(key) + os.sep
        for other_uri, other in self._store.open.items():
            if other_uri == uri:
                continue
            snapshot = self._store.snapshots.get(other_uri)
            other_kind = snapshot.kind if snapshot is not None else detect_kind(other.path, other.text)
            if other_kind not in wanted:
                continue
            if (snapshot is None or snapshot.depends_on(key) or snapshot.missing_partner
                    or path_key(other.path).startswith(folder)):
                self._schedule(other_uri)

    async def _pump(self, uri: str, schedule: _Schedule) -> None:
        """Analyse ``uri`` until its newest state has been analysed (or it is closed)."""
        try:
            await self._pump_until_current(uri, schedule)
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("publishing diagnostics for %s failed", uri)

    async def _pump_until_current(self, uri: str, schedule: _Schedule) -> None:
        loop = asyncio.get_running_loop()
        while True:
            wait = schedule.due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            doc = self._store.open.get(uri)
            if not schedule.dirty or doc is None or self._schedules.get(uri) is not schedule:
                return
            await self._analyse_and_publish(uri, doc, schedule)

    async def _analyse_and_publish(self, uri: str, doc: OpenDocument, schedule: _Schedule) -> None:
        """One analysis of the buffer as it is now, published if it is still current when it ends.

        A method of its own so that its request and outcome (the analysed text and its model) die
        when it returns: as locals of the pump's loop they would stay alive while the pump waits for
        the next debounce, and then through the whole next analysis.
        """
        loop = asyncio.get_running_loop()
        schedule.dirty = False
        cancel = schedule.cancel = threading.Event()
        comparison = _Comparison(loop)
        request = self._request(doc, cancel.is_set, comparison)
        try:
            outcome = await self._run_showing_progress(request, comparison)
        finally:
            if schedule.cancel is cancel:
                schedule.cancel = None
        if outcome is not None and outcome.interrupted and comparison.reference is not None:
            self._server.window_log_message(types.LogMessageParams(
                type=types.MessageType.Info,
                message=f"plansight: stopped comparing {os.path.basename(doc.path)} (version "
                        f"{request.version}) with {comparison.reference}: a newer edit replaces it"))
        if outcome is None or schedule.dirty:
            return  # newer text (or a partner) changed meanwhile: this result is already stale
        current = self._store.open.get(uri)
        if current is None or current.version != request.version or current.text is not request.text:
            return
        self._store.snapshots[uri] = outcome.snapshot
        self._server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, diagnostics=outcome.lsp_diagnostics, version=request.version))
        # what the stale analyses and requests of older texts cached while this one ran
        self._retire(current)
        parsed = outcome.snapshot.parsed
        if parsed is not None and not outcome.interrupted and not cheap_to_index(parsed):
            loop.call_later(WARM_AFTER_S, self._warm_if_current, uri, request, schedule)

    def _warm_if_current(self, uri: str, request: AnalysisRequest, schedule: _Schedule) -> None:
        """Build the published version's symbol index in a worker, unless a newer edit has come in
        meanwhile (then that edit's analysis needs the thread more, and this index would never be used)."""
        if self._closed or self._pool is None or schedule.dirty or not self._still_open(request):
            return
        try:
            future = self._pool.submit(self._warm, request)
        except RuntimeError:  # the pool was shut down: the server is exiting
            return
        self._in_flight.add(future)
        future.add_done_callback(self._in_flight.discard)

    def _warm(self, request: AnalysisRequest) -> None:
        """The worker-thread job that builds a published version's index (``warm_version``), unless the
        version was edited while the job waited for the worker: its index was retired with it, and
        building it again (~300 ms for a 1 MB problem) would only hold up the newer version's requests."""
        if not self._still_open(request):
            return
        with self._gc.analysing(len(request.text)):
            warm_version(request, self._caches)

    def _still_open(self, request: AnalysisRequest) -> bool:
        """Whether the document is still open at the very version (and text) ``request`` analysed."""
        current = self._store.open.get(request.uri)
        return current is not None and current.version == request.version and current.text is request.text

    async def _run_showing_progress(self, request: AnalysisRequest,
                                    comparison: _Comparison) -> AnalysisOutcome | None:
        """:meth:`_run`, with a progress notification while a slow comparison with a reference runs."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        analysis = asyncio.ensure_future(self._run(request))
        known = asyncio.ensure_future(comparison.known.wait())
        try:
            await asyncio.wait({analysis, known}, return_when=asyncio.FIRST_COMPLETED)
            if not analysis.done():
                await asyncio.wait({analysis}, timeout=max(0.0, started + PROGRESS_AFTER_S - loop.time()))
            if analysis.done() or comparison.reference is None or not self._client_shows_progress():
                return await analysis
            return await self._with_progress(analysis, f"Checking equivalence with {comparison.reference}…")
        finally:
            known.cancel()
            if not analysis.done():
                analysis.cancel()

    def _client_shows_progress(self) -> bool:
        window = self._server.client_capabilities.window
        return bool(window is not None and window.work_done_progress)

    async def _with_progress(self, analysis: asyncio.Future[AnalysisOutcome | None],
                             title: str) -> AnalysisOutcome | None:
        progress = self._server.work_done_progress
        token = f"plansight-equivalence-{next(_progress_tokens)}"
        try:
            await progress.create_async(token)
        except Exception:  # the client refused the token: the analysis goes on without progress
            logger.info("the client did not accept a progress token for %s", title)
            return await analysis
        progress.begin(token, types.WorkDoneProgressBegin(title=title, cancellable=False))
        outcome: AnalysisOutcome | None = None
        try:
            outcome = await analysis
        finally:
            stopped = outcome is None or outcome.interrupted
            progress.end(token, types.WorkDoneProgressEnd(
                message="cancelled: the file was edited" if stopped else "done"))
        return outcome

    def _request(self, doc: OpenDocument, cancelled: Callable[[], bool],
                 comparing: Callable[[str], None]) -> AnalysisRequest:
        server = self._server
        workspace = server.workspace
        return AnalysisRequest(
            uri=doc.uri,
            path=doc.path,
            version=doc.version,
            text=doc.text,
            source=OverlaySource.of(self._store.open, self._disk),
            settings=server.settings,
            encoding=encoding_name(workspace.position_encoding),
            workspace_root=server.workspace_root,
            cancelled=cancelled,
            comparing=comparing,
        )

    async def _run(self, request: AnalysisRequest) -> AnalysisOutcome | None:
        if self._closed:
            return None
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=ANALYSIS_THREADS,
                                            thread_name_prefix="plansight-analysis")
        try:
            future = self._pool.submit(self._analyse, request)
        except RuntimeError as error:  # the pool was shut down: the server is exiting
            logger.info("analysis of %s not started: %s", request.uri, error)
            return None
        self._in_flight.add(future)
        future.add_done_callback(self._in_flight.discard)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            raise
        except Exception:  # analyse() catches everything it knows; this is a last line of defence
            logger.exception("analysis of %s failed", request.uri)
            return None
        finally:
            self._gc.collect_when_idle(lambda: self.busy, self._retire_all)

    def _analyse(self, request: AnalysisRequest) -> AnalysisOutcome:
        """The worker-thread job; it builds the symbol index too when that is cheap (``cheap_to_index``)."""
        with self._gc.analysing(len(request.text)):
            outcome = analyse(request, self._caches)
            parsed = outcome.snapshot.parsed
            if parsed is not None and not outcome.interrupted and cheap_to_index(parsed):
                warm_version(request, self._caches)
            return outcome


CHEAP_INDEX_CHARS = 100_000
"""A file this size has its symbol index built in milliseconds."""


def cheap_to_index(parsed: ParsedDocument) -> bool:
    """Whether the analysis builds the version's symbol index before publishing its diagnostics (so that
    the first request after them finds it) rather than after: when it is a matter of milliseconds."""
    return len(parsed.text) <= CHEAP_INDEX_CHARS


def warm_version(request: AnalysisRequest, caches: ServerCaches) -> None:
    """Build what the first request on an analysed version needs (``symbol_lookup.warm_index``).

    In the analysis's worker before its diagnostics are published when that is cheap
    (``cheap_to_index``: a small file), else in a worker ``WARM_AFTER_S`` after publishing and only
    if no newer edit has come in by then. The first hover / references / highlight / rename /
    semantic-tokens request after an edit to a small file, or after a pause in typing into a large
    one, then finds the index ready and frozen out of the collector's reach (``memory.py``), and a
    keystroke's diagnostics do not wait for an expensive index that the next keystroke would replace
    unused (benchmarks/RESULTS.md, Editor latency).
    """
    warm_index(request, caches)
