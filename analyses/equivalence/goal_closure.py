"""FS by brute force: the atoms true in every reachable goal state, found by exploring the states.

This is the definition itself (docs/metrics.md), so it is right for any domain the semantics supports —
but the state space grows exponentially, so it runs under a budget of states and seconds and says
"unknown" (never a guess) when the budget runs out.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from plansight.analyses.equivalence.scene_graph import Fact
from plansight.analyses.model.pddl import Domain, Formula, Problem
from plansight.analyses.semantics.fluents import UndefinedValue
from plansight.analyses.semantics.state import State
from plansight.analyses.semantics.world import ConflictingUpdates, World, numeric_beyond_costs

CANCEL_CHECK_EVERY = 64
"""Expanded states between two calls of the caller's ``cancelled`` hook (a state costs ~100 µs)."""


class Interrupted(Exception):
    """The caller's ``cancelled`` hook said stop (the editor: a newer edit replaces this text).

    Nothing is concluded, so it is raised rather than returned: no memo can keep it as an answer.
    """


@dataclass(frozen=True, slots=True)
class Budget:
    """Limits on the goal-closure search, so grading a class of submissions cannot hang on one large problem.
    """

    states: int = 200_000
    seconds: float = 10.0
    planner_seconds: float = 10.0
    """Fast Downward's time limit for the ``solvable`` field when the search runs out (0: never)."""


@dataclass(frozen=True, slots=True)
class Closure:
    """``reachable`` is None and ``closure`` None when the budget ran out (``reason`` says so)."""

    reachable: bool | None
    closure: frozenset[Fact] | None
    reason: str = ""
    states: int = 0


def goal_closure(domain: Domain, problem: Problem, budget: Budget,
                 cancelled: Callable[[], bool] | None = None) -> Closure:
    """Raises :class:`Interrupted` as soon as ``cancelled()`` is true (asked every few states)."""
    world = World.build(domain, problem)
    if world.unsupported:
        return Closure(None, None, "the state search does not support " + "; ".join(world.unsupported))
    if world.temporal:  # it explores instantaneous actions only
        reason = f"the state search does not support temporal tasks: {world.temporal_reason}"
        return Closure(None, None, reason)
    costs_only = not numeric_beyond_costs(domain, problem)
    start = _searched(world.initial_state(), costs_only)
    seen = {start}
    frontier = deque([start])
    closure: frozenset[Fact] | None = None
    deadline = time.monotonic() + budget.seconds
    goal = problem.goal
    expanded = 0
    while frontier:
        expanded += 1
        if cancelled is not None and expanded % CANCEL_CHECK_EVERY == 0 and cancelled():
            raise Interrupted(f"interrupted after {len(seen):,} states")
        state = frontier.popleft()
        if _holds(world, goal, state):
            closure = state.atoms if closure is None else closure & state.atoms
        for action in world.applicable(state):
            try:
                after = _searched(world.apply(action.name, action.args, state), costs_only)
            except (UndefinedValue, ConflictingUpdates):
                continue  # the step reads an undefined value or assigns one twice: it cannot run there
            if after not in seen:
                if len(seen) >= budget.states:
                    return Closure(
                        None,
                        None,
                        f"more than {budget.states:,} reachable states (the search "
                        "budget) and no rule for this domain",
                        len(seen),
                    )
                seen.add(after)
                frontier.append(after)
        if time.monotonic() > deadline:
            return Closure(
                None,
                None,
                f"the state search took more than {budget.seconds:g} s (the time "
                f"budget) after {len(seen):,} states",
                len(seen),
            )
    if closure is None:
        return Closure(
            False,
            None,
            f"no reachable state satisfies the goal (all {len(seen):,} reachable states explored)",
            len(seen),
        )
    return Closure(True, closure, "", len(seen))


def _searched(state: State, costs_only: bool) -> State:
    """The state as the search stores it: without its values when they are only action costs, which
    no condition reads (so states that differ only in their cost are one state)."""
    return State(state.atoms) if costs_only and state.values else state


def _holds(world: World, goal: Formula | None, state: State) -> bool:
    try:
        return world.holds(goal, state)
    except UndefinedValue:
        return False  # the goal reads an undefined value: VAL fails such a plan at the goal
