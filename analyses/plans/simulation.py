"""What simulating a plan gives (docs/metrics.md): the trace of executed steps, the failure with its
category and explanation, the goals reached and the metric, shared by the sequential simulator
(analyses/plans/simulate.py) and the temporal one (analyses/plans/temporal.py), which both build them.

Failure categories follow the Embodied Agent Interface (Li et al. 2024, Appendix D.2);
analyses/plans/simulate.py says when each applies.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.pddl import Comparison, FunctionTerm, PlanStep, numeric_terms, walk
from plansight.analyses.model.printer import print_formula
from plansight.analyses.plans.constraints import ConstraintVerdict, TrajectoryReport
from plansight.analyses.plans.slot_init import slot_init
from plansight.analyses.semantics.fluents import UndefinedValue, evaluate, ground_term
from plansight.analyses.semantics.state import EMPTY, GroundTerm, State
from plansight.analyses.semantics.world import GroundAtom, Unmet, World, format_atom

CHECKPOINT_EVERY = 256

STATIC_CATEGORIES = ("parse", "unknown_action", "arity", "unknown_object", "type")
RUNTIME_CATEGORIES = ("additional_step", "missing_step", "wrong_order", "undefined_value",
                      "conflicting_effects", "duration", "invariant", "mutex")
"""The temporal simulator (docs/beyond-classical-temporal.md) adds ``duration`` (a duration constraint is
false), ``invariant`` (an ``over all`` condition broke while its action ran) and ``mutex`` (two interfering
snap actions in one happening)."""
CATEGORY_WORDS = {
    "parse": "not an action",
    "unknown_action": "unknown action",
    "arity": "wrong number of arguments",
    "unknown_object": "unknown object",
    "type": "argument of the wrong type",
    "additional_step": "additional step",
    "missing_step": "missing step",
    "wrong_order": "wrong order",
    "undefined_value": "reads an undefined value",
    "conflicting_effects": "conflicting numeric effects",
    "duration": "duration constraint violated",
    "invariant": "over all condition broken",
    "mutex": "interfering actions at the same time",
}

ValueChange = tuple[GroundTerm, float | None, float]
"""A fluent a step changed: the term, its value before (None when undefined) and after."""


def number_text(value: float | None) -> str:
    """A fluent value as VAL prints it: ``4``, ``2.5``, ``inf``; ``undefined`` for no value."""
    if value is None:
        return "undefined"
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.12g}"


@dataclass(frozen=True, slots=True)
class Unparsed:
    """A plan line that is not an action at all; it counts as a step, in its place."""

    text: str
    span: Span


@slot_init  # one is made per executed step: its fields set through their slots
@dataclass(frozen=True, slots=True)
class TraceStep:
    """One executed step and what it changed (atoms that became true / false, fluent values); with
    ``:derived`` rules, also the derived atoms that became true / false as a consequence (kept apart: no
    effect changes them, their rules do)."""

    index: int
    step: PlanStep
    added: tuple[GroundAtom, ...]
    deleted: tuple[GroundAtom, ...]
    changed: tuple[ValueChange, ...] = ()
    """The fluents whose value the step changed, in the order its effects name them."""
    derived_added: tuple[GroundAtom, ...] = ()
    derived_deleted: tuple[GroundAtom, ...] = ()
    label: str | None = None
    """For a happening of a temporal plan, what happened (``(light a) start, (cut) end``): one happening
    may hold several snap actions, so the plan step alone does not say it."""

    @property
    def action(self) -> str:
        """The step as PDDL text, as users wrote it (a temporal plan's happening: its snap actions)."""
        return self.label if self.label is not None else step_text(self.step)

    @property
    def span(self) -> Span:
        """Where the step is in the plan file, for underlining it."""
        return self.step.span


@slot_init  # two a durative step, for every plan of a batch
@dataclass(frozen=True, slots=True)
class Snap:
    """One instant of a temporal plan: a durative action's ``start`` or ``end``, an instantaneous action
    (``at``), a timed initial literal (``til``) or a PDDL+ ``event`` (those two have no ``step``)."""

    kind: str
    step: int | None
    text: str
    time: float
    span: Span

    @property
    def label(self) -> str:
        """``(light a) start``, ``(at 6 (not (power)))``."""
        return self.text if self.kind in ("at", "til", "event") else f"{self.text} {self.kind}"


@dataclass(frozen=True, slots=True)
class Happening:
    """Snap actions that happen together: VAL's tolerance ε puts snap actions no more than ε/10 after the
    first of them into one happening, executed at once (their conditions read the state before it)."""

    index: int
    time: float
    snaps: tuple[Snap, ...]

    @property
    def label(self) -> str:
        """Its snap actions on one line."""
        return ", ".join(snap.label for snap in self.snaps)


@dataclass(frozen=True, slots=True)
class SnapEffect:
    """What one executed snap action changed (its own share of its happening's changes), so the editor
    can show a temporal plan's changes on the line of the step that made them."""

    happening: int
    snap: Snap
    added: tuple[GroundAtom, ...]
    deleted: tuple[GroundAtom, ...]
    changed: tuple[ValueChange, ...] = ()


@dataclass(frozen=True, slots=True)
class Missing:
    """An unsatisfied part of the failing step's precondition, and the step (0-based) after which
    it stopped holding, when it ever held."""

    text: str
    stopped_after: int | None
    held_before: bool
    values: str = ""
    """For a numeric condition, the values it reads and the steps that set them (empty otherwise)."""
    because: str | None = None
    """For a derived atom, why no rule derives it (analyses/semantics/derived.py's explanation)."""


@dataclass(frozen=True, slots=True)
class Failure:
    """Why the plan stops at step ``index``: the category, the unsatisfied conditions and a message for users.
    """

    index: int
    action: str
    category: str
    unsatisfied: tuple[Missing, ...]
    message: str
    span: Span


@dataclass(frozen=True, slots=True)
class Goals:
    """Which goal atoms hold at the end of the plan."""

    satisfied: tuple[str, ...]
    unsatisfied: tuple[str, ...]
    why: tuple[str, ...] = ()
    """For each unsatisfied goal that is a derived atom, why no rule derives it: ``(all-delivered) is
    false: no rule derives it — (delivered p2) is false``."""

    @property
    def fraction(self) -> float:
        """The share of goal atoms that hold; 1 when the goal has none."""
        total = len(self.satisfied) + len(self.unsatisfied)
        return len(self.satisfied) / total if total else 1.0


@dataclass(frozen=True, slots=True)
class MetricValue:
    """The problem's ``:metric`` in the final state of a valid plan; ``value`` is None (with the reason)
    when the expression reads a fluent that has no value."""

    direction: str
    expression: str
    value: float | None
    reason: str | None = None

    @property
    def text(self) -> str:
        """``minimize (total-cost) = 12``."""
        return f"{self.direction} {self.summary}"

    @property
    def summary(self) -> str:
        """``(total-cost) = 12``, as the plan lens shows it."""
        shown = number_text(self.value) if self.value is not None else f"no value ({self.reason})"
        return f"{self.expression} = {shown}"


@dataclass(frozen=True)
class Simulation:
    """The outcome of simulating one plan. When ``skipped_reason`` is set nothing was simulated;
    when ``stopped_reason`` is set the work budget ran out (``trace`` holds the steps done before).
    Either way ``lea``, ``executable`` and ``valid`` are None (unknown), never a guess."""

    length: int
    steps: tuple[PlanStep | Unparsed, ...]
    trace: tuple[TraceStep, ...] = ()
    failure: Failure | None = None
    goals: Goals = Goals((), ())
    redundant: tuple[int, ...] = ()
    skipped_reason: str | None = None
    world: World | None = None
    initial: State = EMPTY
    _checkpoints: tuple[State, ...] = field(default=(), repr=False)
    stopped_reason: str | None = None
    """Why the simulation stopped before its verdict (analyses/semantics/budget.py): ``stopped after
    10 s: the precondition of step 3 (forall over 6 variables) has 4.1e9 instances``."""
    metric: MetricValue | None = None
    """The ``:metric`` of a valid plan (None without a metric, when the plan is not valid, or for a
    verdict-only simulation)."""
    trajectory: TrajectoryReport | None = None
    """PDDL3: the verdict of each trajectory constraint and each preference's violation count
    (analyses/plans/constraints.py); None when the domain and problem state none."""
    happenings: tuple[Happening, ...] = ()
    """A temporal plan's happenings in time order (analyses/plans/temporal.py), executed or not; empty for a
    classical plan."""
    temporal: bool = False
    """Simulated as a temporal plan: ``length``, ``trace``, ``lea`` and ``failure.index`` count happenings,
    not plan steps (LEA is the number of happenings that executed)."""
    snap_effects: tuple[SnapEffect, ...] = ()
    """A temporal plan's executed snap actions with what each changed, in execution order."""

    def step_happening(self, index: int) -> int:
        """Where plan step ``index`` starts: its own index for a classical plan, the index of its start
        happening for a temporal one (the number of happenings when it has none: it was never scheduled)."""
        if not self.temporal:
            return index
        for happening in self.happenings:
            if any(snap.step == index for snap in happening.snaps):
                return happening.index
        return len(self.happenings)

    def effects_of_step(self, index: int) -> list[SnapEffect]:
        """The executed snap actions of plan step ``index`` (its start and end) in a temporal plan."""
        return [effect for effect in self.snap_effects if effect.snap.step == index]

    @property
    def lea_reached(self) -> int:
        """How many steps executed before the simulation ended, whatever the verdict (or its absence)."""
        return self.failure.index if self.failure is not None else len(self.trace)

    @property
    def unknown(self) -> bool:
        """Whether there is no verdict: the plan was not simulated, or not to the end."""
        return self.skipped_reason is not None or self.stopped_reason is not None

    @property
    def lea(self) -> int | None:
        """LEA: how many steps execute before the first that cannot, or None when the simulation was skipped.
        """
        if self.unknown:
            return None
        return self.failure.index if self.failure is not None else self.length

    @property
    def executable(self) -> bool | None:
        """Whether every step executes, or None when the simulation was skipped."""
        return None if self.unknown else self.failure is None

    @property
    def valid(self) -> bool | None:
        """Whether the plan executes and reaches the goal, or None when the simulation was skipped."""
        if self.unknown:
            return None
        return self.failure is None and not self.goals.unsatisfied and not self.broken_constraints

    @property
    def broken_constraints(self) -> tuple[ConstraintVerdict, ...]:
        """The hard PDDL3 constraints the plan violates, earliest first (each makes it invalid)."""
        return self.trajectory.broken if self.trajectory is not None else ()

    @property
    def unreached(self) -> Sequence[int]:
        """Indices of the steps after the failing one; for a temporal plan, the plan steps that never
        started (their start happening comes after the failing one)."""
        if self.failure is None:
            return range(0)
        if not self.temporal:
            return range(self.failure.index + 1, self.length)
        started = {snap.step for h in self.happenings[:self.failure.index + 1] for snap in h.snaps}
        return [i for i in range(len(self.steps)) if i not in started]

    def state_before(self, index: int) -> State:
        """The state before step ``index`` (0-based); ``index == len(trace)`` is where it stopped."""
        if not 0 <= index <= len(self.trace):
            raise IndexError(index)
        checkpoint = index // CHECKPOINT_EVERY if self._checkpoints else 0
        start = self._checkpoints[checkpoint] if self._checkpoints else self.initial
        state = set(start.atoms)
        values: dict[GroundTerm, float] | None = None
        for step in self.trace[checkpoint * CHECKPOINT_EVERY:index]:
            state.difference_update(step.deleted)
            state.update(step.added)
            if step.changed:
                if values is None:
                    values = dict(start.values)
                for term, _, after in step.changed:
                    values[term] = after
        return State(frozenset(state), start.values if values is None else values)

    def derived_before(self, index: int) -> frozenset[GroundAtom]:
        """The derived atoms that hold before step ``index`` (empty without ``:derived`` rules): shown
        apart from the basic atoms of :meth:`state_before`."""
        if self.world is None or self.world.derived is None:
            return frozenset()
        state = self.state_before(index)
        return self.world.derived_atoms(state.atoms, state.values)

    def state_after(self, index: int) -> State:
        """The state after step ``index`` (0-based), i.e. before the next one."""
        return self.state_before(index + 1)

    @property
    def stop_state(self) -> State:
        """The state after the last executed step (the final state of an executable plan)."""
        return self.state_before(len(self.trace))

    def states(self) -> Iterator[State]:
        """s0, s1, ... s_lea: the initial state and the state after each executed step."""
        values = self.initial.values
        state = set(self.initial.atoms)
        yield self.initial
        for step in self.trace:
            state.difference_update(step.deleted)
            state.update(step.added)
            if step.changed:
                values = dict(values)
                for term, _, after in step.changed:
                    values[term] = after
            yield State(frozenset(state), values)


def step_text(step: PlanStep | Unparsed) -> str:
    """A step as PDDL text; a step that did not parse keeps its raw text."""
    if isinstance(step, Unparsed):
        return step.text
    return format_atom((step.action.display, *(a.display for a in step.args)))


def terms_read(unmet: Unmet) -> list[GroundTerm]:
    """The ground fluent terms a (numeric) condition reads, each once, in the order written."""
    found: dict[GroundTerm, None] = {}
    for node in walk(unmet.formula):
        if isinstance(node, Comparison):
            for side in (node.left, node.right):
                for part in numeric_terms(side):
                    if isinstance(part, FunctionTerm):
                        found.setdefault(ground_term(part, unmet.binding), None)
    return list(found)


def explain_missing(missing: Missing, since: Callable[[int], str], stopped: Callable[[int], str]) -> str:
    """Why one part of a failing precondition is false, in the simulator's own words: ``since(i)`` and
    ``stopped(i)`` say where the part stopped holding, after step (or happening) ``i``, the first as a
    clause before a derived atom's reason (`` since step 2 (pick-up a)``), the second as the end of the
    sentence (``: it stopped holding after step 2 (pick-up a)``). One shape for both simulators, so a
    sequential and a temporal plan explain the same kind of failure alike."""
    if missing.because is not None:
        where = since(missing.stopped_after) if missing.stopped_after is not None else ""
        return f"{missing.text} is false{where}: {missing.because}"
    if missing.values:
        return f"{missing.text} is false: {missing.values}"
    if missing.stopped_after is not None:
        return f"{missing.text} is false{stopped(missing.stopped_after)}"
    return f"{missing.text} is false and has not held at any point so far"


def change_verb(before: float | None, after: float) -> str:
    """``decreased it by 6``: how a step changed a fluent, for explanations that name who set a value."""
    if before is None:
        return f"set it to {number_text(after)}"
    if math.isfinite(before) and math.isfinite(after):
        if after < before:
            return f"decreased it by {number_text(before - after)}"
        if after > before:
            return f"increased it by {number_text(after - before)}"
    return f"changed it from {number_text(before)} to {number_text(after)}"


def metric_value(world: World, state: State, length: float,
                 violations: Mapping[str, int] | None = None) -> MetricValue | None:
    """The ``:metric`` in ``state``, None when the problem has none. ``(total-time)`` of a sequential plan
    is its number of steps (step i happens at time i), as VAL counts it; ``(is-violated p)`` is the count
    in ``violations`` (PDDL3 preferences, analyses/plans/constraints.py) and has no value without it."""
    metric = world.problem.metric
    if metric is None:
        return None
    expression = " ".join(print_formula(metric.expr).split())
    counted: dict[GroundTerm, float] = {
        ("is-violated", name): float(n) for name, n in (violations or {}).items()}
    valued = State(state.atoms, {**state.values, ("total-time",): float(length), **counted})
    try:
        value = evaluate(metric.expr, {}, valued)
    except UndefinedValue as undefined:
        return MetricValue(metric.direction, expression, None, undefined.text)
    return MetricValue(metric.direction, expression, value)
