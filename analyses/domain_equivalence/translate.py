"""Reading a reference problem or plan in the candidate's names (and a candidate plan in the reference's), so
each can be run under the other domain: the reference problems are written for the reference's predicates,
types and constants, and a renamed candidate uses others.

Names the renaming does not cover are kept as they are: when the candidate lacks a predicate the problem
uses, the planner and the simulator then say so, which is the behaviour a user needs to see.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from plansight.analyses.domain_equivalence.renaming import KINDS, Kind, Renaming
from plansight.analyses.model.pddl import (
    And,
    Arithmetic,
    Atom,
    Comparison,
    Equality,
    Formula,
    FunctionTerm,
    Imply,
    Metric,
    Modal,
    Name,
    Not,
    Number,
    NumericEffect,
    NumericExpr,
    Or,
    Preference,
    Problem,
    Quantified,
    TimedLiteral,
    TimeSpecified,
    TypedName,
    TypeRef,
    When,
    name,
)
from plansight.analyses.plans.metrics import Action


def inverse(renaming: Renaming) -> Renaming:
    """The renaming read backwards: reference name -> candidate name."""
    pairs: dict[Kind, dict[str, str]] = {kind: {b: a for a, b in renaming.of(kind).items()} for kind in KINDS}
    return Renaming(**pairs, source=renaming.source)  # type: ignore[misc]


class Translator:
    """Rewrites problems, formulas and ground actions through one direction of a renaming."""

    def __init__(self, renaming: Renaming) -> None:
        self.renaming = renaming

    def _name(self, kind: Kind, value: Name) -> Name:
        mapped = self.renaming.of(kind).get(value.key)
        return value if mapped is None else name(mapped, value.span)

    def term(self, value: Name) -> Name:
        """An argument: constants are renamed, objects and variables kept."""
        return value if value.is_variable else self._name("constants", value)

    def type_ref(self, ref: TypeRef | None) -> TypeRef | None:
        """A type (or ``either``) in the other vocabulary."""
        if ref is None:
            return None
        return TypeRef(tuple(self._name("types", n) for n in ref.names), ref.span)

    def typed(self, items: Sequence[TypedName]) -> tuple[TypedName, ...]:
        """A typed list with its types renamed."""
        return tuple(TypedName(self.term(i.name), self.type_ref(i.type), i.span) for i in items)

    def expression(self, expr: NumericExpr) -> NumericExpr:
        """A numeric expression with functions and constants renamed."""
        if isinstance(expr, Number):
            return expr
        if isinstance(expr, Name):
            return self.term(expr)
        if isinstance(expr, FunctionTerm):
            args = tuple(self.term(a) for a in expr.args)
            return FunctionTerm(self._name("functions", expr.function), args, expr.span)
        assert isinstance(expr, Arithmetic)
        return Arithmetic(expr.op, tuple(self.expression(a) for a in expr.args), expr.span)

    def formula(self, formula: Formula) -> Formula:
        """A formula with predicates, functions, constants and types renamed."""
        if isinstance(formula, Atom):
            args = tuple(self.term(a) for a in formula.args)
            return Atom(self._name("predicates", formula.predicate), args, formula.span)
        if isinstance(formula, Equality):
            return Equality(self.term(formula.left), self.term(formula.right), formula.span)
        if isinstance(formula, Not):
            return Not(self.formula(formula.arg), formula.span)
        if isinstance(formula, (And, Or)):
            return type(formula)(tuple(self.formula(a) for a in formula.args), formula.span)
        if isinstance(formula, Imply):
            return Imply(self.formula(formula.condition), self.formula(formula.consequence), formula.span)
        if isinstance(formula, When):
            return When(self.formula(formula.condition), self.formula(formula.effect), formula.span)
        if isinstance(formula, Quantified):
            return Quantified(formula.quantifier, self.typed(formula.variables), self.formula(formula.body),
                              formula.span)
        if isinstance(formula, Comparison):
            return Comparison(formula.op, self.expression(formula.left), self.expression(formula.right),
                              formula.span)
        if isinstance(formula, NumericEffect):
            target = self.expression(formula.target)
            assert isinstance(target, FunctionTerm)
            return NumericEffect(formula.op, target, self.expression(formula.value), formula.span)
        if isinstance(formula, (TimeSpecified, Preference, TimedLiteral)):
            return dataclasses.replace(formula, body=self.formula(formula.body))
        if isinstance(formula, Modal):
            return dataclasses.replace(formula, args=tuple(self.formula(a) for a in formula.args))
        return formula

    def problem(self, problem: Problem, domain_name: Name | None) -> Problem:
        """A problem for the other domain."""
        metric = problem.metric
        return dataclasses.replace(
            problem,
            domain_name=domain_name or problem.domain_name,
            objects=self.typed(problem.objects),
            init=tuple(self.formula(f) for f in problem.init),
            goal=None if problem.goal is None else self.formula(problem.goal),
            constraints=None if problem.constraints is None else self.formula(problem.constraints),
            metric=None if metric is None else Metric(metric.direction, self.expression(metric.expr),
                                                      metric.span),
        )

    def action(self, action: Action) -> Action:
        """A ground action (``("stack", "a", "b")``) in the other vocabulary."""
        actions: Mapping[str, str] = self.renaming.actions
        constants: Mapping[str, str] = self.renaming.constants
        return (actions.get(action[0], action[0]), *(constants.get(a, a) for a in action[1:]))
