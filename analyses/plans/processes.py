"""PDDL+ processes and events with linear dynamics, as the temporal simulator advances time.

A process (Fox and Long, "Modelling Mixed Discrete-Continuous Domains for Planning", 2006) runs whenever
its precondition holds and changes fluents at constant rates (``(increase (level) (* #t 2))``); an event
fires the instant its precondition becomes true. No plan names either: between two happenings of the
plan, time advances in pieces, each ending where a comparison in some process's or event's precondition
crosses its bound (the root of a linear function: the dynamics are linear, so a rate never reads a
flowing fluent), and at each piece's end the events that now hold fire and the processes that hold run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from plansight.analyses.model.pddl import Comparison, Formula, NumericEffect, conjuncts, walk
from plansight.analyses.semantics.fluents import UndefinedValue, evaluate, ground_term, term_text
from plansight.analyses.semantics.state import State
from plansight.analyses.semantics.world import Binding, CompiledAction, Update, World, updated_values

Flow = Callable[[State, float], State]
"""How values move over an elapsed time from a state (running processes and durative actions' continuous
effects together)."""

EVENT_CASCADE_LIMIT = 1_000
"""Events fired at one instant before the simulation gives up: an event whose effect does not make its
own precondition false would fire forever (VAL stops there too)."""


@dataclass(frozen=True, slots=True)
class Grounded:
    """One process or event with its parameters bound."""

    compiled: CompiledAction
    binding: Binding
    text: str

    @property
    def precondition(self) -> Formula | None:
        """When it runs (a process) or fires (an event)."""
        return self.compiled.action.precondition


class Dynamics:
    """The grounded processes and events of a world, and the time arithmetic of their linear change."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.processes: list[Grounded] = []
        self.events: list[Grounded] = []
        for compiled in world.processes_and_events:
            for binding in world.bindings(compiled):
                args = " ".join(binding[p] for p in compiled.parameters)
                grounded = Grounded(compiled, binding, f"({compiled.action.name.display}{' ' if args else ''}"
                                                       f"{args})")
                (self.processes if compiled.action.kind == "process" else self.events).append(grounded)
        self._comparisons = [(node, g.binding) for g in (*self.processes, *self.events)
                             for node in walk(g.precondition) if isinstance(node, Comparison)]

    def __bool__(self) -> bool:
        return bool(self.processes or self.events)

    def active(self, state: State) -> list[Grounded]:
        """The processes that run in ``state``."""
        return [p for p in self.processes if self.world.holds(p.precondition, state, p.binding)]

    def process_updates(self, active: list[Grounded], state: State, elapsed: float) -> list[Update]:
        """What the running processes change over ``elapsed`` time units, rates read in ``state``."""
        updates: list[Update] = []
        for process in active:
            for effect in conjuncts(process.compiled.action.effect):
                if isinstance(effect, NumericEffect):
                    target = ground_term(effect.target, process.binding)
                    if state.value(target) is None:
                        raise UndefinedValue(f"{term_text(target)} has no value", target)
                    amount = evaluate(effect.value, process.binding, state, {"#t": elapsed})
                    updates.append((target, effect.op, amount))
        return updates

    def next_crossing(self, state: State, advance: Flow, horizon: float) -> float | None:
        """The earliest time in (0, ``horizon``) after ``state`` at which a comparison of a process's or
        an event's precondition reaches its bound, None when none does."""
        later = advance(state, 1.0)
        best: float | None = None
        for comparison, binding in self._comparisons:
            try:
                now = _gap(comparison, binding, state)
                slope = _gap(comparison, binding, later) - now
            except UndefinedValue:
                continue
            if slope == 0:
                continue
            at = -now / slope
            if 1e-12 < at < horizon and (best is None or at < best):
                best = at
        return best

    def firing(self, state: State) -> Iterator[Grounded]:
        """The events whose precondition holds in ``state``, in declaration order."""
        for event in self.events:
            if self.world.holds(event.precondition, state, event.binding):
                yield event


def _gap(comparison: Comparison, binding: Binding, state: State) -> float:
    """left - right of a comparison in ``state``: its bound is reached where this is 0."""
    return evaluate(comparison.left, binding, state) - evaluate(comparison.right, binding, state)


def apply_updates(state: State, updates: list[Update]) -> State:
    """``state`` with the numeric updates applied together."""
    return State(state.atoms, updated_values(state.values, updates)) if updates else state
