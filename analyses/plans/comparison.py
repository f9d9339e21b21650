"""Glue between the simulator and the plan metrics: validity of action sequences, reference states.

`plan_metrics` works on bare action sequences; whether one is a valid plan, and which states it goes
through, is the simulator's answer (`simulate.py`), asked here once per sequence with one `World`
built per domain + problem pair.
"""

from __future__ import annotations

from collections.abc import Sequence

from plansight.analyses.model.pddl import Domain, PlanStep, Problem, name
from plansight.analyses.plans.metrics import Action, Evaluation, Validity, evaluate
from plansight.analyses.plans.simulate import Simulation, simulate
from plansight.analyses.plans.word_similarity import SimilarityVersion
from plansight.analyses.semantics.state import State
from plansight.analyses.semantics.world import World


def step_of(action: Action) -> PlanStep:
    """A plan step from a bare ground action, so a planner's or a reference's actions can be simulated like
    a parsed plan."""
    return PlanStep(name(action[0]), tuple(name(arg) for arg in action[1:]))


def steps_of(actions: Sequence[Action]) -> tuple[PlanStep, ...]:
    """Plan steps from bare ground actions (:func:`step_of` each)."""
    return tuple(step_of(action) for action in actions)


def simulate_actions(
    domain: Domain, problem: Problem, actions: Sequence[Action], world: World | None = None
) -> Simulation:
    """Simulate bare ground actions; pass ``world`` to reuse one already built for the same domain and
    problem.
    """
    return simulate(domain, problem, steps_of(actions), world=world)


def validity_checker(domain: Domain, problem: Problem, world: World | None = None) -> Validity | None:
    """A `Validity` for this pair, or None when the simulator cannot decide (unsupported constructs, or a
    temporal task: an edited action sequence has no start times or durations, so whether it is a valid
    temporal plan is undefined; docs/beyond-classical-temporal.md). ``world`` may be passed to reuse one
    built for the same pair."""
    world = world or World.build(domain, problem)
    if world.unsupported or world.temporal:
        return None

    steps: dict[Action, PlanStep] = {}  # the metrics ask about thousands of variants of the same actions

    def step(action: Action) -> PlanStep:
        found = steps.get(action)
        if found is None:
            found = steps[action] = step_of(action)
        return found

    def is_valid(actions: Sequence[Action]) -> bool:
        return bool(simulate(domain, problem, [step(a) for a in actions], world=world, explain=False).valid)

    return is_valid


def reference_prefix_length(states: Sequence[State], reference_states: Sequence[State]) -> int:
    """pi_corr (Armony et al. 2025): find the latest reference state (s_k, largest k) that the plan
    reaches at all; the prefix ends the first time the plan reaches it (0 when only the initial state
    matches)."""
    first_reached: dict[State, int] = {}
    for index, state in enumerate(states):
        first_reached.setdefault(state, index)
    for state in reversed(reference_states):
        if state in first_reached:
            return first_reached[state]
    return 0


def compare(
    domain: Domain | None,
    problem: Problem | None,
    plan: Sequence[Action],
    reference: Sequence[Action],
    valid: bool | None,
    version: SimilarityVersion = "v1",
    world: World | None = None,
) -> Evaluation:
    """All plan metrics of `plan` against `reference`; validity from the simulator when it can tell
    (``world``, when given, is the one already built for this domain and problem)."""
    is_valid: Validity | None = None
    if domain is not None and problem is not None:
        is_valid = validity_checker(domain, problem, world)
    known_valid = bool(valid) if valid is not None else (tuple(plan) == tuple(reference))
    return evaluate(plan, reference, valid=known_valid, is_valid=is_valid, version=version)
