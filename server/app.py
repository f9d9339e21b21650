"""The language server: built fresh by :func:`create_server`, never at import time.

No module-level server instance exists: tests and the ``serve`` command each get
their own, with its own documents, settings and worker threads. This module wires the feature
modules to the server and handles the settings lifecycle; each feature lives in its own module.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Coroutine
from typing import Any

from lsprotocol import types

from plansight import __version__
from plansight.server.association_feature import AssociationFeature
from plansight.server.code_actions_feature import CodeActionsFeature
from plansight.server.completion_feature import CompletionFeature
from plansight.server.diagnostics_feature import DiagnosticsFeature
from plansight.server.documents import DocumentStore, uri_to_path
from plansight.server.equivalence_feature import EquivalenceFeature
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
from plansight.server.symbols_feature import SymbolsFeature
from plansight.server.transport import FramedTransportServer

logger = logging.getLogger(__name__)


class PlansightServer(FramedTransportServer):
    """A pygls server carrying plansight's per-instance state."""

    def __init__(self) -> None:
        super().__init__("plansight", __version__, protocol_cls=FastJsonProtocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.settings = Settings()
        self.documents = DocumentStore()
        self.diagnostics = DiagnosticsFeature(self, self.documents)
        self.association = AssociationFeature(self, self.documents)
        self.hub = FeatureHub()
        self.shutdown_requested = False
        self._background: set[asyncio.Task[None]] = set()

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` on the event loop, keeping a reference until it ends (asyncio keeps weak ones)."""
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

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


def create_server() -> PlansightServer:
    """Build a server with every feature registered; call ``start_io``/``start_tcp`` on it."""
    server = PlansightServer()
    server.diagnostics.register()
    server.association.register()
    # Feature modules add their providers to server.hub here, before the hub installs its handlers.
    plans = PlanFeature(server)
    plans.register()
    PlanRepairFeature(server, plans).register()
    HoverFeature(server).register()  # after the more specific hovers (plan states): it answers on any name
    NavigationFeature(server).register()
    EquivalenceFeature(server).register()
    CompletionFeature(server).register()
    SignatureFeature(server).register()
    RenameFeature(server).register()
    SymbolsFeature(server).register()
    LinksFeature(server).register()
    FormattingFeature(server).register()
    CodeActionsFeature(server).register()
    FoldingFeature(server).register()
    SemanticTokensFeature(server).register()
    ObjectTypesFeature(server).register()
    LtlFeature(server).register()
    server.hub.register(server)

    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        server.apply_settings(params.initialization_options, "initializationOptions")

    @server.feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
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
        server.diagnostics.close()

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
