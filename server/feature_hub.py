"""One LSP handler per method, many contributors: the plan, equivalence, LTL and editing features
all want to add hovers, code lenses, inlay hints, completions and code actions.

pygls accepts one handler per method, so feature modules never register these methods themselves;
they return *providers* from their ``providers()`` (``server/feature_contract.py``), the server adds
them to the hub in its documented feature order, and the hub merges the answers. A provider receives
the :class:`~plansight.server.context.DocumentContext` of the document at its current version (built
once per request, in a worker thread) and the request's params:

* a plain function runs in a worker thread, so it must only read its arguments (the model is
  immutable); it must be quick — anything slow (a planner, an equivalence check) belongs in a
  background job whose cached result the provider reads, followed by a refresh request;
* an ``async def`` runs on the event loop and may await such jobs.

A provider that raises is logged and skipped: one broken feature must not cost the user the others.
Hover takes the first provider's non-``None`` answer; the list results are concatenated in
registration order. Only the methods some provider answers are installed, so a server built with a
subset of the features announces no capability it cannot serve.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from lsprotocol import types

from plansight.server.context import DocumentContext, in_context, in_worker

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer

logger = logging.getLogger(__name__)

Provider = Callable[[DocumentContext, Any], Any]
"""``(context, params) -> result | None``, plain or ``async``."""

HubSlot = Literal["hover", "completion", "code_lens", "inlay_hint", "code_action"]
"""The methods the hub merges: one list of providers each (``FeatureHub`` has a field per slot)."""

COMPLETION_TRIGGERS = ["(", "?", ":", " ", "-"]

SLOT_METHODS: dict[str, str] = {
    "hover": types.TEXT_DOCUMENT_HOVER,
    "completion": types.TEXT_DOCUMENT_COMPLETION,
    "code_lens": types.TEXT_DOCUMENT_CODE_LENS,
    "inlay_hint": types.TEXT_DOCUMENT_INLAY_HINT,
    "code_action": types.TEXT_DOCUMENT_CODE_ACTION,
}
"""The LSP method each hub slot answers."""


@dataclass(slots=True)
class FeatureHub:
    """The provider lists, filled by :func:`~plansight.server.app.create_server` from the features'
    ``providers()``."""

    hover: list[Provider] = field(default_factory=list)
    completion: list[Provider] = field(default_factory=list)
    code_lens: list[Provider] = field(default_factory=list)
    inlay_hint: list[Provider] = field(default_factory=list)
    code_action: list[Provider] = field(default_factory=list)

    def add(self, slot: HubSlot, provider: Provider) -> None:
        """Ask ``provider`` after those added before it."""
        self.providers(slot).append(provider)

    def providers(self, slot: HubSlot) -> list[Provider]:
        lists: dict[str, list[Provider]] = {"hover": self.hover, "completion": self.completion,
                                            "code_lens": self.code_lens, "inlay_hint": self.inlay_hint,
                                            "code_action": self.code_action}
        return lists[slot]

    def register(self, server: PlansightServer) -> None:
        """Install the merged handlers of the slots that have providers; called once by
        :func:`~plansight.server.app.create_server`, after every feature's providers were added."""
        if self.hover:
            self._register_hover(server)
        if self.completion:
            self._register_completion(server)
        if self.code_lens:
            self._register_code_lens(server)
        if self.inlay_hint:
            self._register_inlay_hint(server)
        if self.code_action:
            self._register_code_action(server)

    def _register_hover(self, server: PlansightServer) -> None:
        @server.feature(types.TEXT_DOCUMENT_HOVER)
        async def hover(params: types.HoverParams) -> types.Hover | None:
            context = await _context(server, params.text_document.uri)
            if context is None:
                return None
            for provider in list(self.hover):
                answer = await _call(server, provider, context, params)
                if answer is not None:
                    return answer
            return None

    def _register_completion(self, server: PlansightServer) -> None:
        @server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(
            trigger_characters=COMPLETION_TRIGGERS, resolve_provider=False))
        async def completion(params: types.CompletionParams) -> types.CompletionList | None:
            # A provider may answer with a CompletionList to say its list was capped: the merged list
            # is then incomplete, so the client asks again as the user types more of the name.
            answers = await self._gather(server, self.completion, params.text_document.uri, params)
            items: list[types.CompletionItem] = []
            incomplete = False
            for answer in answers:
                if isinstance(answer, types.CompletionList):
                    items.extend(answer.items)
                    incomplete = incomplete or answer.is_incomplete
                else:
                    items.append(answer)
            return types.CompletionList(is_incomplete=incomplete, items=items)

    def _register_code_lens(self, server: PlansightServer) -> None:
        @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
        async def code_lens(params: types.CodeLensParams) -> list[types.CodeLens]:
            return await self._gather(server, self.code_lens, params.text_document.uri, params)

    def _register_inlay_hint(self, server: PlansightServer) -> None:
        @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
        async def inlay_hint(params: types.InlayHintParams) -> list[types.InlayHint]:
            return await self._gather(server, self.inlay_hint, params.text_document.uri, params)

    def _register_code_action(self, server: PlansightServer) -> None:
        @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.RefactorRewrite,
                               types.CodeActionKind.Source],
            resolve_provider=False))
        async def code_action(params: types.CodeActionParams) -> list[types.CodeAction | types.Command]:
            return await self._gather(server, self.code_action, params.text_document.uri, params)

    async def _gather(self, server: PlansightServer, providers: Sequence[Provider],
                      uri: str, params: Any) -> list[Any]:
        if not providers:
            return []
        context = await _context(server, uri)
        if context is None:
            return []
        merged: list[Any] = []
        for provider in list(providers):
            answer = await _call(server, provider, context, params)
            if isinstance(answer, types.CompletionList):
                merged.append(answer)
            elif answer:
                merged.extend(answer)
        return merged


async def _context(server: PlansightServer, uri: str) -> DocumentContext | None:
    try:
        return await in_context(server, uri, lambda context: context)
    except Exception:
        logger.exception("building the context of %s failed", uri)
        return None


async def _call(server: PlansightServer, provider: Provider, context: DocumentContext, params: Any) -> Any:
    name = getattr(provider, "__qualname__", repr(provider))
    try:
        if inspect.iscoroutinefunction(provider):
            answer: Any = await provider(context, params)
        else:
            answer = await in_worker(server, provider, context, params)
            if inspect.isawaitable(answer):
                answer = await answer
        return answer
    except asyncio.CancelledError:
        raise
    except Exception:
        logger.exception("provider %s failed on %s", name, context.uri)
        return None


async def refresh(server: PlansightServer, what: str) -> None:
    """Ask the client to re-request ``"code_lens"`` or ``"inlay_hint"`` (when it supports refreshing),
    after a background job finished."""
    workspace = server.client_capabilities.workspace
    try:
        if what == "code_lens" and workspace and workspace.code_lens and workspace.code_lens.refresh_support:
            await server.workspace_code_lens_refresh_async(None)
        elif (what == "inlay_hint" and workspace and workspace.inlay_hint
              and workspace.inlay_hint.refresh_support):
            await server.workspace_inlay_hint_refresh_async(None)
    except Exception as error:  # a client that fails a refresh still gets fresh results on next request
        logger.info("refreshing %s failed: %s", what, error)
