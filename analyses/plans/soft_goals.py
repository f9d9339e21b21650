"""A PDDL3 task as a classical planner can take it: preferences dropped, hard constraints refused.

Fast Downward rejects ``:constraints`` and ``preference`` (its translator exits with "unsupported"),
and plan repair restarts it from the state after a plan's prefix, where the history that trajectory
constraints judge is gone. Preferences are soft (docs/beyond-classical-pddl3.md): a plan that reaches
the goal without them is still valid, it only counts more ``is-violated``. So a task with preferences
alone is planned without them, and one with hard constraints is not planned at all, said plainly.
"""

from __future__ import annotations

import dataclasses

from plansight.analyses.model.pddl import (
    And,
    Domain,
    Formula,
    FunctionTerm,
    Preference,
    Problem,
    Quantified,
    numeric_terms,
    walk,
)

PDDL3_REQUIREMENTS = frozenset({":preferences", ":constraints"})


def hard_constraints(domain: Domain, problem: Problem) -> list[str]:
    """Where the pair states trajectory constraints that are not preferences: ``the domain``, ``the
    problem``."""
    places = []
    for where, constraints in (("the domain", domain.constraints), ("the problem", problem.constraints)):
        if constraints is not None and _without(constraints) is not None:
            places.append(where)
    return places


def has_preferences(domain: Domain, problem: Problem) -> bool:
    """Whether a preference occurs anywhere (goal, preconditions, constraints)."""
    formulas = [problem.goal, problem.constraints, domain.constraints,
                *(a.precondition for a in domain.actions)]
    return any(isinstance(node, Preference) for formula in formulas for node in walk(formula))


def without_preferences(domain: Domain, problem: Problem) -> tuple[Domain, Problem]:
    """The task with every preference dropped (and constraints made only of preferences), the PDDL3
    requirements removed, and a metric that reads ``is-violated`` dropped: what remains is what a valid
    plan must do."""
    actions = tuple(dataclasses.replace(a, precondition=_without(a.precondition)) for a in domain.actions)
    requirements = tuple(r for r in domain.requirements if r.key not in PDDL3_REQUIREMENTS)
    stripped = dataclasses.replace(domain, actions=actions, requirements=requirements,
                                   constraints=_without(domain.constraints))
    metric = problem.metric
    if metric is not None and any(isinstance(node, FunctionTerm) and node.function.key == "is-violated"
                                  for node in numeric_terms(metric.expr)):
        metric = None
    goal = _without(problem.goal)
    task = dataclasses.replace(
        problem, goal=goal if goal is not None else And(()), constraints=_without(problem.constraints),
        metric=metric, requirements=tuple(r for r in problem.requirements if r.key not in PDDL3_REQUIREMENTS))
    return stripped, task


def _without(formula: Formula | None) -> Formula | None:
    """``formula`` without its preferences (in conjunctions and ``forall`` s of them), None when nothing
    is left."""
    if formula is None or isinstance(formula, Preference):
        return None
    if isinstance(formula, And):
        kept = tuple(part for part in (_without(p) for p in formula.args) if part is not None)
        if not kept:
            return None
        return dataclasses.replace(formula, args=kept)
    if isinstance(formula, Quantified) and formula.quantifier == "forall":
        body = _without(formula.body)
        return None if body is None else dataclasses.replace(formula, body=body)
    return formula
