"""One LTL goal judged against a plan and a reference formula: what `plansight ltl` and the editor's
code lens show.

The trajectory comes from plan simulation (:func:`.simulate.simulate`), never from a second
simulator: the pairs (s0, a1), ..., (s_{k-1}, a_k), (s_k, None) of the steps that executed. A plan
that stops at a non-executable step is judged on what it executed, and the report says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from plansight.analyses.ltl.depth import too_deep
from plansight.analyses.ltl.evaluate import Failure, Pair, evaluate
from plansight.analyses.ltl.f1 import F1Result, goal_f1
from plansight.analyses.ltl.scope import LtlScope, ltl_scope
from plansight.analyses.model.ltl import LtlFormula
from plansight.analyses.model.pddl import Domain, Plan, PlanStep, Problem
from plansight.analyses.plans.simulate import Simulation, Unparsed, simulate
from plansight.analyses.semantics.budget import BudgetExceeded, WorkBudget
from plansight.analyses.semantics.state import State


@dataclass(frozen=True, slots=True)
class LtlReport:
    """Everything ``plansight ltl`` and the editor report about one LTL goal, built by one function so both
    agree.
    """

    satisfied: bool | None
    """None when there is no plan to judge (or it could not be simulated); ``notes`` say why."""
    satisfied_at: int | None
    failures: tuple[Failure, ...] = ()
    f1: F1Result | None = None
    notes: tuple[str, ...] = ()
    stopped_reason: str | None = None
    """Why ``satisfied`` is None although a plan is linked: the work budget of the simulation or of the
    evaluation ran out, or the formula nests too deeply (analyses/semantics/budget.py)."""


def trajectory(simulation: Simulation) -> list[Pair]:
    """The state-action pairs of the executed steps, then the last state with no action. A temporal
    plan's trajectory is its states between happenings, each paired with the action the next happening
    starts (its first, when it starts several; none when it only ends actions or holds timed literals)."""
    states = list(simulation.states())
    world = simulation.world
    if world is not None and world.derived is not None:  # an LTL atom may name a derived predicate
        states = [State(state.atoms | world.derived_atoms(state.atoms, state.values), state.values)
                  for state in states]
    pairs: list[Pair] = []
    for index, state in enumerate(states):
        step = _acting(simulation, index) if index < len(states) - 1 else None
        action = (step.action.key, *(a.key for a in step.args)) if isinstance(step, PlanStep) else None
        pairs.append((state, action))
    return pairs


def _acting(simulation: Simulation, index: int) -> PlanStep | Unparsed | None:
    if not simulation.temporal:
        return simulation.steps[index]
    starts = [snap.step for snap in simulation.happenings[index].snaps
              if snap.kind in ("start", "at") and snap.step is not None]
    return simulation.steps[starts[0]] if starts else None


def ltl_report(formula: LtlFormula | None, domain: Domain | None, problem: Problem | None,
               plan: Plan | Sequence[PlanStep | Unparsed] | None = None,
               reference: LtlFormula | None = None, budget: WorkBudget | None = None) -> LtlReport:
    """Judge ``formula`` against ``plan`` and compare it with ``reference``, doing only what the given files
    allow and saying in ``notes`` what was skipped. ``plan`` may be its steps with the lines that did not
    parse in place, so the goal is judged on the trajectory `plansight plan` reports. ``budget`` bounds
    the simulation, the evaluation and the F1 each (past it: no verdict, ``stopped_reason``); its
    ``cancelled`` hook raises ``Cancelled``.
    """
    if formula is None:
        return LtlReport(None, None, notes=("the formula could not be parsed",))
    deep = too_deep(formula) or (too_deep(reference) if reference is not None else None)
    if deep is not None:
        reason = f"not evaluated: {deep}"
        return LtlReport(None, None, notes=(reason,), stopped_reason=reason)
    scope = ltl_scope(formula, domain, problem) if domain is not None else LtlScope()
    notes: list[str] = []
    f1: F1Result | None = None
    if reference is not None:
        reference_scope = ltl_scope(reference, domain, problem) if domain is not None else LtlScope()
        try:
            f1 = goal_f1(formula, reference, scope, reference_scope, (budget or WorkBudget()).meter())
        except BudgetExceeded as exceeded:
            exceeded.where = "the goal F1"
            notes.append(f"goal F1 not computed: {exceeded.reason}")
    if plan is None:
        return LtlReport(None, None, (), f1, tuple(notes))
    if domain is None or problem is None:
        notes.append("no problem (and domain) is linked, so the plan cannot be simulated")
        return LtlReport(None, None, (), f1, tuple(notes))
    simulation = simulate(domain, problem, plan, budget=budget)
    if simulation.skipped_reason is not None:
        notes.append(f"the plan was not simulated: {simulation.skipped_reason}")
        return LtlReport(None, None, (), f1, tuple(notes))
    if simulation.stopped_reason is not None:
        reason = f"the plan was not simulated to the end: {simulation.stopped_reason}"
        return LtlReport(None, None, (), f1, (*notes, reason), reason)
    if simulation.failure is not None:
        unit = "happening" if simulation.temporal else "step"
        notes.append(f"the plan stops at {unit} {simulation.failure.index} ({simulation.failure.message}); "
                     f"the goal is judged on the {simulation.failure.index} {unit}s before it")
    result = evaluate(formula, trajectory(simulation), scope, budget)
    if result.stopped_reason is not None:
        notes.append(f"the goal was not evaluated: {result.stopped_reason}")
    return LtlReport(result.satisfied, result.satisfied_at, result.failures, f1, tuple(notes),
                     result.stopped_reason)
