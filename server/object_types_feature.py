"""Inlay hints in problems: each object's type after its name where the ``- type`` is far away
(``analyses/editing/object_type_hints.py``), when ``plansight.inlayHints.objectTypes`` is on."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from plansight.analyses.editing.object_type_hints import object_type_hints
from plansight.server.context import DocumentContext
from plansight.server.feature_contract import HubSlot, ServerFeature

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer
    from plansight.server.feature_hub import Provider


class ObjectTypesFeature(ServerFeature):
    """Inlay hints with each object's type in a problem's ``:objects``."""

    def __init__(self, server: PlansightServer) -> None:
        self._server = server

    def providers(self) -> Sequence[tuple[HubSlot, Provider]]:
        return [("inlay_hint", object_type_inlay_hints)]


def object_type_inlay_hints(context: DocumentContext, params: types.InlayHintParams) -> list[types.InlayHint]:
    """The type hints in the requested range, when the user enabled them."""
    problem = context.parsed.problem
    if problem is None or not getattr(context.settings, "inlay_object_types", False):
        return []
    hints = object_type_hints(problem, context.text, context.mapper.span(params.range))
    return [types.InlayHint(position=context.mapper.position(h.offset), label=h.label,
                            kind=types.InlayHintKind.Type, padding_left=False) for h in hints]
