"""Which actions apply at a step of a plan being written: what the editor offers and explains.

Completion at a step offers the actions applicable in the state the steps before it reach, and the
hover on a step says how many were applicable there and whether the step was one of them. Both are
the applicability truth (:func:`~plansight.analyses.reasoning.truth.applicable_in`) in a state of the
plan's simulation; where that state is unknown (a step before cannot run, the domain has constructs
the simulator does not handle) there is no answer rather than a guess.
"""

from __future__ import annotations

from collections.abc import Sequence

from plansight.analyses.model.pddl import Domain, PlanStep, Problem
from plansight.analyses.plans.simulate import Simulation, Unparsed, simulate
from plansight.analyses.reasoning.truth import applicable_in
from plansight.analyses.semantics.budget import BudgetExceeded, WorkBudget
from plansight.analyses.semantics.state import GroundAtom

QUICK = WorkBudget(time_limit_s=1.0, max_units=5_000_000)
"""What an answer to a hover or a keystroke may spend (docs/reliability.md, budgets): a precondition
with billions of instances leaves the count out instead of stalling the editor."""


def applicable_before(simulation: Simulation, index: int,
                      budget: WorkBudget = QUICK) -> tuple[GroundAtom, ...] | None:
    """The ground actions applicable in the state before step ``index`` (0-based), sorted; None when
    the plan was not simulated or stopped before that state, or when listing them exceeds ``budget``, or
    for a temporal plan (whose durative actions are not instantaneous successors of a state)."""
    world = simulation.world
    if simulation.unknown or simulation.temporal or world is None or index > len(simulation.trace):
        return None
    try:
        with world.metered(budget.meter()):
            return applicable_in(world, simulation.state_before(index))
    except BudgetExceeded:
        return None


def applicable_after(domain: Domain, problem: Problem, steps: Sequence[PlanStep | Unparsed],
                     budget: WorkBudget = QUICK) -> tuple[GroundAtom, ...] | None:
    """The ground actions applicable once ``steps`` have run; None when one of them cannot run (or
    the pair cannot be simulated, or not within ``budget``), since the state is then unknown."""
    simulation = simulate(domain, problem, steps, budget=budget)
    if simulation.failure is not None:
        return None
    return applicable_before(simulation, len(simulation.trace), budget)


def step_key(step: PlanStep | Unparsed) -> GroundAtom | None:
    """The step as a ground action in the simulator's lower-case form, or None for an unreadable line."""
    if isinstance(step, Unparsed):
        return None
    return (step.action.key, *(arg.key for arg in step.args))
