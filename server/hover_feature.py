"""Hover on a name: what it is, as declared, wherever the cursor meets it.

A provider on the hub's hover (``server/feature_hub.py``). It answers for names of domains, problems
and plans and returns None elsewhere, so more specific providers asked before it (the state before a
plan step: the plan feature comes first in ``FEATURE_ORDER``) win on their own ground.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from plansight.analyses.checks.domain_references import signature, type_text
from plansight.analyses.editing.describe import (
    action_schema,
    declaration_comment,
    function_signature,
    requirement_text,
    subtypes_of,
    type_chain,
)
from plansight.analyses.editing.symbols import Declaration, Occurrence
from plansight.analyses.model.deferred import built, peek
from plansight.analyses.model.pddl import (
    Domain,
    FunctionDecl,
    PredicateDecl,
    Problem,
    Quantified,
    TypedName,
    walk,
)
from plansight.analyses.model.vocabulary import Vocabulary, vocabulary
from plansight.analyses.syntax.documents import ParsedDocument
from plansight.analyses.syntax.runs import formula_parts, list_touching
from plansight.server.context import DocumentContext
from plansight.server.feature_contract import HubSlot, ServerFeature
from plansight.server.symbol_lookup import occurrence_at, same_file

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer
    from plansight.server.feature_hub import Provider


class HoverFeature(ServerFeature):
    """Hover text for any declared name: its declaration, type and where it comes from."""

    def __init__(self, server: PlansightServer) -> None:
        self._server = server

    def providers(self) -> Sequence[tuple[HubSlot, Provider]]:
        return [("hover", hover)]


def hover(context: DocumentContext, params: types.HoverParams) -> types.Hover | None:
    """The Markdown description of the name under the cursor, or None when there is none."""
    if context.kind not in ("domain", "problem", "plan"):
        return None
    occurrence = occurrence_at(context, context.mapper.offset(params.position))
    if occurrence is None:
        return None
    text = describe(context, occurrence)
    if not text:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
                       range=context.mapper.range(occurrence.span))


def describe(context: DocumentContext, occurrence: Occurrence) -> str | None:
    """The Markdown shown for ``occurrence``; None when there is nothing worth saying."""
    if occurrence.kind == "requirement":
        return f"**requirement** `{occurrence.text}`\n\n" + requirement_text(occurrence.key)
    target = occurrence.target
    if occurrence.kind == "variable" and target is None:
        if occurrence.key == "?duration":
            return "`?duration`: the duration of this durative action."
        if occurrence.key == "#t":
            return "`#t`: the time elapsed, in continuous effects."
        return None
    if target is None:
        if occurrence.kind == "type" and occurrence.key in ("object", "number"):
            return f"**type** `{occurrence.key}` (built in)" + (
                ": every object's type." if occurrence.key == "object" else ": numeric function values.")
        return None
    declaring = _declaring(context, target)
    domain = context.domain.domain if context.domain is not None else None
    vocab = vocabulary(domain) if domain is not None else None
    kind = target.kind
    if kind in ("predicate", "function", "action") and vocab is not None:
        return _domain_symbol(kind, target, vocab, declaring, context, occurrence)
    if kind == "type" and vocab is not None and domain is not None:
        return _type(target, vocab, domain)
    if kind in ("object", "constant"):
        return _object(target, vocab, declaring)
    if kind == "variable" and declaring is not None:
        return _variable(target, declaring)
    if kind == "domain":
        where = f" — `{os.path.basename(target.path)}`" if target.path else ""
        return f"**domain** `{occurrence.text}`{where}"
    return None


def _declaring(context: DocumentContext, target: Declaration) -> ParsedDocument | None:
    for candidate in (context.parsed, context.domain, context.problem):
        if candidate is not None and same_file(candidate.path, target.path):
            return candidate
    return None


def _domain_symbol(kind: str, target: Declaration, vocab: Vocabulary, declaring: ParsedDocument | None,
                   context: DocumentContext, occurrence: Occurrence) -> str | None:
    comment = declaration_comment(declaring.text, target.span) if declaring is not None else ""
    notes: list[str] = []
    if kind == "predicate":
        decl = vocab.predicates.get(target.key)
        if decl is None:
            return None
        code = signature(decl.name, decl.parameters)
        derived = any(rule.head.name.key == target.key for rule in vocab.domain.derived)
        title = "derived predicate" if derived else "predicate"
        if not derived and vocab.is_static(target.key):
            notes.append("Static: no action changes it.")
    elif kind == "function":
        function = vocab.functions.get(target.key)
        if function is None:
            return None
        code, title = function_signature(function), "function"
    else:
        action = vocab.actions.get(target.key)
        if action is None:
            return None
        code, title = action_schema(action), action.kind.replace("-", " ")
        if context.kind == "plan":
            notes.append(_step_binding(context, occurrence, action.parameters))
    parts = [f"**{title}** `{target.key}`", f"```pddl\n{code}\n```"]
    if comment:
        parts.append(comment)
    parts.extend(n for n in notes if n)
    return "\n\n".join(parts)


def _step_binding(context: DocumentContext, occurrence: Occurrence, parameters: tuple[TypedName, ...]) -> str:
    plan = context.parsed.plan
    if plan is None:
        return ""
    step = next((s for s in plan.steps if s.action.span == occurrence.span), None)
    if step is None or not parameters:
        return ""
    pairs = [f"`{p.name.display}` = `{a.display}`" for p, a in zip(parameters, step.args, strict=False)]
    return "This step: " + ", ".join(pairs)


def _type(target: Declaration, vocab: Vocabulary, domain: Domain) -> str:
    lines = [f"**type** `{target.key}`", f"`{type_chain(vocab, target.key)}`"]
    below = subtypes_of(domain, target.key)
    if below:
        lines.append("Subtypes: " + ", ".join(f"`{t}`" for t in below))
    return "\n\n".join(lines)


def _object(target: Declaration, vocab: Vocabulary | None, declaring: ParsedDocument | None) -> str | None:
    model = declaring.model if declaring is not None else None
    entries: tuple[TypedName, ...] = ()
    if isinstance(model, Problem):
        entries = built(peek(model, "objects"))  # alone: not :init and the goal
    elif isinstance(model, Domain):
        entries = model.constants
    entry = next((e for e in entries if e.name.span == target.span), None)
    if entry is None:
        return None
    title = "object" if target.kind == "object" else "constant"
    if entry.type is None:
        untyped = " (untyped)" if vocab is not None and vocab.typing else ""
        return f"**{title}** `{entry.name.display}`{untyped}"
    text = f"**{title}** `{entry.name.display} - {type_text(entry.type)}`"
    if vocab is not None and not entry.type.is_either:
        text += f"\n\n`{type_chain(vocab, entry.type.names[0].key)}`"
    return text


def _variable(target: Declaration, declaring: ParsedDocument) -> str | None:
    model = declaring.model
    if not isinstance(model, (Domain, Problem)):
        return None
    found = _find_variable(model, target)
    if found is None:
        return None
    entry, owner = found
    return f"**variable** `{entry.name.display} - {type_text(entry.type)}` {owner}"


def _find_variable(model: Domain | Problem, target: Declaration) -> tuple[TypedName, str] | None:
    """The variable's typed name and a phrase naming what binds it."""
    def match(items: tuple[TypedName, ...]) -> TypedName | None:
        return next((i for i in items if i.name.span == target.span), None)

    if isinstance(model, Domain):
        for action in model.actions:
            if (hit := match((*action.parameters, *action.variables))) is not None:
                return hit, f"of {action.kind.replace('-', ' ')} `{action.name.display}`"
        declarations: list[PredicateDecl | FunctionDecl] = [*model.predicates, *model.functions]
        for decl in declarations:
            if (hit := match(decl.parameters)) is not None:
                return hit, f"of `{signature(decl.name, decl.parameters)}`"
        for rule in model.derived:
            if (hit := match(rule.head.parameters)) is not None:
                return hit, f"of the derived predicate `{rule.head.name.display}`"
        formulas = [f for a in model.actions for f in (a.precondition, a.effect, a.duration, a.observe)]
        formulas += [r.body for r in model.derived] + [model.constraints]
    else:
        # after an edit, only the facts and goal arguments around the variable are copied (syntax/runs.py)
        start, end = target.span.start, target.span.end
        formulas = [*formula_parts(peek(model, "goal"), start, end), built(peek(model, "constraints")),
                    *list_touching(peek(model, "init"), start, end)]
    for formula in formulas:
        for node in walk(formula):
            if isinstance(node, Quantified) and (hit := match(node.variables)) is not None:
                return hit, f"bound by `{node.quantifier}`"
    return None
