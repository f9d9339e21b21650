"""The language server: built fresh by :func:`create_server`, never at import time.

No module-level server instance exists: tests and the ``serve`` command each get their own, with its
own documents, settings, features and worker threads. This module builds the features (each in its
own module, under the contract of ``feature_contract.py``) in :data:`FEATURE_ORDER` and handles the
settings and shutdown lifecycle; ``docs/server-features.md`` lists what each feature adds.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Coroutine, Iterable
from typing import Any, TypeVar

from lsprotocol import types

from plansight import __version__
from plansight.server.association_feature import AssociationFeature
from plansight.server.code_actions_feature import CodeActionsFeature
from plansight.server.completion_feature import CompletionFeature
from plansight.server.diagnostics_feature import DiagnosticsFeature
from plansight.server.documents import DocumentStore, uri_to_path
from plansight.server.equivalence_feature import EquivalenceFeature
from plansight.server.feature_contract import ServerFeature
from plansight.server.feature_hub import FeatureHub
from plansight.server.folding_feature import FoldingFeature
from plansight.server.formatting_feature import FormattingFeature
from plansight.server.hover_feature import HoverFeature
from plansight.server.json_protocol import FastJsonProtocol
from plansight.server.links_feature import LinksFeature
from plansight.server.ltl_feature import LtlFeature
from plansight.server.navigation_feature import NavigationFeature
from plansight.server.object_types_feature import ObjectTypesFeature
from plansight.server.plan_feature import PlanFeature
from plansight.server.plan_repair_feature import PlanRepairFeature
from plansight.server.rename_feature import RenameFeature
from plansight.server.semantic_tokens_feature import SemanticTokensFeature
from plansight.server.settings import SECTION, Settings, read_settings, section_of
from plansight.server.signature_feature import SignatureFeature
from plansight.server.solve_feature import SolveFeature
from plansight.server.startup_notes import announce_missing
from plansight.server.symbols_feature import SymbolsFeature
from plansight.server.transport import FramedTransportServer
from plansight.server.views_feature import ViewsFeature

logger = logging.getLogger(__name__)

_F = TypeVar("_F", bound=ServerFeature)

FEATURE_ORDER: tuple[type[ServerFeature], ...] = (
    DiagnosticsFeature,  # every server has it: it keeps the documents the others read
    AssociationFeature,
    PlanFeature,  # before HoverFeature: on a plan step, the state before it answers the hover
    PlanRepairFeature,  # needs PlanFeature; before CodeActionsFeature: "Repair plan" is listed first
    HoverFeature,  # after PlanFeature and before LtlFeature: it answers on any name of a PDDL file
    NavigationFeature,
    EquivalenceFeature,
    SolveFeature,
    CompletionFeature,
    SignatureFeature,
    RenameFeature,
    SymbolsFeature,
    LinksFeature,
    FormattingFeature,
    CodeActionsFeature,
    FoldingFeature,
    SemanticTokensFeature,
    ObjectTypesFeature,
    LtlFeature,
    ViewsFeature,  # needs PlanFeature; its lenses follow the plan's summary and the problem's verdict
)
"""The features of a server, in the order they are built. The order is what the merged methods
(``feature_hub.py``) answer in: a hover is the first non-null answer, code actions, lenses, hints and
completions are listed in this order. Only two pairs compete for the same document (the plan step's
hover before an action's signature, "Repair plan" before the quick fixes); every other provider
answers for a kind of document no other one answers for. :func:`create_server` keeps this order for
any subset, whatever order the subset is given in."""


class PlansightServer(FramedTransportServer):
    """A pygls server carrying plansight's per-instance state."""

    def __init__(self) -> None:
        super().__init__("plansight", __version__, protocol_cls=FastJsonProtocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.settings = Settings()
        self.documents = DocumentStore()
        self.hub = FeatureHub()
        self._features: dict[type[ServerFeature], ServerFeature] = {}
        self.diagnostics = self._install(DiagnosticsFeature(self))
        self.shutdown_requested = False
        self._background: set[asyncio.Task[None]] = set()

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` on the event loop, keeping a reference until it ends (asyncio keeps weak ones)."""
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _install(self, feature: _F) -> _F:
        self._features[type(feature)] = feature
        return feature

    def feature_of(self, kind: type[_F]) -> _F:
        """This server's instance of the feature ``kind``; a feature asks only for those it ``requires``."""
        feature = self._features.get(kind)
        if not isinstance(feature, kind):
            raise LookupError(f"this server was built without {kind.__name__}")
        return feature

    @property
    def installed_features(self) -> tuple[ServerFeature, ...]:
        """The features of this server, in the order they were built."""
        return tuple(self._features.values())

    @property
    def workspace_root(self) -> str | None:
        """The folder that workspace-relative settings (``domainGlobs``) are resolved against."""
        try:
            workspace = self.workspace
        except RuntimeError:  # pygls before initialize; pinned in tests/test_pinned_internals.py
            return None
        for folder in workspace.folders.values():
            path = uri_to_path(folder.uri)
            if os.path.isabs(path):
                return path
        return workspace.root_path or None

    def apply_settings(self, raw: object, origin: str) -> bool:
        """Adopt the ``plansight`` section of ``raw``; returns whether anything changed.

        Invalid values fall back to their defaults and the user is told once, in a message that
        names the setting, the bad value and the value used instead.
        """
        section = section_of(raw)
        if section is None:
            return False
        read = read_settings(section)
        for complaint in read.complaints:
            logger.warning("settings (%s): %s", origin, complaint)
            self.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Warning, message=f"plansight: {complaint}"))
        changed = read.settings != self.settings
        self.settings = read.settings
        return changed


def feature_order(features: Iterable[type[ServerFeature]] | None = None) -> list[type[ServerFeature]]:
    """The features a server built with ``features`` has, in the order they are built.

    ``None`` means all of :data:`FEATURE_ORDER`. The diagnostics feature is always there; the others
    keep their place in :data:`FEATURE_ORDER`, and features it does not list (a test's own) come
    last, in the order given. A feature whose ``requires`` are not all there is refused: silently
    adding them would build a server other than the one asked for.
    """
    wanted = list(dict.fromkeys(FEATURE_ORDER if features is None else features))
    order: list[type[ServerFeature]] = [DiagnosticsFeature]
    order += [kind for kind in FEATURE_ORDER if kind in wanted and kind is not DiagnosticsFeature]
    order += [kind for kind in wanted if kind not in FEATURE_ORDER]
    for position, kind in enumerate(order):
        for needed in kind.requires:
            if needed not in order[:position]:
                raise ValueError(f"{kind.__name__} needs {needed.__name__}: add it to the features")
    return order


def create_server(features: Iterable[type[ServerFeature]] | None = None) -> PlansightServer:
    """Build a server with ``features`` (default: all of :data:`FEATURE_ORDER`) registered; call
    ``start_io``/``start_tcp`` on it.

    Each feature is built, adds its providers to the hub and installs its own handlers, in the order
    of :func:`feature_order`; then the hub installs the merged methods that have providers.
    """
    server = PlansightServer()
    for kind in feature_order(features):
        feature = server.diagnostics if kind is DiagnosticsFeature else server._install(kind(server))
        for slot, provider in feature.providers():
            server.hub.add(slot, provider)
        feature.register()
    server.hub.register(server)

    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        server.apply_settings(params.initialization_options, "initializationOptions")

    @server.feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
        # Said once per start, off the loop: which optional features are off and how to turn them on.
        server.spawn(announce_missing(server.window_show_message))
        # Documents opened while the client was still answering are re-checked with its settings.
        await _pull_and_recheck(server)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        # Push-model clients send the settings (applied at once, before any later message is
        # handled); pull-model clients send nothing and expect us to ask.
        if section_of(params.settings) is not None:
            if server.apply_settings(params.settings, "didChangeConfiguration"):
                server.diagnostics.recheck_all()
        else:
            server.spawn(_pull_and_recheck(server))

    @server.feature(types.SHUTDOWN)
    def shutdown(params: None) -> None:
        server.shutdown_requested = True
        for feature in reversed(server.installed_features):
            try:
                feature.shutdown()
            except Exception:  # one feature failing to stop must not keep the others running
                logger.exception("shutting down %s failed", type(feature).__name__)

    @server.feature(types.EXIT)
    def exit_(params: None) -> None:
        # An analysis thread cannot be interrupted; exiting must not wait seconds for a result that
        # nobody will read. Every message already written has been flushed by the writer.
        if server.diagnostics.busy:
            logging.shutdown()
            os._exit(0 if server.shutdown_requested else 1)

    return server


async def _pull_and_recheck(server: PlansightServer) -> None:
    if await _pull_configuration(server):
        server.diagnostics.recheck_all()


async def _pull_configuration(server: PlansightServer) -> bool:
    """Ask the client for the ``plansight`` section when it supports ``workspace/configuration``."""
    capabilities = server.client_capabilities
    if not (capabilities.workspace and capabilities.workspace.configuration):
        return False
    try:
        result = await server.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)]))
    except Exception as error:  # a client bug must not take the server down
        logger.warning("workspace/configuration failed: %s", error)
        return False
    if not result or not isinstance(result[0], dict) or not result[0]:
        return False
    return server.apply_settings({SECTION: result[0]}, "workspace/configuration")


def log_to_stderr(level: int = logging.INFO) -> None:
    """Route logging to stderr: stdout is the protocol channel and must carry nothing else."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # pygls logs every message at INFO/DEBUG; keep the editor's output channel readable
    logging.getLogger("pygls").setLevel(max(level, logging.WARNING))
