"""The exact answers of the reasoning tasks, computed by the simulator's semantics (never a second one).

Action applicability, state comprehension, progression and state tracking (Murthy, Mink and Sanneman
2025) all ask about one state: the problem's initial state after an optional sequence of actions. The
state is reached with the plan simulator (:func:`~plansight.analyses.plans.comparison.simulate_actions`),
and every question is answered by :class:`~plansight.analyses.semantics.world.World`, which grounds
quantifiers, conditional effects, negative preconditions, equality, typing, constants, numeric fluents
and derived predicates. A domain or problem with constructs the world does not simulate, or with durative
actions (no single state after an action), is refused with the reason: a wrong set would be worse than
none.

Progression follows the paper's definitions: a positive (add) effect is an atom that does *not* hold
before the action and holds after it, a negative (delete) effect one that holds before and not after.
So an add effect of the action's definition that already holds is not counted, and neither is an atom
both deleted and added (PDDL applies deletes first, so it still holds). The effects as the definition
lists them are reported too (``declared_add`` / ``declared_delete``), for a user who wants the other
reading.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.plans.comparison import simulate_actions
from plansight.analyses.semantics.fluents import UndefinedValue
from plansight.analyses.semantics.state import GroundAtom, State
from plansight.analyses.semantics.world import ConflictingUpdates, World, format_atom

TruthTask = Literal["applicable", "state", "progression", "tracking"]
TRUTH_TASKS: tuple[TruthTask, ...] = ("applicable", "state", "progression", "tracking")


class TruthError(Exception):
    """The question has no exact answer (unsupported constructs, a step that cannot run); the message
    says why in a user's words."""


@dataclass(frozen=True, slots=True)
class Truth:
    """The exact answer of one task. ``items`` are ground actions (applicable) or atoms (state,
    tracking, and the add effects of progression); ``delete`` holds progression's delete effects."""

    task: TruthTask
    after: tuple[GroundAtom, ...]
    """The actions executed from the initial state to reach the state asked about."""
    items: tuple[GroundAtom, ...]
    delete: tuple[GroundAtom, ...] = ()
    action: GroundAtom | None = None
    declared_add: tuple[GroundAtom, ...] = field(default=())
    declared_delete: tuple[GroundAtom, ...] = field(default=())

    @property
    def kind(self) -> Literal["actions", "atoms"]:
        """What the items are: ground actions for applicability, atoms for every other task."""
        return "actions" if self.task == "applicable" else "atoms"

    def to_json(self) -> dict[str, Any]:
        """The object ``plansight truth --format json`` prints (docs/reasoning.md)."""
        report: dict[str, Any] = {"task": self.task, "after": [format_atom(a) for a in self.after]}
        if self.task == "progression":
            assert self.action is not None
            report.update(
                action=format_atom(self.action),
                add=[format_atom(a) for a in self.items],
                delete=[format_atom(a) for a in self.delete],
                declared_add=[format_atom(a) for a in self.declared_add],
                declared_delete=[format_atom(a) for a in self.declared_delete],
            )
        else:
            report[self.kind] = [format_atom(a) for a in self.items]
        return report


def build_world(domain: Domain, problem: Problem) -> World:
    """The world of the pair, or a :class:`TruthError` naming what the simulator cannot handle."""
    world = World.build(domain, problem)
    if world.unsupported:
        raise TruthError("no exact answer: " + "; ".join(world.unsupported)
                         + ", which the simulator does not handle (docs/reasoning.md, Supported PDDL)")
    if world.temporal:  # the truth tasks ask about instantaneous actions from a state
        raise TruthError(f"no exact answer: {world.temporal_reason}: the truth tasks are defined for "
                         "instantaneous actions (docs/beyond-classical-temporal.md)")
    return world


def reach(world: World, actions: Sequence[GroundAtom]) -> State:
    """The state after executing ``actions`` from the initial state; a :class:`TruthError` naming the
    first step that cannot run, since the state after it is not defined."""
    simulation = simulate_actions(world.domain, world.problem, actions, world)
    if simulation.failure is not None:
        raise TruthError(simulation.failure.message)
    return simulation.stop_state


def applicable_in(world: World, state: State) -> tuple[GroundAtom, ...]:
    """Every ground action applicable in ``state``, sorted."""
    return tuple(sorted({(action.name, *action.args) for action in world.applicable(state)}))


def progression(world: World, state: State, action: GroundAtom) -> tuple[
        tuple[GroundAtom, ...], tuple[GroundAtom, ...], tuple[GroundAtom, ...], tuple[GroundAtom, ...]]:
    """(add, delete, declared add, declared delete) of ``action`` in ``state``, each sorted: the first
    two by the paper's definition (what changes), the last two as the definition lists them."""
    step = world.ground(action[0], action[1:])
    if step.problem is not None:
        raise TruthError(f"{format_atom(action)} is not an action of this task ({_CALL_WORDS[step.problem]})")
    view = world.view(state)
    try:
        applicable = step.applicable(view)
    except UndefinedValue as undefined:
        raise TruthError(f"{format_atom(action)} reads a value that is not defined ({undefined.text}), "
                         "so it has no effects") from undefined
    if not applicable:
        unmet = world.unmet(step.compiled.action.precondition if step.compiled else None, state, step.binding)
        why = "; ".join(u.text for u in unmet) or "its precondition is false"
        raise TruthError(f"{format_atom(action)} is not applicable in this state ({why} does not hold), "
                         "so it has no effects")
    try:
        adds, deletes = step.changes(view)
        change = state.diff(world.apply(action[0], action[1:], state))
    except (UndefinedValue, ConflictingUpdates) as error:
        raise TruthError(f"{format_atom(action)} cannot be applied here: {error}") from error
    return (tuple(sorted(change.added)), tuple(sorted(change.deleted)),
            tuple(sorted(set(adds))), tuple(sorted(set(deletes))))


def ground_truth(world: World, task: TruthTask, after: Iterable[GroundAtom] = (),
                 action: GroundAtom | None = None) -> Truth:
    """The exact answer of ``task`` in the state reached by ``after`` (for progression, the effects of
    ``action`` there; for tracking, ``after`` must name at least one action)."""
    sequence = tuple(tuple(a) for a in after)
    state = reach(world, sequence)
    if task == "applicable":
        return Truth(task, sequence, applicable_in(world, state))
    if task == "state":
        return Truth(task, sequence, tuple(sorted(state.atoms)))
    if task == "tracking":
        if not sequence:
            raise TruthError("state tracking needs the sequence of actions to track (none was given)")
        return Truth(task, sequence, tuple(sorted(state.atoms)))
    if action is None:
        raise TruthError("progression needs the action whose effects are asked for")
    add, delete, declared_add, declared_delete = progression(world, state, action)
    return Truth(task, sequence, add, delete, action, declared_add, declared_delete)


_CALL_WORDS = {
    "unknown_action": "unknown action",
    "arity": "wrong number of arguments",
    "unknown_object": "unknown object",
    "type": "an argument of the wrong type",
}
