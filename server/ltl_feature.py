"""Editor support for LTL goals (``.ltl``): completion, hover, code lenses and one command.

Providers on ``server.hub`` that answer for ``.ltl`` documents only:

* **completion** of predicate and action names (as snippets with their arity) where a formula can
  start, and of objects, constants and variables in scope inside an atom's argument list (only those
  of the parameter's type when the domain is typed);
* **hover** on an atom: the PDDL declaration (predicate signature or action schema), on an argument:
  the object's type or the variable's range;
* **code lenses**: ``satisfied at step k`` / ``not satisfied: <failed sub-formula>`` when a plan is
  linked (``; @plan``), ``F1 0.83 vs reference`` when a reference formula is (``; @reference``).
  Both come from the same core as ``plansight ltl`` (:func:`~plansight.analyses.ltl.report.ltl_report`);
* the command ``plansight.server.ltlReport`` returns ``plansight ltl --format json``'s document.

Diagnostics need nothing here: ``.ltl`` files are linted by the core like any other file.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from plansight.analyses.checks.domain_references import signature
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing.describe import action_schema
from plansight.analyses.ltl.report import LtlReport, ltl_report
from plansight.analyses.ltl.scope import LtlScope, ltl_scope
from plansight.analyses.model.ltl import LtlAtom, LtlFormula, LtlQuantified, format_ltl, ltl_walk
from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.model.vocabulary import type_keys
from plansight.analyses.syntax.documents import ParsedDocument
from plansight.analyses.syntax.parse_ltl import KEYWORDS
from plansight.analyses.workspace.ltl_links import follow_link
from plansight.server.commands import LTL_REPORT, LtlRange, LtlReportResult
from plansight.server.context import DocumentContext, capture_context, context_in_worker
from plansight.server.feature_contract import HubSlot, ServerFeature
from plansight.server.settings import simulation_budget

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer
    from plansight.server.feature_hub import Provider

REPORT_COMMAND = LTL_REPORT.id
LENS_TITLE_WIDTH = 100
_WORD_BEFORE = re.compile(r"[A-Za-z0-9_\-.]*$")


@dataclass(frozen=True, slots=True)
class LtlView:
    """An ``.ltl`` document with its partners resolved."""

    formula: LtlFormula | None
    domain: Domain | None
    problem: Problem | None
    scope: LtlScope


def view_of(context: DocumentContext) -> LtlView | None:
    """The formula, domain, problem and scope of an LTL goal document, or None when the document is not one.
    """
    goal = context.parsed.ltl if context.kind == "ltl" else None
    if goal is None:
        return None
    domain = context.domain.domain if context.domain is not None else None
    problem = context.problem.problem if context.problem is not None else None
    scope = ltl_scope(goal.formula, domain, problem) if domain is not None else LtlScope()
    return LtlView(goal.formula, domain, problem, scope)


class LtlFeature(ServerFeature):
    """Editor support for LTL goal files: completion, hover, the verdict lens and the report command."""

    commands = (REPORT_COMMAND,)

    def __init__(self, server: PlansightServer) -> None:
        self._server = server

    def providers(self) -> Sequence[tuple[HubSlot, Provider]]:
        return [("completion", complete), ("hover", hover), ("code_lens", code_lens)]

    def register(self) -> None:
        """Install the report command."""
        server = self._server

        @server.command(REPORT_COMMAND)
        async def ltl_report_command(*arguments: Any) -> LtlReportResult | None:
            uri = _uri_argument(arguments)
            request = capture_context(server, uri) if uri is not None else None
            if request is None:
                return None
            context = await context_in_worker(server, request)
            return await asyncio.to_thread(report_json, context) if context is not None else None


def _uri_argument(arguments: Sequence[Any]) -> str | None:
    first = arguments[0] if arguments else None
    if isinstance(first, list) and first:  # some clients wrap the arguments once more
        first = first[0]
    uri = first.get("uri") if isinstance(first, dict) else first
    return uri if isinstance(uri, str) else None


# --- completion --------------------------------------------------------------------------------------

def complete(context: DocumentContext, params: types.CompletionParams) -> list[types.CompletionItem]:
    """Completion in an LTL goal: predicate and action names, and objects or variables that fit the argument
    under the cursor.
    """
    view = view_of(context)
    if view is None:
        return []
    offset = context.mapper.offset(params.position)
    before = context.text[:offset]
    prefix = _WORD_BEFORE.search(before)
    start = prefix.start() if prefix else offset
    edit_range = context.mapper.range(Span(start, offset))
    atom_head, position = _argument_position(before[:start])
    if atom_head is not None:
        return _arguments(view, atom_head.lower(), position, before, edit_range)
    return _heads(view, edit_range)


def _argument_position(before: str) -> tuple[str | None, int]:
    """Inside ``name(a, b, |``: the atom's name and the 0-based argument index; else (None, 0)."""
    depth, commas = 0, 0
    for i in range(len(before) - 1, -1, -1):
        char = before[i]
        if char == ")":
            depth += 1
        elif char == "(":
            if depth == 0:
                head = _WORD_BEFORE.search(before[:i].rstrip())
                word = head.group() if head else ""
                if word and word not in KEYWORDS:
                    return word, commas
                return None, 0
            depth -= 1
        elif char == "," and depth == 0:
            commas += 1
    return None, 0


def _heads(view: LtlView, edit_range: types.Range) -> list[types.CompletionItem]:
    items: list[types.CompletionItem] = []
    for kind, declarations in (("predicate", view.scope.predicates), ("action", view.scope.actions)):
        for key, declaration in declarations.items():
            if kind == "action" and key in view.scope.predicates:
                continue
            parameters = declaration.parameters
            snippet = ", ".join(f"${{{i + 1}:{p.name.display.lstrip('?')}}}"
                                for i, p in enumerate(parameters))
            icon = (types.CompletionItemKind.Function if kind == "predicate"
                    else types.CompletionItemKind.Method)
            items.append(types.CompletionItem(
                label=declaration.name.display,
                kind=icon,
                detail=f"{kind}/{len(parameters)} {signature(declaration.name, parameters)}",
                insert_text_format=types.InsertTextFormat.Snippet,
                text_edit=types.TextEdit(range=edit_range, new_text=f"{declaration.name.display}({snippet})"),
                sort_text=("0" if kind == "predicate" else "1") + key))
    for word in KEYWORDS:
        items.append(types.CompletionItem(label=word, kind=types.CompletionItemKind.Keyword,
                                          text_edit=types.TextEdit(range=edit_range, new_text=word),
                                          sort_text="2" + word))
    return items


def _arguments(view: LtlView, head: str, position: int, before: str,
               edit_range: types.Range) -> list[types.CompletionItem]:
    parameters = view.scope.parameters(head)
    parameter = parameters[position] if parameters is not None and position < len(parameters) else None
    wanted = type_keys(parameter.type) if parameter is not None else ()
    items: list[types.CompletionItem] = []
    for variable in _variables_in_scope(before):
        items.append(types.CompletionItem(
            label=variable, kind=types.CompletionItemKind.Variable, detail="quantified variable",
            text_edit=types.TextEdit(range=edit_range, new_text=variable), sort_text="0" + variable))
    vocab = view.scope.vocab
    for obj in view.scope.objects:
        types_of = view.scope.types_of(obj)
        if wanted and vocab is not None and vocab.typing and parameter is not None and not vocab.fits(
                types_of, parameter.type):
            continue
        items.append(types.CompletionItem(
            label=obj, kind=types.CompletionItemKind.Constant, detail=f"object - {' or '.join(types_of)}",
            text_edit=types.TextEdit(range=edit_range, new_text=obj), sort_text="1" + obj))
    return items


def _variables_in_scope(before: str) -> list[str]:
    """Variables of the quantifiers whose body is still open at the cursor."""
    found = []
    for match in re.finditer(r"\b(?:forall|exists|forn\s+\d+\s*\.?)\s*([A-Za-z_][A-Za-z0-9_\-]*)\s*\.\s*\(",
                             before):
        depth = before[match.end():].count("(") - before[match.end():].count(")")
        if depth >= 0:
            found.append(match.group(1))
    return list(dict.fromkeys(found))


# --- hover -------------------------------------------------------------------------------------------

def hover(context: DocumentContext, params: types.HoverParams) -> types.Hover | None:
    """Hover in an LTL goal: for an atom's name its declaration, for a variable the objects it ranges over,
    for an object its type.
    """
    view = view_of(context)
    if view is None or view.formula is None or view.domain is None:
        return None
    offset = context.mapper.offset(params.position)
    binders: dict[str, LtlQuantified] = {}
    for node in ltl_walk(view.formula):
        if isinstance(node, LtlQuantified) and node.span.contains(offset):
            binders[node.variable.key] = node  # walk order: the innermost binder comes last
    for node in ltl_walk(view.formula):
        if isinstance(node, LtlQuantified) and node.variable.span.contains(offset):
            return _hover(context, _variable_text(view, node), node.variable.span)
        if not isinstance(node, LtlAtom):
            continue
        if node.name.span.contains(offset):
            shown = _atom_text(view, node)
            return _hover(context, shown, node.name.span) if shown else None
        for arg in node.args:
            if arg.span.contains(offset):
                binder = binders.get(arg.key)
                shown = _variable_text(view, binder) if binder is not None else _object_text(view, arg.key)
                return _hover(context, shown, arg.span) if shown else None
    return None


def _hover(context: DocumentContext, text: str, span: Span) -> types.Hover:
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
                       range=context.mapper.range(span))


def _atom_text(view: LtlView, atom: LtlAtom) -> str | None:
    key = atom.name.key
    domain_name = view.domain.name.display if view.domain is not None else "?"
    if key in view.scope.predicates:
        declaration = view.scope.predicates[key]
        return (f"**predicate** `{declaration.name.display}` (state proposition)\n\n```pddl\n"
                f"{signature(declaration.name, declaration.parameters)}\n```\n\n"
                f"Holds on a state-action pair when the atom is true in its state (domain `{domain_name}`).")
    action = view.scope.actions.get(key)
    if action is None:
        return None
    return (f"**action** `{action.name.display}` (action proposition)\n\n"
            f"```pddl\n{action_schema(action)}\n```\n\nHolds on the state-action pair whose action it is.")


def _variable_text(view: LtlView, quantifier: LtlQuantified) -> str:
    objects = view.scope.range_of(quantifier)
    found = view.scope.ranges.get(quantifier)
    why = (f", the objects of type `{' and '.join(found.types)}` (it is used where a typed parameter is "
           "expected)") if found is not None and found.uses else ""
    shown = ", ".join(f"`{o}`" for o in objects[:20]) + (" ..." if len(objects) > 20 else "")
    return (f"**variable** `{quantifier.variable.display}` of `{quantifier.quantifier}`\n\n"
            f"Ranges over {len(objects)} objects{why}: {shown or 'none'}")


def _object_text(view: LtlView, key: str) -> str | None:
    if key not in view.scope.objects:
        return None
    kind = "constant" if view.scope.vocab is not None and key in view.scope.vocab.constants else "object"
    return f"**{kind}** `{key}` - {' or '.join(view.scope.types_of(key))}"


# --- code lens and the report command ----------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Linked:
    report: LtlReport
    plan: ParsedDocument | None
    reference: ParsedDocument | None


def _linked_report(context: DocumentContext, view: LtlView) -> _Linked | None:
    plan = follow_link(context.parsed, "plan", context.source, context.read_partner)
    reference = follow_link(context.parsed, "reference", context.source, context.read_partner)
    if plan.document is None and reference.document is None:
        return None
    report = ltl_report(view.formula, view.domain, view.problem, plan.plan, reference.formula,
                        simulation_budget(context.settings))
    return _Linked(report, plan.document, reference.document)


def code_lens(context: DocumentContext, params: types.CodeLensParams) -> list[types.CodeLens]:
    """The lens with the goal's verdict on its linked plan and its F1 against the linked reference."""
    view = view_of(context)
    if view is None or view.formula is None:
        return []
    linked = _linked_report(context, view)
    if linked is None:
        return []
    report = linked.report
    titles: list[str] = []
    if linked.plan is not None:
        if report.satisfied is True:
            titles.append(f"satisfied at step {report.satisfied_at}")
        elif report.satisfied is False:
            failed = "; ".join(f.message for f in report.failures) or format_ltl(view.formula)
            titles.append(f"not satisfied: {failed}")
        else:
            titles.append("not evaluated: " + ("; ".join(report.notes) or "the plan could not be simulated"))
    if report.f1 is not None and linked.reference is not None:
        titles.append(f"F1 {report.f1.f1:.2f} vs reference {os.path.basename(linked.reference.path)}")
    start = context.mapper.range(view.formula.span).start
    at = types.Range(start=start, end=start)
    return [types.CodeLens(range=at, command=types.Command(
        title=title if len(title) <= LENS_TITLE_WIDTH else title[:LENS_TITLE_WIDTH - 1] + "…",
        command=REPORT_COMMAND, arguments=[{"uri": context.uri}])) for title in titles]


def report_json(context: DocumentContext) -> LtlReportResult | None:
    """What ``plansight ltl --format json`` prints for this document, as the editor has it."""
    view = view_of(context)
    if view is None:
        return None
    linked = _linked_report(context, view)
    report = linked.report if linked is not None else ltl_report(view.formula, view.domain, view.problem)
    f1 = report.f1
    return {
        "path": context.path,
        "satisfied": report.satisfied,
        "satisfied_at": report.satisfied_at,
        "f1": round(f1.f1, 4) if f1 is not None else None,
        "failures": [{"message": f.message, "range": _range_json(context.mapper.range(f.node.span))}
                     for f in report.failures],
        "notes": list(report.notes),
    }


def _range_json(value: types.Range) -> LtlRange:
    return {"start": {"line": value.start.line, "character": value.start.character},
            "end": {"line": value.end.line, "character": value.end.character}}

