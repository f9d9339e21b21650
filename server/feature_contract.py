"""What a server feature is, what it gives the server and what it may take from it.

A feature is one capability the user sees (hover, formatting, plan simulation, ...), in its own
``*_feature.py`` module, as a subclass of :class:`ServerFeature`. The contract exists so that
:func:`~plansight.server.app.create_server` can build a server from any subset of features (a test
builds one with only the feature it drives) and so that each feature states in one place what it
adds to the protocol; ``docs/server-features.md`` lists them all.

**What a feature gives** (declared on the class, checked by the tests against what it registers):

* ``methods``: the LSP methods (and custom requests such as ``plansight/association``) whose pygls
  handler it installs itself in :meth:`~ServerFeature.register`;
* ``commands``: the ``workspace/executeCommand`` ids it installs, each one an entry of the table in
  ``server/commands.py``;
* :meth:`~ServerFeature.providers`: its contributions to the methods that several features answer
  together (hover, completion, code lens, inlay hints, code actions). pygls takes one handler per
  method, so these go through the server's :class:`~plansight.server.feature_hub.FeatureHub`, which
  merges the answers in the order the features were built (see ``FEATURE_ORDER`` in ``app.py``).

**What a feature may take from the server** (``self._server``, a ``PlansightServer``):

* ``documents``: the open buffers and the last analysed snapshot of each (kept by the diagnostics
  feature, the one feature every server has);
* ``settings``: the current settings, replaced as a whole when they change, so read per request;
* contexts: :func:`~plansight.server.context.in_context` and
  :func:`~plansight.server.command_arguments.command_context` build a document's
  :class:`~plansight.server.context.DocumentContext` (text, parse, linked partners) off the event loop;
* ``workspace_root``, ``spawn`` (background work on the event loop) and pygls's client API
  (``window_*``, ``workspace_*``, ``work_done_progress``);
* another feature's instance, via ``server.feature_of(OtherFeature)``, only when it lists that
  feature in ``requires`` (the plan repair reuses the plan feature's simulations).

**Lifecycle**: built with the server alone (cheap: nothing is computed); :meth:`register` once,
before the server starts reading; :meth:`shutdown` when the client sends ``shutdown`` (stop
starting work; threads already running may be abandoned). A feature keeps its state on its
instance, never at module level, so each server built in a process has its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from plansight.server.feature_hub import HubSlot, Provider

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer



class ServerFeature:
    """The base of every feature; subclasses fill in the declarations and override what they do."""

    methods: ClassVar[tuple[str, ...]] = ()
    """LSP methods and custom requests whose handlers :meth:`register` installs"""
    commands: ClassVar[tuple[str, ...]] = ()
    """``workspace/executeCommand`` ids :meth:`register` installs (from ``server/commands.py``)"""
    requires: ClassVar[tuple[type[ServerFeature], ...]] = ()
    """features this one reads (``server.feature_of``); they must be built before it"""

    def __init__(self, server: PlansightServer) -> None:
        self._server = server

    def providers(self) -> Sequence[tuple[HubSlot, Provider]]:
        """What this feature adds to the merged methods, in the order it wants them asked."""
        return ()

    def register(self) -> None:
        """Install the handlers of ``methods`` and ``commands`` on the server (nothing by default)."""

    def shutdown(self) -> None:
        """The client asked the server to shut down: start no new work (nothing to do by default)."""
