"""Vocabulary checks of an LTL goal against its PDDL domain and problem.

The messages use the Embodied Agent Interface's error categories (Li et al. 2024, D.2): a *hallucinated*
predicate, action or object is a name the environment does not know, an *argument-count* error an
atom with the wrong number of arguments. (Parsing errors come from :mod:`.parse_ltl`.) A name is
looked up among predicates first, then actions, as the paper's reference implementation does.
"""

from __future__ import annotations

from collections.abc import Mapping

from plansight.analyses.diagnostics.diagnostic import Diagnostic, make
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.diagnostics.suggest import did_you_mean
from plansight.analyses.ltl.depth import too_deep
from plansight.analyses.ltl.scope import LtlScope, VariableRange, ltl_scope
from plansight.analyses.model.ltl import LtlAtom, LtlFormula, LtlQuantified, ltl_children
from plansight.analyses.model.pddl import Domain, Problem, TypedName
from plansight.analyses.model.vocabulary import type_keys

MAX_LISTED = 8


def check_ltl(formula: LtlFormula | None, domain: Domain | None, problem: Problem | None,
              scope: LtlScope | None = None) -> list[Diagnostic]:
    """Hallucinated names, argument counts, argument types, and the typed ranges of variables.

    Without a domain there is nothing to check names against (the linking step says so); without a
    problem, arguments are checked against the domain's constants only when they are constants.
    """
    if formula is None:
        return []
    deep = too_deep(formula)
    if deep is not None:  # before any recursive walk: see depth.py
        return [make("budget-exceeded", f"This goal is not checked or evaluated: {deep}. Split it into "
                     "simpler goals.", formula.span)]
    if domain is None:
        return []
    scope = scope or ltl_scope(formula, domain, problem)
    checker = _Checker(scope, domain, problem)
    checker.visit(formula, {})
    return checker.diagnostics


class _Checker:
    def __init__(self, scope: LtlScope, domain: Domain, problem: Problem | None) -> None:
        self.scope = scope
        self.domain = domain
        self.problem = problem
        self.diagnostics: list[Diagnostic] = []

    def visit(self, node: LtlFormula, bound: Mapping[str, LtlQuantified]) -> None:
        if isinstance(node, LtlQuantified):
            self._range(node)
            self.visit(node.body, {**bound, node.variable.key: node})
        elif isinstance(node, LtlAtom):
            self._atom(node, bound)
        else:
            for child in ltl_children(node):
                self.visit(child, bound)

    def _atom(self, atom: LtlAtom, bound: Mapping[str, LtlQuantified]) -> None:
        key = atom.name.key
        parameters = self.scope.parameters(key)
        if parameters is None:
            predicates = [p.name.display for p in self.scope.predicates.values()]
            actions = [a.name.display for a in self.scope.actions.values()]
            guess = did_you_mean(key, [*predicates, *actions])
            # the closest declared name tells which EAI category the slip belongs to
            category = ("predicate or action" if guess is None
                        else "action" if guess in actions and guess not in predicates else "predicate")
            names = [*predicates, *actions]
            hint = f" Did you mean the {category} `{guess}`?" if guess else (
                f" It declares {_listing(names)}." if names else " It declares no predicates or actions.")
            self.diagnostics.append(make(
                "hallucinated-predicate",
                f"Hallucinated {category}: `{atom.name.display}` is neither a predicate nor an "
                f"action of domain `{self.domain.name.display}`.{hint}",
                atom.name.span, data=(("suggestion", guess),) if guess else ()))
        elif len(parameters) != len(atom.args):
            kind = "action" if self.scope.is_action(key) else "predicate"
            signature = " ".join(_parameter(p) for p in parameters)
            self.diagnostics.append(make(
                "argument-count",
                f"Argument-count error: {kind} `{atom.name.display}` takes {_count(len(parameters))}"
                f"{f' ({signature})' if signature else ''}, got {len(atom.args)}.",
                atom.span))
        for position, arg in enumerate(atom.args):
            if arg.key in bound:
                continue
            parameter = parameters[position] if parameters is not None and position < len(
                parameters) and len(parameters) == len(atom.args) else None
            self._argument(atom, position, arg.key, arg.display, arg.span, parameter, bound)

    def _argument(self, atom: LtlAtom, position: int, key: str, shown: str, span: Span,
                  parameter: TypedName | None, bound: Mapping[str, LtlQuantified]) -> None:
        known = key in self.scope.objects
        if not known:
            if self.problem is None:
                return  # objects are unknown without a problem; linking reports the missing problem
            candidates = [*self.scope.objects, *bound]
            guess = did_you_mean(key, candidates)
            listing = _listing(list(self.scope.objects))
            hint = f" Did you mean `{guess}`?" if guess else (
                f" The objects and constants are {listing}." if self.scope.objects else "")
            self.diagnostics.append(make(
                "hallucinated-object",
                f"Hallucinated object: `{shown}` is not an object of problem `{self.problem.name.display}` "
                f"nor a constant of domain `{self.domain.name.display}`, and no quantifier binds it.{hint}",
                span, data=(("suggestion", guess),) if guess else ()))
            return
        vocab = self.scope.vocab
        if parameter is None or vocab is None or not vocab.typing:
            return
        types = self.scope.types_of(key)
        if not vocab.fits(types, parameter.type):
            self.diagnostics.append(make(
                "ltl-type-mismatch",
                f"`{shown}` is of type `{' or '.join(types)}`, but argument {position + 1} of "
                f"`{atom.name.display}` is `{_parameter(parameter)}`: this atom can never hold.",
                span))

    def _range(self, quantifier: LtlQuantified) -> None:
        found: VariableRange | None = self.scope.ranges.get(quantifier)
        if found is None or not found.uses:
            return
        variable = quantifier.variable.display
        uses = "; ".join(
            f"argument {u.position + 1} of `{u.atom.name.display}` is `- {' or '.join(u.types)}`"
            for u in found.uses[:3])
        if not found.objects:
            self.diagnostics.append(make(
                "ltl-type-mismatch",
                f"No object fits every use of `{variable}` ({uses}), so `{quantifier.quantifier}` ranges "
                "over nothing here.", quantifier.variable.span))
            return
        self.diagnostics.append(make(
            "quantifier-range",
            f"`{variable}` ranges over the objects of type `{' and '.join(found.types)}` "
            f"({_listing(list(found.objects))}), because {uses}.",
            quantifier.variable.span))


def _parameter(parameter: TypedName) -> str:
    types = type_keys(parameter.type)
    return parameter.name.display + (f" - {' or '.join(types)}" if types else "")


def _count(n: int) -> str:
    return f"{n} argument" + ("" if n == 1 else "s")


def _listing(names: list[str]) -> str:
    shown = ", ".join(f"`{n}`" for n in names[:MAX_LISTED])
    return shown + (f" and {len(names) - MAX_LISTED} more" if len(names) > MAX_LISTED else "")
