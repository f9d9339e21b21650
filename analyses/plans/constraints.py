"""PDDL3 over a simulated plan: trajectory constraints and preferences' ``is-violated`` counts
(docs/beyond-classical-pddl3.md).

A plan satisfies ``:constraints`` when its state trajectory s0 … sn does (Gerevini and Long 2005,
"Plan Constraints and Preferences in PDDL3"). A classical plan has no clock, so the states get the
times VAL gives them: s0 at 0 and the state after step k at k, which is what ``within 2`` and
``hold-during 1 3`` are measured against. A violated hard constraint makes the plan invalid; a
violated preference never does, it only counts in ``is-violated``.

Each verdict also says *where* it broke, the way VAL finds out: ``always`` at the first state where
its condition is false, a deadline (``within``, ``always-within``) at the first state after the
deadline, ``sometime`` and ``at end`` only at the end. The differential tests compare that state
with VAL's.

Formulas are evaluated by :meth:`World.holds` (numeric comparisons included) and the metric that reads
the counts by the simulator's ``metric_value``: this module only walks the trajectory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple
from weakref import WeakKeyDictionary

from plansight.analyses.diagnostics.spans import NO_SPAN, Span
from plansight.analyses.model.pddl import And, Formula, Modal, Preference, Quantified, TimeSpecified, walk
from plansight.analyses.semantics.state import State
from plansight.analyses.semantics.world import TRAJECTORY_MODALS, World, ground_text

Binding = Mapping[str, str]


@dataclass(frozen=True, slots=True)
class ConstraintVerdict:
    """One ground trajectory constraint (one instance of a ``forall``) and whether the plan keeps it.

    ``holds`` is None when the plan stopped before its end and the constraint could only be decided
    there. ``state`` is where a violation became certain: 0 is the initial state, k the state after
    step k; ``at_end`` says it was only found at the end of the plan."""

    text: str
    operator: str
    holds: bool | None
    state: int | None
    at_end: bool
    message: str
    source: str
    """``domain`` or ``problem``: whose ``:constraints`` it comes from."""
    preference: str | None = None
    """The preference's name when the constraint is soft."""
    span: Span = NO_SPAN
    time: float | None = None
    """The time of ``state``: k in a plan without times, the step's time in a plan with them."""

    @property
    def broken(self) -> bool:
        """A hard constraint the plan violates: the plan is invalid."""
        return self.holds is False and self.preference is None


@dataclass(frozen=True, slots=True)
class PreferenceCount:
    """How often a named preference was violated: once per violated instance of a goal or constraint
    preference, once per executed step whose precondition preference was false (as VAL counts)."""

    name: str
    violations: int
    checks: int
    """How many times it was evaluated (instances of a ``forall``, executions of a step)."""
    where: tuple[str, ...]
    """``goal``, ``constraints``, ``precondition of move``: where the preference is stated."""


@dataclass(frozen=True, slots=True)
class PreferenceViolation:
    """One violation of a goal or precondition preference, where the editor can show it: ``step`` is the
    0-based step that executed with its precondition preference false, None for a goal preference (false
    in the final state). Constraint preferences are :class:`ConstraintVerdict` s with a ``preference``."""

    name: str
    text: str
    step: int | None
    message: str


@dataclass(frozen=True, slots=True)
class TrajectoryReport:
    """The PDDL3 part of a plan's verdict: each constraint's verdict and each preference's violation
    count (the metric that reads them is :attr:`Simulation.metric`)."""

    constraints: tuple[ConstraintVerdict, ...]
    preferences: tuple[PreferenceCount, ...]
    violated: tuple[PreferenceViolation, ...] = ()
    """Each violation of a goal or precondition preference, in plan order."""

    @property
    def broken(self) -> tuple[ConstraintVerdict, ...]:
        """The hard constraints the plan violates, earliest first."""
        found = [c for c in self.constraints if c.broken]
        return tuple(sorted(found, key=lambda c: (c.at_end, c.state if c.state is not None else 0)))

    @property
    def violations(self) -> dict[str, int]:
        """``is-violated`` of every preference, by name."""
        return {p.name: p.violations for p in self.preferences}


_STATES_PDDL3: WeakKeyDictionary[World, bool] = WeakKeyDictionary()
"""Per world, once: a batch of 1,000 plans over one world must not walk every precondition 1,000 times."""


def has_pddl3(world: World) -> bool:
    """Whether the pair states anything this module decides: constraints or preferences anywhere."""
    found = _STATES_PDDL3.get(world)
    if found is None:
        found = _STATES_PDDL3[world] = _states_pddl3(world)
    return found


def _states_pddl3(world: World) -> bool:
    domain, problem = world.domain, world.problem
    if domain.constraints is not None or problem.constraints is not None:
        return True
    formulas = [problem.goal, *(a.precondition for a in domain.actions)]
    return any(isinstance(node, Preference) for formula in formulas for node in walk(formula))


def check_trajectory(world: World, states: Sequence[State], steps: Sequence[tuple[str, Binding]],
                     complete: bool, times: Sequence[float] | None = None) -> TrajectoryReport:
    """Evaluate the constraints and preferences of ``world`` over ``states`` (s0 … sk) reached by
    ``steps`` (each executed step's action key and binding; step i runs in ``states[i]``).

    ``complete`` says the plan executed to its end: then ``states[-1]`` is the final state and goal
    preferences are counted; otherwise only what broke on the way is decided. ``times`` are the states'
    times (s0 at 0): the steps' own times in a plan that gives them, as VAL reads such a plan; by
    default step k happens at time k, VAL's times for a plan without them."""
    run = _Run(states, list(times) if times is not None else [float(k) for k in range(len(states))],
               times is not None, complete)
    tally = _Tally()
    verdicts: list[ConstraintVerdict] = []
    for source, formula in (("domain", world.domain.constraints), ("problem", world.problem.constraints)):
        for node, binding, name in _instances(world, formula, {}, None):
            verdict = _judge(world, node, binding, run, source, name)
            verdicts.append(verdict)
            if name is not None:
                tally.count(name, None if verdict.holds is None else not verdict.holds, "constraints")
    for index, (action, binding) in enumerate(steps):
        _precondition_preferences(world, index, action, binding, states[index], tally)
    for node, binding, name in _instances(world, world.problem.goal, {}, None, preferences_only=True):
        assert name is not None
        false = not world.holds(node, states[-1], binding) if complete else None
        tally.count(name, false, "goal")
        if false:
            text = _flat(node, binding)
            tally.violated.append(PreferenceViolation(name, text, None, (
                f"The goal preference {name} is violated: {text} is false at the end of the plan "
                f"(counted by (is-violated {name}))")))
    for name in _declared_preferences(world):
        tally.places.setdefault(name, {})
    preferences = tuple(PreferenceCount(name, *tally.of(name), tuple(places))
                        for name, places in sorted(tally.places.items()))
    return TrajectoryReport(tuple(verdicts), preferences, tuple(tally.violated))


class _Tally:
    """Preference counts as they are found: name -> [violations, checks], where each is stated, and
    each goal or precondition violation."""

    def __init__(self) -> None:
        self.counts: dict[str, list[int]] = {}
        self.places: dict[str, dict[str, None]] = {}
        self.violated: list[PreferenceViolation] = []

    def of(self, name: str) -> tuple[int, int]:
        """(violations, checks) of preference ``name`` so far."""
        violations, checks = self.counts.get(name, (0, 0))
        return violations, checks

    def count(self, name: str, violated: bool | None, where: str) -> None:
        """One evaluation of preference ``name`` stated ``where``; None when it could not be decided."""
        self.places.setdefault(name, {})[where] = None
        if violated is not None:
            tally = self.counts.setdefault(name, [0, 0])
            tally[0] += violated
            tally[1] += 1


def _precondition_preferences(world: World, index: int, action: str, binding: Binding, state: State,
                              tally: _Tally) -> None:
    """Count the precondition preferences of step ``index`` (one check per execution, as VAL counts)."""
    compiled = world.action(action)
    if compiled is None or compiled.action.precondition is None:
        return
    shown = compiled.action.name.display
    for node, inner, name in _instances(world, compiled.action.precondition, binding, None,
                                        preferences_only=True):
        assert name is not None
        false = not world.holds(node, state, inner)
        tally.count(name, false, f"precondition of {shown}")
        if false:
            text = _flat(node, inner)
            tally.violated.append(PreferenceViolation(name, text, index, (
                f"The preference {name} of {shown} is violated: {text} is false when step {index + 1} "
                f"executes (counted by (is-violated {name}))")))


def _declared_preferences(world: World) -> Iterator[str]:
    """Every preference name in the domain and problem, so that ``is-violated`` of a preference a short
    plan never evaluated (a precondition preference of an action it did not use) is 0, not undefined."""
    formulas = [world.problem.goal, world.problem.constraints, world.domain.constraints,
                *(a.precondition for a in world.domain.actions)]
    for formula in formulas:
        for node in walk(formula):
            if isinstance(node, Preference):
                yield node.name.key if node.name is not None else "anonymous"


def _instances(world: World, formula: Formula | None, binding: Binding, name: str | None,
               preferences_only: bool = False) -> Iterator[tuple[Formula, Binding, str | None]]:
    """The ground constraints (or, with ``preferences_only``, the preferences) of a conjunction:
    ``and`` is split, ``forall`` expanded over its objects, ``preference`` names what it wraps."""
    if formula is None:
        return
    if isinstance(formula, And):
        for part in formula.args:
            yield from _instances(world, part, binding, name, preferences_only)
    elif isinstance(formula, Quantified) and formula.quantifier == "forall":
        if preferences_only and not any(isinstance(n, Preference) for n in walk(formula.body)):
            return
        for inner in world.instances(formula.variables, binding):
            yield from _instances(world, formula.body, inner, name, preferences_only)
    elif isinstance(formula, Preference):
        yield formula.body, binding, formula.name.key if formula.name is not None else "anonymous"
    elif not preferences_only:
        yield formula, binding, name


class _Run(NamedTuple):
    states: Sequence[State]
    times: Sequence[float]
    timed: bool
    complete: bool


TIMED_OPERATORS = frozenset({"within", "always-within", "hold-during", "hold-after"})


def _judge(world: World, node: Formula, binding: Binding, run: _Run, source: str,
           name: str | None) -> ConstraintVerdict:
    states, times, complete = run.states, run.times, run.complete
    text = _flat(node, binding)

    def truth(formula: Formula) -> list[bool]:
        return [world.holds(formula, state, binding) for state in states]

    operator = node.op if isinstance(node, Modal) else "at end"
    if isinstance(node, TimeSpecified) and node.when == "end":
        decided = _at_end(truth(node.body), complete, _flat(node.body, binding))
    elif isinstance(node, Modal) and node.op in TRAJECTORY_MODALS:
        numbers = [n.value for n in node.numbers]
        texts = [_flat(arg, binding) for arg in node.args]
        truths = [truth(arg) for arg in node.args]
        decided = _OPERATORS[node.op](Track(numbers, truths, times, complete, texts))
    else:  # unsupported_constructs lists it, so a simulation never gets here
        raise ValueError(f"not a trajectory constraint: {text}")
    holds, state, at_end, why = decided
    kind = f"preference {name}" if name is not None else "constraint"
    if holds is None:
        message = f"The {kind} {text} is not decided: the plan stops before its end."
    elif holds:
        message = f"The {kind} {text} holds."
    else:
        where = ("at the end of the plan" if at_end else
                 "in the initial state" if state == 0 else f"after step {state}")
        if run.timed and state is not None and not at_end:
            where += f" (time {times[state]:g})"
        elif not run.timed and operator in TIMED_OPERATORS:
            why += " (a plan without times has step k at time k)"
        message = f"The {kind} {text} is violated {where}: {why}."
    time = times[state] if state is not None else None
    return ConstraintVerdict(text, operator, holds, state, at_end, message, source, name, node.span, time)


Decided = tuple[bool | None, int | None, bool, str]


class Track(NamedTuple):
    """What an operator judges: its numbers (deadlines, windows), the truth of each of its conditions in
    each state, the states' times, whether the plan reached its end, and the conditions as text."""

    numbers: list[float]
    truths: list[list[bool]]
    times: Sequence[float]
    complete: bool
    texts: list[str]
"""(holds, state where it broke, found only at the end, why)."""


def _ok() -> Decided:
    return True, None, False, ""


def _end(truths: Sequence[bool], complete: bool, why: str) -> Decided:
    if not complete:
        return None, None, False, ""
    return False, len(truths) - 1, True, why


def _first(truths: Sequence[bool], value: bool, start: int = 0) -> int | None:
    for index in range(start, len(truths)):
        if truths[index] == value:
            return index
    return None


def _after_deadline(times: Sequence[float], deadline: float) -> int | None:
    """The first state later than ``deadline``: where VAL finds a deadline missed."""
    for index, time in enumerate(times):
        if time > deadline:
            return index
    return None


def _flat(formula: Formula, binding: Binding) -> str:
    return " ".join(ground_text(formula, binding).split())


def _at_end(truths: list[bool], complete: bool, text: str) -> Decided:
    if not complete:
        return None, None, False, ""
    return _ok() if truths[-1] else _end(truths, complete, f"{text} is false in the final state")


def _always(track: Track) -> Decided:
    _numbers, truths, _times, complete, texts = track
    broken = _first(truths[0], False)
    if broken is None:
        return _ok() if complete else (None, None, False, "")
    return False, broken, False, f"{texts[0]} is false there"


def _sometime(track: Track) -> Decided:
    _numbers, truths, _times, complete, texts = track
    if _first(truths[0], True) is not None:
        return _ok()
    return _end(truths[0], complete, f"{texts[0]} holds in no state of the plan")


def _within(track: Track) -> Decided:
    numbers, truths, times, complete, texts = track
    deadline = numbers[0]
    reached = _first(truths[0], True)
    if reached is not None and times[reached] <= deadline:
        return _ok()
    why = f"{texts[0]} holds in no state up to time {deadline:g}"
    missed = _after_deadline(times, deadline)
    if missed is not None:
        return False, missed, False, why
    return _end(truths[0], complete, why)


def _at_most_once(track: Track) -> Decided:
    _numbers, truths, _times, complete, texts = track
    values = truths[0]
    for index in range(1, len(values)):
        if values[index] and not values[index - 1] and any(values[:index]):
            return False, index, False, f"{texts[0]} becomes true a second time there"
    return _ok() if complete else (None, None, False, "")


def _sometime_after(track: Track) -> Decided:
    _numbers, truths, _times, complete, texts = track
    trigger, response = truths
    last_trigger = max((i for i, v in enumerate(trigger) if v), default=None)
    if last_trigger is None or _first(response, True, last_trigger) is not None:
        return _ok()
    return _end(trigger, complete, f"{texts[0]} holds in state {last_trigger} (0 is the initial state) and "
                f"{texts[1]} holds in no state from there on")


def _sometime_before(track: Track) -> Decided:
    _numbers, truths, _times, complete, texts = track
    trigger, earlier = truths
    seen = False
    for index, value in enumerate(trigger):
        if value and not seen:
            return False, index, False, f"{texts[0]} holds there and {texts[1]} held in no earlier state"
        seen = seen or earlier[index]
    return _ok() if complete else (None, None, False, "")


def _always_within(track: Track) -> Decided:
    numbers, truths, times, complete, texts = track
    span = numbers[0]
    trigger, response = truths
    following: list[int | None] = [None] * (len(response) + 1)  # the first state >= i where it holds
    for index in range(len(response) - 1, -1, -1):
        following[index] = index if response[index] else following[index + 1]
    earliest: int | None = None
    pending_at_end: int | None = None
    for index, value in enumerate(trigger):
        if not value:
            continue
        deadline = times[index] + span
        met = following[index]
        if met is not None and times[met] <= deadline:
            continue
        missed = _after_deadline(times, deadline)
        if missed is None:
            pending_at_end = index if pending_at_end is None else pending_at_end
        elif earliest is None or missed < earliest:
            earliest = missed
    if earliest is not None:
        return False, earliest, False, f"{texts[1]} did not follow within {span:g} of {texts[0]}"
    if pending_at_end is not None:
        return _end(trigger, complete, f"{texts[0]} holds in state {pending_at_end} and {texts[1]} does not "
                    f"follow within {span:g} before the plan ends")
    return _ok() if complete else (None, None, False, "")


def _hold_during(track: Track) -> Decided:
    numbers, truths, times, complete, texts = track
    start, stop = numbers
    for index, time in enumerate(times):
        if start <= time < stop and not truths[0][index]:
            return False, index, False, f"{texts[0]} is false there, inside [{start:g}, {stop:g})"
    return _ok() if complete else (None, None, False, "")


def _hold_after(track: Track) -> Decided:
    numbers, truths, times, complete, texts = track
    after = numbers[0]
    for index, time in enumerate(times):
        if time > after and not truths[0][index]:
            return False, index, False, f"{texts[0]} is false there, after time {after:g}"
    return _ok() if complete else (None, None, False, "")


_OPERATORS: dict[str, Callable[[Track], Decided]] = {
    "always": _always,
    "sometime": _sometime,
    "within": _within,
    "at-most-once": _at_most_once,
    "sometime-after": _sometime_after,
    "sometime-before": _sometime_before,
    "always-within": _always_within,
    "hold-during": _hold_during,
    "hold-after": _hold_after,
}
