"""Quick fixes and source actions, as a provider on the hub's code actions (``server/feature_hub.py``).

The fixes are the core's (``analyses/editing/quick_fixes.py``); this module only matches the client's
diagnostics to them and turns edits into a ``WorkspaceEdit``. The diagnostics come back from the
client in ``params.context.diagnostics`` with their code and ``data`` (the same fields the core
attached), so nothing is re-linted here. A fix may edit another file (declaring a predicate used in
a problem edits the domain) or create one (a problem from its domain): those edits are counted in
that file's own text as the editor has it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from plansight.analyses.diagnostics.diagnostic import CODES, Diagnostic, make
from plansight.analyses.editing.quick_fixes import Fix, fixes_for, problem_from_domain, skeletons
from plansight.server.context import DocumentContext
from plansight.server.convert import SOURCE, RangeMapper, encoding_name, path_to_uri
from plansight.server.feature_contract import HubSlot, ServerFeature
from plansight.server.symbol_lookup import same_file

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer
    from plansight.server.feature_hub import Provider


class CodeActionsFeature(ServerFeature):
    """Offers the core's quick fixes for the diagnostics in a code-action request, and source actions for the
    whole file.
    """

    def __init__(self, server: PlansightServer) -> None:
        self._server = server

    def providers(self) -> Sequence[tuple[HubSlot, Provider]]:
        return [("code_action", self.code_actions)]

    def code_actions(self, context: DocumentContext,
                     params: types.CodeActionParams) -> list[types.CodeAction]:
        """The fixes for the request's diagnostics and the file's source actions, filtered by the kinds the
        client asked for.
        """
        encoding = encoding_name(self._server.workspace.position_encoding)
        only = params.context.only
        actions: list[types.CodeAction] = []
        wants_fixes = not only or any(str(k).startswith("quickfix") for k in _kinds(only))
        wants_source = not only or any(str(k).startswith("source") for k in _kinds(only))
        if wants_fixes:
            for lsp_diagnostic in params.context.diagnostics:
                core = _core_diagnostic(context, lsp_diagnostic)
                if core is None:
                    continue
                for fix in fixes_for(core, context.parsed, context.domain):
                    actions.append(_action(context, fix, encoding, [lsp_diagnostic]))
            if not context.text.strip() and not any(a.title.startswith("Insert a") for a in actions):
                for fix in skeletons(context.parsed, context.domain):  # no diagnostic sent for an empty file
                    actions.append(_action(context, fix, encoding, []))
        if wants_source and context.parsed.domain is not None and os.path.isabs(context.path):
            created = problem_from_domain(context.parsed, os.path.exists)
            if created is not None:
                actions.append(_action(context, created, encoding, []))
        return actions


def _kinds(only: Any) -> list[str]:
    return [k.value if hasattr(k, "value") else str(k) for k in only]


def _core_diagnostic(context: DocumentContext, diagnostic: types.Diagnostic) -> Diagnostic | None:
    """The core diagnostic a client diagnostic was made from: its code, range and ``data``."""
    if diagnostic.source not in (None, SOURCE) or not isinstance(diagnostic.code, str):
        return None
    if diagnostic.code not in CODES:
        return None
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    pairs = tuple((str(k), str(v)) for k, v in data.items() if k != "code" and isinstance(v, str))
    return make(diagnostic.code, diagnostic.message, context.mapper.span(diagnostic.range), data=pairs)


def _action(context: DocumentContext, fix: Fix, encoding: str,
            diagnostics: list[types.Diagnostic]) -> types.CodeAction:
    changes: list[types.TextDocumentEdit | types.CreateFile] = []
    if fix.create is not None:
        options = types.CreateFileOptions(overwrite=False, ignore_if_exists=True)
        changes.append(types.CreateFile(uri=path_to_uri(fix.create), options=options))
    for path in dict.fromkeys(edit.path for edit in fix.edits):
        mapper = _mapper(context, path, encoding, fix.create)
        if mapper is None:
            continue
        edits: list[types.TextEdit | types.AnnotatedTextEdit | types.SnippetTextEdit] = [
            types.TextEdit(range=mapper.range(e.span), new_text=e.new_text)
            for e in fix.edits if e.path == path]
        version = context.version if same_file(path, context.path) else None
        document = types.OptionalVersionedTextDocumentIdentifier(uri=_uri(context, path), version=version)
        changes.append(types.TextDocumentEdit(text_document=document, edits=edits))
    kind = types.CodeActionKind.Source if fix.kind == "source" else types.CodeActionKind.QuickFix
    return types.CodeAction(title=fix.title, kind=kind, diagnostics=diagnostics or None,
                            is_preferred=fix.preferred or None,
                            edit=types.WorkspaceEdit(document_changes=changes))


def _uri(context: DocumentContext, path: str) -> str:
    return context.uri if same_file(path, context.path) else path_to_uri(path)


def _mapper(context: DocumentContext, path: str, encoding: str, created: str | None) -> RangeMapper | None:
    if same_file(path, context.path):
        return context.mapper
    if created is not None and same_file(path, created):
        return RangeMapper("", encoding)
    partner = context.domain if context.domain is not None and same_file(path, context.domain.path) else None
    text = partner.text if partner is not None else context.source.read(path)
    return RangeMapper(text, encoding) if text is not None else None
