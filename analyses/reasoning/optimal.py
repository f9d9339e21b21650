"""The reference plan of the plan-generation tasks: an optimal plan from Fast Downward.

Action distance is measured against an optimal plan (Murthy, Mink and Sanneman 2025 store only the
optimal plan as ground truth). The planner runs as plan recovery runs it
(:func:`~plansight.analyses.plans.recovery.solve`, A* with LM-cut, within a time and memory budget);
when LM-cut does not support the task, recovery falls back to a greedy search whose plan is not
optimal, and that plan is refused here rather than scored against.
"""

from __future__ import annotations

from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.plans.recovery import OPTIMAL_SEARCH, Budget, solve
from plansight.analyses.reasoning.answers import Words
from plansight.analyses.reasoning.truth import TruthError


def optimal_plan(domain: Domain, problem: Problem, budget: Budget | None = None) -> tuple[Words, ...]:
    """An optimal plan of the problem, or a :class:`TruthError` saying why there is none to compare with."""
    result = solve(domain, problem, budget or Budget())
    if not result.solved or result.plan is None:
        raise TruthError(f"no optimal plan: {result.message} ({result.planner})")
    if OPTIMAL_SEARCH not in result.planner:
        raise TruthError("no optimal plan: Fast Downward's LM-cut does not support this task (conditional "
                         "effects?); give the optimal plan in the case's `optimal_plan`")
    return tuple(tuple(step) for step in result.plan)
