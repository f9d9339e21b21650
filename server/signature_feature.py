"""Signature help inside an atom, a function term or a plan step: the declaration being filled in,
with the parameter under the cursor highlighted and its type named."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from plansight.analyses.checks.domain_references import type_text
from plansight.analyses.editing.cursor_context import cursor_context
from plansight.analyses.editing.describe import declaration_comment
from plansight.analyses.model.pddl import Name, TypedName
from plansight.analyses.model.vocabulary import vocabulary
from plansight.server.feature_contract import ServerFeature
from plansight.server.symbol_lookup import SymbolRequest, run_on_context

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer


class SignatureFeature(ServerFeature):
    """Signature help: the parameters of the predicate, function or action being called, with the current one
    highlighted.
    """

    methods = (types.TEXT_DOCUMENT_SIGNATURE_HELP,)

    def __init__(self, server: PlansightServer) -> None:
        self._server = server

    def register(self) -> None:
        """Install the signature-help handler."""
        server = self._server

        @server.feature(types.TEXT_DOCUMENT_SIGNATURE_HELP, types.SignatureHelpOptions(
            trigger_characters=["(", " "], retrigger_characters=[" "]))
        async def signature_help(params: types.SignatureHelpParams) -> types.SignatureHelp | None:
            return await run_on_context(server, params.text_document.uri,
                                        lambda request: help_at(request, params.position))


def help_at(request: SymbolRequest, position: types.Position) -> types.SignatureHelp | None:
    """The signature of the form around the cursor and which argument it is at; None outside a call of a known
    name.
    """
    context = request.context
    if context.kind not in ("domain", "problem", "plan") or context.domain is None:
        return None
    domain = context.domain.domain
    if domain is None:
        return None
    cursor = cursor_context(context.text, context.mapper.offset(position))
    form = cursor.innermost
    if form is None or cursor.at_head:
        return None
    vocab = vocabulary(domain)
    declared: tuple[Name, tuple[TypedName, ...]] | None = None
    suffix = ""
    if context.kind == "plan":
        action = vocab.actions.get(form.head)
        if action is not None:
            declared = action.name, action.parameters
    elif form.head in vocab.predicates:
        predicate = vocab.predicates[form.head]
        declared = predicate.name, predicate.parameters
    elif form.head in vocab.functions:
        function = vocab.functions[form.head]
        declared = function.name, function.parameters
        suffix = " - " + (type_text(function.type) if function.type else "number")
    if declared is None:
        return None
    name, parameters = declared
    label = "(" + name.display
    spans: list[tuple[int, int]] = []
    for parameter in parameters:
        piece = f"{parameter.name.display} - {type_text(parameter.type)}"
        label += " "
        spans.append((len(label), len(label) + len(piece)))
        label += piece
    label += ")" + suffix
    comment = declaration_comment(context.domain.text, name.span)
    active = cursor.argument_index
    signature = types.SignatureInformation(
        label=label,
        documentation=types.MarkupContent(kind=types.MarkupKind.Markdown, value=comment) if comment else None,
        parameters=[types.ParameterInformation(label=span, documentation=f"argument {i + 1} of "
                                               f"{len(parameters)}: {type_text(p.type)}")
                    for i, (span, p) in enumerate(zip(spans, parameters, strict=True))],
        active_parameter=min(active, len(parameters)) if parameters else None)
    return types.SignatureHelp(signatures=[signature], active_signature=0,
                               active_parameter=signature.active_parameter)
