"""Simulate a temporal plan (PDDL 2.1 level 3) as VAL does: happenings of snap actions in time order.

A durative action ``t: (a x) [d]`` is two snap actions: its start at ``t`` (``at start`` conditions,
the duration constraint, ``at start`` effects) and its end at ``t + d`` (``at end`` conditions and
effects); between them its ``over all`` conditions must hold. Timed initial literals are snap actions
of their own, and an instantaneous action in a temporal plan is one snap at its time. Snap actions are
sorted by time and grouped into happenings the way VAL's ``Validate`` groups them (measured with
``Validate -t``, docs/beyond-classical-temporal.md): a happening takes every snap action at most ε/10
after its first one, where ε is the tolerance (VAL's default 0.01); duration constraints hold within ε.

One happening executes at once: every snap's condition reads the state before it, then VAL's mutex rule
(Fox and Long, "PDDL2.1: An Extension to PDDL for Expressing Temporal Planning Domains", 2003) rejects
two snaps where one changes an atom the other reads or changes the other way; then all effects apply
together. Before each happening the ``over all`` conditions of the actions running across the interval
since the previous one are checked in the state that interval had (an open interval: an action's own
start and end happenings are not inside it). Conditions and effects go through
:meth:`World.holds` / :meth:`World.apply_effect`, split by time specifier, so the classical and temporal
simulators cannot disagree on what a formula means.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from dataclasses import dataclass

from plansight.analyses.diagnostics.spans import NO_SPAN
from plansight.analyses.model.pddl import (
    And,
    Atom,
    Comparison,
    Formula,
    FunctionTerm,
    Name,
    Not,
    NumericEffect,
    PlanStep,
    Quantified,
    TimedLiteral,
    TimeSpecified,
    TypedName,
    When,
    conjuncts,
    numeric_terms,
    walk,
)
from plansight.analyses.plans.processes import EVENT_CASCADE_LIMIT, Dynamics, Grounded
from plansight.analyses.plans.simulation import (
    CATEGORY_WORDS,
    Failure,
    Goals,
    Happening,
    MetricValue,
    Missing,
    Simulation,
    Snap,
    SnapEffect,
    TraceStep,
    Unparsed,
    ValueChange,
    change_verb,
    explain_missing,
    metric_value,
    number_text,
    step_text,
    terms_read,
)
from plansight.analyses.semantics.budget import BudgetExceeded, WorkBudget
from plansight.analyses.semantics.fluents import (
    UndefinedValue,
    compare,
    evaluate,
    ground_term,
    term_text,
    with_duration,
)
from plansight.analyses.semantics.state import GroundTerm, State, StateDiff
from plansight.analyses.semantics.world import (
    Binding,
    CompiledAction,
    ConflictingUpdates,
    GroundAtom,
    Unmet,
    Update,
    World,
    ground_text,
    starts_only,
    updated_values,
)

INSIDE = 1e-9
"""How far inside an interval (as a share of its length) ``over all`` conditions are checked under
continuous change: the open interval's ends, where a linear change is closest to its bounds."""


@dataclass(frozen=True, slots=True)
class DurativeParts:
    """A durative action's condition and effect split by time specifier (None where a part is empty)."""

    at_start: Formula | None
    over_all: Formula | None
    at_end: Formula | None
    start_effect: Formula | None
    end_effect: Formula | None
    duration: tuple[Comparison, ...]
    continuous: tuple[NumericEffect, ...] = ()
    """``(increase (f) (* #t e))``: changes at rate ``e`` all the while the action runs (PDDL 2.1 level 4)."""
    continuous_forall: tuple[tuple[tuple[TypedName, ...], NumericEffect], ...] = ()
    """``(forall (?t - tank) (increase (level ?t) (* #t e)))``: one continuous effect per instance of the
    variables, each at its own rate."""
    continuous_when: tuple[tuple[Formula, NumericEffect], ...] = ()
    """``(when (at start c) (increase (f) (* #t e)))``: the rate applies for the whole action when ``c``
    held as it started (VAL reads the condition once, at the start)."""


_PARTS: weakref.WeakKeyDictionary[World, dict[str, DurativeParts]] = weakref.WeakKeyDictionary()
"""Per world: the split formulas stay alive as long as the world, so the world's compiled checks (cached
by formula identity) are built once for 1,000 plans of one problem."""


def durative_parts(world: World, compiled: CompiledAction) -> DurativeParts:
    """The durative action's parts, split once per world."""
    cache = _PARTS.setdefault(world, {})
    found = cache.get(compiled.name)
    if found is None:
        action = compiled.action
        found = cache[compiled.name] = DurativeParts(
            _restrict(action.precondition, "start"), _restrict(action.precondition, "all"),
            _restrict(action.precondition, "end"), _restrict(action.effect, "start"),
            _restrict(action.effect, "end"),
            _duration_bounds(action.duration),
            tuple(e for e in conjuncts(action.effect) if isinstance(e, NumericEffect) and _continuous(e)),
            tuple(_continuous_forall(action.effect)),
            tuple((_untimed(part.condition), inner) for part in conjuncts(action.effect)
                  if isinstance(part, When) and starts_only(part.condition)
                  for inner in conjuncts(part.effect)
                  if isinstance(inner, NumericEffect) and _continuous(inner)))
    return found


def _continuous_forall(effect: Formula | None) -> Iterator[tuple[tuple[TypedName, ...], NumericEffect]]:
    """The continuous effects under (nested) ``forall`` of the top-level conjunction, with the variables
    they range over (those under ``when`` are listed in ``World.unsupported``)."""
    for part in conjuncts(effect):
        if isinstance(part, Quantified) and part.quantifier == "forall":
            for variables, nested in _continuous_forall(part.body):
                yield (*part.variables, *variables), nested
            for inner in conjuncts(part.body):
                if isinstance(inner, NumericEffect) and _continuous(inner):
                    yield tuple(part.variables), inner


_Footprint = tuple[tuple[set[GroundAtom], set[GroundAtom]], set[GroundAtom],
                   tuple[set[GroundTerm], set[GroundTerm], set[GroundTerm]]]
_FOOTPRINTS: weakref.WeakKeyDictionary[World, dict[tuple[int, int, tuple[tuple[str, str], ...]],
                                                   tuple[object, object, _Footprint]]] = \
    weakref.WeakKeyDictionary()
"""Per world: what each snap of a ground step writes and reads, for the mutex rule. The same ground steps
come back in every plan of a batch. A key holds the ids of the condition and the effect (parts of the
world's durative actions) and the binding's items; its entry holds the condition and the effect
themselves, so an id reused by a new object never matches."""
_FOOTPRINT_LIMIT = 20_000


def _footprint(world: World, pending: _Pending) -> _Footprint:
    """The atoms ``pending`` adds and deletes, the atoms it reads, and the fluents it reads, changes and
    sets (read-only sets: the caller must not change them)."""
    cache = _FOOTPRINTS.setdefault(world, {})
    condition, effect, binding = pending.condition, pending.effect, pending.binding
    key = (id(condition), id(effect), tuple(binding.items()))
    found = cache.get(key)
    if found is not None and found[0] is condition and found[1] is effect:
        return found[2]
    footprint = (_written(effect, binding), _read(condition, binding), _fluents(condition, effect, binding))
    if len(cache) > _FOOTPRINT_LIMIT:
        cache.clear()
    cache[key] = (condition, effect, footprint)
    return footprint


def _changes(diff: StateDiff) -> tuple[ValueChange, ...]:
    """The fluents a diff changed as (term, before, after), in a stable order."""
    return tuple((term, before, value) for term, (before, value) in sorted(diff.changed.items())
                 if value is not None)


def _duration_bounds(duration: Formula | None) -> tuple[Comparison, ...]:
    """The comparisons of a ``:duration`` constraint (``(and (>= ?duration 2) (<= ?duration 4))``)."""
    out: list[Comparison] = []
    for part in conjuncts(duration):
        inner = part.body if isinstance(part, TimeSpecified) else part
        if isinstance(inner, Comparison):
            out.append(inner)
    return tuple(out)


def _restrict(formula: Formula | None, when: str) -> Formula | None:
    """The part of a time-annotated condition or effect that happens ``when`` (``start``, ``all``,
    ``end``); a part without a time specifier counts as ``at start`` for conditions and effects alike."""
    if formula is None:
        return None
    if isinstance(formula, TimeSpecified):
        return formula.body if formula.when == when else None
    if isinstance(formula, And):
        parts = [p for p in (_restrict(a, when) for a in formula.args) if p is not None]
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else And(tuple(parts), formula.span)
    if isinstance(formula, Quantified):
        body = _restrict(formula.body, when)
        return None if body is None else Quantified(formula.quantifier, formula.variables, body, formula.span)
    if isinstance(formula, When):
        effect = _restrict(formula.effect, when)
        if effect is None:
            return None
        condition = _untimed(formula.condition)
        return When(condition, effect, formula.span)
    if isinstance(formula, NumericEffect) and _continuous(formula):
        return None  # not a snap's effect: it acts between the snaps
    return formula if when == "start" else None


def _continuous(effect: NumericEffect) -> bool:
    """Whether a numeric effect reads ``#t`` (a continuous effect)."""
    return any(isinstance(term, Name) and term.key == "#t" for term in numeric_terms(effect.value))


def _untimed(formula: Formula) -> Formula:
    """A conditional effect's condition without its time specifiers (read in the state before the snap)."""
    if isinstance(formula, TimeSpecified):
        return formula.body
    if isinstance(formula, And):
        return And(tuple(_untimed(a) for a in formula.args), formula.span)
    return formula


@dataclass(slots=True)
class _Pending:
    """A snap waiting for its happening, with what it reads and writes."""

    snap: Snap
    order: tuple[float, int, int]
    condition: Formula | None
    effect: Formula | None
    binding: Binding
    duration: float | None = None
    parts: DurativeParts | None = None


def simulate_temporal(world: World, steps: tuple[PlanStep | Unparsed, ...], budget: WorkBudget,
                      epsilon: float) -> Simulation:
    """The simulation of a temporal plan; ``length``, ``trace`` and ``failure.index`` count happenings."""
    return _Temporal(world, steps, budget, epsilon).run()


class _Temporal:
    def __init__(self, world: World, steps: tuple[PlanStep | Unparsed, ...], budget: WorkBudget,
                 epsilon: float) -> None:
        self.world = world
        self.steps = steps
        self.budget = budget
        self.epsilon = epsilon
        self.initial = world.initial_state()
        self.trace: list[TraceStep] = []
        self.snap_effects: list[SnapEffect] = []
        self.happenings: list[Happening] = []
        """The happenings executed so far (the plan's, and events as they fire)."""
        self.groups: list[list[_Pending]] = []
        self.next_group = 0
        """The plan's snap actions grouped into happenings, and the first group not executed yet."""
        self.dynamics: Dynamics | None = None
        self.current: _Pending | None = None
        """The snap being checked or applied, named when a value it reads is undefined."""
        self.metric: MetricValue | None = None
        self.where = "the schedule"
        self.conditional: dict[int, tuple[NumericEffect, ...]] = {}
        """Per running step: its continuous effects under ``when`` whose condition held as it started."""

    def run(self) -> Simulation:
        meter = self.budget.meter()
        try:
            with self.world.metered(meter):
                return self._run()
        except BudgetExceeded as exceeded:
            exceeded.where = self.where
            return self._result(None, Goals((), ()), stopped=exceeded.reason)

    def _result(self, failure: Failure | None, goals: Goals, stopped: str | None = None) -> Simulation:
        done = len(self.happenings)
        rest = [Happening(done + i, group[0].snap.time, tuple(p.snap for p in group))
                for i, group in enumerate(self.groups[self.next_group:])]
        happenings = (*self.happenings, *rest)
        return Simulation(len(happenings), self.steps, tuple(self.trace), failure, goals, (), None,
                          self.world, self.initial, (), stopped_reason=stopped, metric=self.metric,
                          happenings=happenings, temporal=True, snap_effects=tuple(self.snap_effects))

    # --- the schedule ----------------------------------------------------------------------------

    def _schedule(self) -> tuple[list[_Pending], Failure | None]:
        pending: list[_Pending] = []
        world = self.world
        parts_of: dict[str, DurativeParts] = {}
        for index, step in enumerate(self.steps):
            if isinstance(step, Unparsed):
                return [], Failure(0, step.text, "parse", (), (
                    f"Step {index + 1} `{step.text}` is not an action `(name arg ...)`, so the temporal plan "
                    f"cannot be scheduled (category: {CATEGORY_WORDS['parse']})."), step.span)
            ground = world.ground(step.action.key, [a.key for a in step.args])
            if ground.problem is not None:
                return [], self._static_failure(index, step, ground.problem)
            compiled = ground.compiled
            assert compiled is not None
            text = step_text(step)
            # VAL: a step without a time happens at its position (1, 2, ...); without a duration it lasts 0
            start = step.time.value if step.time is not None else float(index + 1)
            binding = ground.binding
            if not compiled.action.durative:
                pending.append(_Pending(Snap("at", index, text, start, step.span), (start, index, 0),
                                        compiled.action.precondition, compiled.action.effect, binding))
                continue
            parts = parts_of.get(compiled.name) or parts_of.setdefault(compiled.name,
                                                                       durative_parts(world, compiled))
            duration = step.duration.value if step.duration is not None else 0.0
            binding = with_duration(binding, duration)  # `(decrease (fuel ?r) (* ?duration 2))` reads it
            pending.append(_Pending(Snap("start", index, text, start, step.span), (start, index, 0),
                                    parts.at_start, parts.start_effect, binding, duration, parts))
            end = start + duration  # in floating point, as VAL adds them: the grouping below depends on it
            pending.append(_Pending(Snap("end", index, text, end, step.span), (end, index, 1),
                                    parts.at_end, parts.end_effect, binding, duration, parts))
        tils = [fact for fact in world.problem.init if isinstance(fact, TimedLiteral)]
        for number, fact in enumerate(tils):
            time = fact.time.value
            text = f"(at {fact.time.text or f'{time:g}'} {ground_text(fact.body, {})})"
            pending.append(_Pending(Snap("til", None, text, time, NO_SPAN), (time, len(self.steps), number),
                                    None, fact.body, {}))
        pending.sort(key=lambda p: p.order)
        return pending, None

    def _group(self, pending: list[_Pending]) -> list[list[_Pending]]:
        """Snap actions no later than ε/10 after a happening's first one join it. The comparison is VAL's,
        in floating point (``t <= first + ε/10``): an end at 0.01 + 3 and a start at 3.011 are two
        happenings for VAL, a start at 3 and one at 3.001 are one."""
        together = self.epsilon / 10
        groups: list[list[_Pending]] = []
        for item in pending:
            if groups and item.snap.time <= groups[-1][0].snap.time + together:
                groups[-1].append(item)
            else:
                groups.append([item])
        return groups

    # --- execution -------------------------------------------------------------------------------

    def _run(self) -> Simulation:
        pending, failure = self._schedule()
        if failure is not None:  # no happening executes; the schedule's steps still show where they fall
            return self._result(failure, self._goals(self.initial))
        groups = self._group(pending)
        self.groups = groups
        ends = {p.snap.step: g for g, group in enumerate(groups) for p in group if p.snap.kind == "end"}
        self.dynamics = Dynamics(self.world) if self.world.processes_and_events else None
        running: dict[int, _Pending] = {}
        state = settled = self.initial
        now = 0.0
        try:
            if self.dynamics:
                state = settled = self._fire_events(now, state, state)
            for g, group in enumerate(groups):
                self.next_group = g
                at = group[0].snap.time
                self.world.meter.spend(len(group))
                self.where = f"happening {len(self.happenings) + 1} (time {at:g})"
                failure, state, settled = self._advance(now, at, running, state, settled)
                if failure is not None:
                    return self._result(failure, self._goals(state))
                index = len(self.happenings)
                happening = Happening(index, at, tuple(p.snap for p in group))
                self.happenings.append(happening)
                self.next_group = g + 1
                failure = self._happening(index, group, state)
                if failure is not None:
                    return self._result(failure, self._goals(state))
                before, after = state, self._apply(index, group, state)
                lead = next((self.steps[p.snap.step] for p in group if p.snap.step is not None), None)
                shown = lead if isinstance(lead, PlanStep) else _til_step(happening)
                self._record(index, shown, settled, after, happening.label)
                state = settled = after
                for item in group:
                    step = item.snap.step
                    if item.snap.kind == "start" and step is not None and ends.get(step, g) > g:
                        running[step] = item
                        if item.parts is not None and item.parts.continuous_when:
                            self.conditional[step] = tuple(
                                effect for condition, effect in item.parts.continuous_when
                                if self.world.holds(condition, before, item.binding))
                    elif item.snap.kind == "end" and step is not None:
                        running.pop(step, None)
                now = at
                if self.dynamics:
                    state = settled = self._fire_events(now, state, settled)
        except UndefinedValue as undefined:
            return self._result(self._undefined(self._failing_index(), undefined), self._goals(state))
        except ConflictingUpdates as conflict:
            return self._result(self._conflict(self._failing_index(), conflict), self._goals(state))
        except _Stop as stop:
            return self._result(stop.failure, self._goals(state))
        self.where = "the goal"
        goals = self._goals(state)
        if not goals.unsatisfied:  # (total-time) of a temporal plan is its makespan, as VAL counts it
            makespan = self.happenings[-1].time if self.happenings else 0.0
            self.metric = metric_value(self.world, state, makespan)
        return self._result(None, goals)

    def _time_of(self, index: int) -> float:
        """The time of happening ``index``, executed or the next one of the plan."""
        if index < len(self.happenings):
            return self.happenings[index].time
        if self.next_group < len(self.groups):
            return self.groups[self.next_group][0].snap.time
        return self.happenings[-1].time if self.happenings else 0.0

    def _failing_index(self) -> int:
        """The happening being executed, or the next one when the failure came between two."""
        if self.current is not None and self.happenings and self.current.snap in self.happenings[-1].snaps:
            return len(self.happenings) - 1
        return len(self.happenings)

    def _record(self, index: int, step: PlanStep, settled: State, after: State, label: str) -> None:
        """A happening's trace entry: what changed since the previous one (continuous change included)."""
        diff = settled.diff(after)
        self.trace.append(TraceStep(index, step, tuple(sorted(diff.added)), tuple(sorted(diff.deleted)),
                                    _changes(diff), label=label))

    def _advance(self, start: float, end: float, running: dict[int, _Pending], state: State,
                 settled: State) -> tuple[Failure | None, State, State]:
        """Time from ``start`` to ``end`` (the next happening of the plan): values flow (running processes,
        durative actions' continuous effects), events fire where their preconditions become true, and the
        ``over all`` conditions must hold all along. Returns the failure, the state at ``end`` and the
        state the last recorded happening left."""
        now = start
        while True:
            active = self.dynamics.active(state) if self.dynamics else []
            flowing = bool(active) or _flowing(running)

            def flow(at: State, elapsed: float, active: list[Grounded] = active) -> State:
                return self._flowed(running, active, at, elapsed)

            until = end
            if flowing and self.dynamics:
                crossing = self.dynamics.next_crossing(state, flow, end - now)
                if crossing is not None:
                    until = now + crossing
            span = until - now
            after = flow(state, span) if flowing else state
            if running and (span > 0 or not flowing):
                if flowing:
                    inside = span * INSIDE
                    failure = (self._invariants(running, flow(state, inside), now, until, (state, after))
                               or self._invariants(running, flow(state, span - inside), now, until,
                                                   (state, after)))
                else:
                    failure = self._invariants(running, state, now, until)
                if failure is not None:
                    return failure, state, settled
            state, now = after, until
            if now >= end:
                return None, state, settled
            fired = self._fire_events(now, state, settled)
            if fired is not state:
                state = settled = fired

    def _flowed(self, running: dict[int, _Pending], active: list[Grounded], state: State,
                elapsed: float) -> State:
        updates: list[Update] = []
        for item in running.values():
            if item.parts is None:
                continue
            self.current = item
            numbers = {"#t": elapsed, "?duration": item.duration or 0.0}
            instances = [(effect, item.binding) for effect in item.parts.continuous]
            if item.snap.step is not None:
                instances += [(effect, item.binding) for effect in self.conditional.get(item.snap.step, ())]
            instances += [(effect, binding) for variables, effect in item.parts.continuous_forall
                          for binding in self.world.instances(variables, item.binding)]
            for effect, binding in instances:
                target = ground_term(effect.target, binding)
                amount = evaluate(effect.value, binding, state, numbers)
                if state.value(target) is None:
                    raise UndefinedValue(f"{term_text(target)} has no value", target)
                updates.append((target, effect.op, amount))
        if active and self.dynamics:
            updates.extend(self.dynamics.process_updates(active, state, elapsed))
        return State(state.atoms, updated_values(state.values, updates)) if updates else state

    def _fire_events(self, at: float, state: State, settled: State) -> State:
        """The events whose preconditions hold at time ``at``, fired together, again until none holds;
        each round is a happening of its own."""
        assert self.dynamics is not None
        for _ in range(EVENT_CASCADE_LIMIT):
            firing = list(self.dynamics.firing(state))
            if not firing:
                return state
            index = len(self.happenings)
            snaps = tuple(Snap("event", None, event.text, at, NO_SPAN) for event in firing)
            happening = Happening(index, at, snaps)
            self.happenings.append(happening)
            after = state
            for snap, event in zip(snaps, firing, strict=True):  # each reads the state before the round
                fired = self.world.apply_effect(event.compiled.action.effect, state, event.binding)
                diff = state.diff(fired)
                values = {**after.values, **{t: v for t, (_, v) in diff.changed.items() if v is not None}}
                after = State((after.atoms - diff.deleted) | diff.added, values)
                self.snap_effects.append(SnapEffect(index, snap, tuple(sorted(diff.added)),
                                                    tuple(sorted(diff.deleted)), _changes(diff)))
            self._record(index, _til_step(happening), settled, after, happening.label)
            state = settled = after
        names = ", ".join(snap.text for snap in self.happenings[-1].snaps)
        message = (f"At time {at:g} the events {names} keep firing: an event's effect must make its own "
                   f"precondition false. Category: {CATEGORY_WORDS['invariant']}.")
        raise _Stop(Failure(len(self.happenings) - 1, names, "invariant", (), message, NO_SPAN))

    def _happening(self, index: int, group: list[_Pending], state: State) -> Failure | None:
        """What stops happening ``index`` before its effects: a false condition, interfering snaps."""
        for item in group:
            self.current = item
            failure = self._condition(index, item, state)
            if failure is not None:
                return failure
        return self._mutex(index, group) if len(group) > 1 else None

    def _undefined(self, index: int, undefined: UndefinedValue) -> Failure:
        assert self.current is not None
        snap = self.current.snap
        at = self._time_of(index)
        message = (f"Happening {index + 1} (time {at:g}): {snap.label} reads a value "
                   f"that is not defined ({undefined.text}: neither the initial state nor an earlier "
                   f"happening gives it one). Category: {CATEGORY_WORDS['undefined_value']}.")
        return Failure(index, snap.text, "undefined_value", (Missing(undefined.text, None, False),), message,
                       snap.span)

    def _conflict(self, index: int, conflict: ConflictingUpdates) -> Failure:
        assert self.current is not None
        snap = self.current.snap
        at = self._time_of(index)
        message = (f"Happening {index + 1} (time {at:g}): {conflict} (an `assign` or "
                   "a scaling cannot be combined with another update of the same fluent in one happening). "
                   f"Category: {CATEGORY_WORDS['conflicting_effects']}.")
        return Failure(index, snap.text, "conflicting_effects", (), message, snap.span)

    def _goals(self, state: State) -> Goals:
        satisfied: list[str] = []
        unsatisfied: list[str] = []
        for formula, text in self.world.goal_literals():
            try:
                holds = self.world.holds(formula, state)
            except UndefinedValue as undefined:  # VAL stops at the goal too ("undefined expression")
                holds, text = False, f"{text} (it reads {undefined.text})"
            (satisfied if holds else unsatisfied).append(text)
        return Goals(tuple(satisfied), tuple(unsatisfied))

    def _apply(self, index: int, group: list[_Pending], state: State) -> State:
        """All effects of one happening, each computed from the state before it, applied together (the
        numeric updates of all its snaps at once, so that two increases of one fluent add up)."""
        if len(group) == 1:
            self.current = group[0]
            after = self.world.apply_effect(group[0].effect, state, group[0].binding)
            diff = state.diff(after)
            self.snap_effects.append(SnapEffect(index, group[0].snap, tuple(sorted(diff.added)),
                                                tuple(sorted(diff.deleted)), _changes(diff)))
            return after
        added: set[GroundAtom] = set()
        deleted: set[GroundAtom] = set()
        updates: list[Update] = []
        for item in group:
            self.current = item
            after = self.world.apply_effect(item.effect, state, item.binding)  # its own share
            diff = state.diff(after)
            gained, lost = diff.added, diff.deleted
            self.snap_effects.append(SnapEffect(index, item.snap, tuple(sorted(gained)), tuple(sorted(lost)),
                                                _changes(diff)))
            added |= gained
            deleted |= lost
            updates.extend(self.world.effect_updates(item.effect, state, item.binding))
        values = updated_values(state.values, updates) if updates else state.values
        return State((state.atoms - deleted) | added, values)

    def _condition(self, index: int, item: _Pending, state: State) -> Failure | None:
        snap = item.snap
        if snap.kind == "start" and item.parts is not None and item.duration is not None:
            failure = self._duration(index, item, state)
            if failure is not None:
                return failure
        if snap.kind == "til" or self.world.holds(item.condition, state, item.binding):
            return None
        unmet = self.world.unmet(item.condition, state, item.binding)
        missing = tuple(self._history(u, state) for u in unmet)
        reasons = "; ".join(self._explain(m) for m in missing) or "its condition is false"
        what = {"start": "cannot start", "end": "cannot end", "at": "cannot be executed"}[snap.kind]
        if any(not m.held_before for m in missing):
            category, why = "missing_step", "a step that makes the condition true is missing before it"
        else:
            category, why = "wrong_order", "the condition held earlier, so the steps are out of order"
        spec = {"start": "at start ", "end": "at end ", "at": ""}[snap.kind]
        message = (f"Happening {index + 1} (time {self.happenings[index].time:g}): {snap.text} {what}: "
                   f"its {spec}condition is false: {reasons}. Category: {CATEGORY_WORDS[category]} ({why}).")
        return Failure(index, snap.text, category, missing, message, snap.span)

    def _duration(self, index: int, item: _Pending, state: State) -> Failure | None:
        assert item.parts is not None and item.duration is not None
        duration = item.duration
        numbers = {"?duration": duration}
        for constraint in item.parts.duration:
            try:
                left = evaluate(constraint.left, item.binding, state, numbers)
                right = evaluate(constraint.right, item.binding, state, numbers)
            except UndefinedValue as undefined:
                broken = f"{ground_text(constraint, item.binding)} has no value ({undefined.text})"
            else:
                if _within(constraint.op, left, right, self.epsilon):
                    continue
                broken = f"{ground_text(constraint, item.binding)} is false"
            snap = item.snap
            message = (f"Happening {index + 1} (time {self.happenings[index].time:g}): {snap.text} cannot "
                       f"start: its duration {duration:g} breaks the duration constraint: {broken} (within "
                       f"the tolerance ε = {self.epsilon:g}). Category: {CATEGORY_WORDS['duration']}.")
            return Failure(index, snap.text, "duration", (Missing(broken, None, False),), message, snap.span)
        return None

    def _invariants(self, running: dict[int, _Pending], state: State, before: float, at: float,
                    flow: tuple[State, State] | None = None) -> Failure | None:
        """The ``over all`` conditions of the actions running across the interval from ``before`` to
        ``at`` (before the next happening), in the state of that interval (``flow``: the states at its
        ends, when values change continuously across it)."""
        index = len(self.happenings)
        for item in running.values():
            parts = item.parts
            if parts is None or parts.over_all is None:
                continue
            self.current = item
            if self.world.holds(parts.over_all, state, item.binding):
                continue
            unmet = self.world.unmet(parts.over_all, state, item.binding)
            if flow is not None and any(_flows_in(u, flow) for u in unmet):
                missing = tuple(Missing(u.text, index - 1 if index else None, bool(index)) for u in unmet)
                reasons = "; ".join(_flow_words(u, flow, before, at) for u in unmet)
            else:
                missing = tuple(self._history(u, state) for u in unmet)
                reasons = "; ".join(self._explain(m) for m in missing) or "it is false"
            snap = item.snap
            message = (f"{snap.text} runs from time {snap.time:g} but its over all condition breaks between "
                       f"time {before:g} and {at:g} (before happening {index + 1}): {reasons}. "
                       f"Category: {CATEGORY_WORDS['invariant']}.")
            return Failure(index, snap.text, "invariant", missing, message, snap.span)
        return None

    def _mutex(self, index: int, group: list[_Pending]) -> Failure | None:
        """VAL's mutex rule within one happening: a snap must not change what another reads, and two
        snaps must not add and delete the same atom."""
        footprints = [_footprint(self.world, p) for p in group]
        effects = [footprint[0] for footprint in footprints]
        reads = [footprint[1] for footprint in footprints]
        fluents = [footprint[2] for footprint in footprints]
        for i, j in _interfering(effects, reads, fluents):
            first, second = group[i], group[j]
            adds, deletes = effects[i]
            conflict = None
            clash = (_overlap(adds | deletes, reads[j]) or _overlap(deletes, effects[j][0]))
            if clash is not None:
                verb = "deletes" if clash in deletes else "adds"
                other = "adds" if verb == "deletes" and _overlap({clash}, effects[j][0]) else "reads"
                conflict = (f"{first.snap.label} {verb} {_atom_text(clash)}, which "
                            f"{second.snap.label} {other}")
            else:
                _, changes, sets = fluents[i]
                reading, changing, _ = fluents[j]
                term = _overlap(changes, reading) or _overlap(sets, changing)
                if term is not None:
                    other = "reads" if _overlap({term}, reading) else "changes"
                    conflict = (f"{first.snap.label} changes {_atom_text(term)}, which "
                                f"{second.snap.label} {other}")
            if conflict is None:
                continue
            happening = self.happenings[index]
            message = (f"Happening {index + 1} (time {happening.time:g}): {first.snap.label} and "
                       f"{second.snap.label} happen together (within ε/10 = {self.epsilon / 10:g}) and "
                       f"interfere: {conflict}. Separate them by more than {self.epsilon / 10:g}. "
                       f"Category: {CATEGORY_WORDS['mutex']}.")
            span = first.snap.span if first.snap.step is not None else second.snap.span
            return Failure(index, first.snap.text, "mutex", (Missing(conflict, None, True),), message,
                           span)
        return None

    def _history(self, unmet: Unmet, state: State) -> Missing:
        """The happening after which ``unmet`` stopped holding, walking the deltas backwards (for a derived
        atom, the closures of the states after each happening; with the reason no rule derives it)."""
        rules = self.world.derived
        if unmet.atom is not None and rules is not None and unmet.atom[0] in rules.heads:
            full = self.world.full_atoms(state.atoms, state.values)
            because = rules.explain(unmet.atom, full) if unmet.positive else None
            states = list(self._states())
            for index in range(len(states) - 1, 0, -1):
                before, after = states[index - 1], states[index]
                was = unmet.atom in self.world.derived_atoms(before.atoms, before.values)
                now = unmet.atom in self.world.derived_atoms(after.atoms, after.values)
                if was != now and now != unmet.positive:
                    return Missing(unmet.text, index - 1, True, because=because)
            return Missing(unmet.text, None, False, because=because)
        if unmet.atom is not None:
            for done in reversed(self.trace):
                if unmet.atom in (done.deleted if unmet.positive else done.added):
                    return Missing(unmet.text, done.index, True)
            return Missing(unmet.text, None, False)
        terms = terms_read(unmet)
        if terms:  # a numeric condition: name the values it read (they may have flowed since a happening)
            values = ", ".join(self._value_words(t, state) for t in terms)
            return Missing(unmet.text, None, True, values)
        current = set(state.atoms)
        for done in reversed(self.trace):
            current.difference_update(done.added)
            current.update(done.deleted)
            if self.world.holds(unmet.formula, State(frozenset(current), state.values), unmet.binding):
                return Missing(unmet.text, done.index, True)
        return Missing(unmet.text, None, False)

    def _value_words(self, term: GroundTerm, state: State) -> str:
        """``(level) is 0 after happening 3 at time 0.5 ((drain p2) start), which decreased it by 10``: a
        value a numeric condition read and the happening that set it, as a sequential plan's explanation
        names its step; just the value when it has flowed since (a continuous effect or a process)."""
        value = state.value(term)
        text = f"{term_text(term)} is {number_text(value)}"
        changer = next((done for done in reversed(self.trace) if any(c[0] == term for c in done.changed)),
                       None)
        if changer is None:
            initial = value is not None and value == self.initial.value(term)
            return f"{text} (its initial value)" if initial else text
        before, after = next((c[1], c[2]) for c in changer.changed if c[0] == term)
        if value is None or after != value:
            return text
        time = self.happenings[changer.index].time
        return (f"{text} after happening {changer.index + 1} at time {time:g} ({changer.action}), which "
                f"{change_verb(before, after)}")

    def _states(self) -> Iterator[State]:
        """s0 and the state after each happening so far (as the trace rebuilds them)."""
        state = self.initial
        yield state
        for done in self.trace:
            values = dict(state.values)
            for term, _, after in done.changed:
                values[term] = after
            state = State((state.atoms - frozenset(done.deleted)) | frozenset(done.added), values)
            yield state

    def _explain(self, missing: Missing) -> str:
        def since(index: int) -> str:
            happening = self.happenings[index]
            return f" since time {happening.time:g} (happening {index + 1}, {happening.label})"

        def stopped(index: int) -> str:
            happening = self.happenings[index]
            return (f" since time {happening.time:g}: it stopped holding at happening {index + 1} "
                    f"({happening.label})")

        return explain_missing(missing, since, stopped)

    def _static_failure(self, index: int, step: PlanStep, category: str) -> Failure:
        text = step_text(step)
        words = CATEGORY_WORDS[category]
        message = (f"Step {index + 1} {text} cannot be scheduled: {words} (VAL rejects the whole temporal "
                   f"plan). Category: {words}.")
        return Failure(0, text, category, (), message, step.span)


def _flows_in(unmet: Unmet, flow: tuple[State, State]) -> bool:
    start, end = flow
    return any(start.value(term) != end.value(term) for term in terms_read(unmet))


def _flow_words(unmet: Unmet, flow: tuple[State, State], before: float, at: float) -> str:
    """``(<= (level) 100) becomes false: (level) goes from 20 at time 0 to 110 at time 9``."""
    start, end = flow
    moves = [f"{term_text(term)} goes from {number_text(start.value(term))} at time {before:g} to "
             f"{number_text(end.value(term))} at time {at:g}" for term in terms_read(unmet)
             if start.value(term) != end.value(term)]
    return f"{unmet.text} becomes false as values change continuously: " + ", ".join(moves)


class _Stop(Exception):
    """The simulation cannot go on (an event that fires forever); carries the failure."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.message)
        self.failure = failure


def _flowing(running: dict[int, _Pending]) -> bool:
    """Whether a running action changes a fluent continuously."""
    return any(item.parts is not None and (item.parts.continuous or item.parts.continuous_forall
                                           or item.parts.continuous_when) for item in running.values())


def _within(op: str, left: float, right: float, epsilon: float) -> bool:
    """A duration constraint as VAL checks it: equal when closer than ε, bounds stretched by (almost) ε
    (``Validate -t 1`` rejects duration 4 for ``(= ?duration 5)``: the difference must stay below ε)."""
    if op == "=":
        return abs(left - right) < epsilon
    if op in ("<", "<="):
        return left <= right or left < right + epsilon
    if op in (">", ">="):
        return left >= right or left > right - epsilon
    return compare(op, left, right)


def _til_step(happening: Happening) -> PlanStep:
    """A stand-in plan step for a happening that holds only timed initial literals (no plan line)."""
    from plansight.analyses.model.pddl import Number

    return PlanStep(Name("at", f"at {happening.time:g}"), (), Number(happening.time), None, NO_SPAN)


def _atom_text(atom: GroundAtom) -> str:
    return "(" + " ".join(atom) + ")"


def _ground(atom: Atom, binding: Binding) -> GroundAtom:
    return (atom.predicate.key, *(binding.get(a.key, a.key) for a in atom.args))


def _read(condition: Formula | None, binding: Binding) -> set[GroundAtom]:
    """The atoms a condition mentions (a quantified variable stays ``?x``: it matches any object)."""
    return {_ground(node, binding) for node in walk(condition) if isinstance(node, Atom)}


def _written(effect: Formula | None, binding: Binding) -> tuple[set[GroundAtom], set[GroundAtom]]:
    """The atoms an effect may add and delete, whatever its conditions say."""
    adds: set[GroundAtom] = set()
    deletes: set[GroundAtom] = set()

    def visit(node: Formula | None, negated: bool) -> None:
        if node is None:
            return
        if isinstance(node, Atom):
            (deletes if negated else adds).add(_ground(node, binding))
        elif isinstance(node, Not):
            visit(node.arg, not negated)
        elif isinstance(node, And):
            for part in node.args:
                visit(part, negated)
        elif isinstance(node, (Quantified, TimeSpecified)):
            visit(node.body, negated)
        elif isinstance(node, When):
            visit(node.effect, negated)

    visit(effect, False)
    return adds, deletes


def _fluents(condition: Formula | None, effect: Formula | None,
             binding: Binding) -> tuple[set[GroundTerm], set[GroundTerm], set[GroundTerm]]:
    """The fluents a snap reads (in its condition and its effects' right-hand sides), changes, and sets
    (``assign``, scaling: changes that do not add up with another snap's ``increase``)."""
    reads: set[GroundTerm] = set()
    changes: set[GroundTerm] = set()
    sets: set[GroundTerm] = set()
    for node in walk(condition):
        if isinstance(node, Comparison):
            reads.update(ground_term(t, binding) for side in (node.left, node.right)
                         for t in numeric_terms(side) if isinstance(t, FunctionTerm))
    for node in walk(effect):
        if isinstance(node, NumericEffect):
            target = ground_term(node.target, binding)
            changes.add(target)
            if node.op not in ("increase", "decrease"):
                sets.add(target)
            reads.update(ground_term(t, binding) for t in numeric_terms(node.value)
                         if isinstance(t, FunctionTerm))
        elif isinstance(node, When):
            reads.update(_fluents(node.condition, None, binding)[0])
    return reads, changes, sets


def _interfering(effects: list[tuple[set[GroundAtom], set[GroundAtom]]], reads: list[set[GroundAtom]],
                 fluents: list[tuple[set[GroundTerm], set[GroundTerm], set[GroundTerm]]],
                 ) -> Iterator[tuple[int, int]]:
    """The pairs (i, j) of one happening's snaps to test for interference (snap i writes what snap j reads
    or writes), in the order the rule takes them. Without quantified variables (``?x``) anywhere an atom
    matches only itself, so an index of who reads and writes what yields the first interfering pair at
    once, instead of testing every pair of the 20 snaps that often happen together; otherwise each pair
    is tried in turn."""
    count = len(reads)
    every = [*reads, *(e for pair in effects for e in pair), *(f for triple in fluents for f in triple)]
    if any(arg.startswith("?") for atoms in every for atom in atoms for arg in atom[1:]):
        yield from ((i, j) for i in range(count) for j in range(count) if i != j)
        return
    readers = _holders(reads)
    adders = _holders([adds for adds, _ in effects])
    fluent_readers = _holders([reading for reading, _, _ in fluents])
    fluent_changers = _holders([changing for _, changing, _ in fluents])
    for i in range(count):
        adds, deletes = effects[i]
        _, changes, sets = fluents[i]
        others: set[int] = set()
        for atom in adds | deletes:
            others.update(readers.get(atom, ()))
        for atom in deletes:
            others.update(adders.get(atom, ()))
        for term in changes:
            others.update(fluent_readers.get(term, ()))
        for term in sets:
            others.update(fluent_changers.get(term, ()))
        others.discard(i)
        if others:
            yield i, min(others)
            return


def _holders(sets: list[set[GroundAtom]]) -> dict[GroundAtom, list[int]]:
    """Which snaps (by position) hold each atom or term."""
    holders: dict[GroundAtom, list[int]] = {}
    for position, atoms in enumerate(sets):
        for atom in atoms:
            holders.setdefault(atom, []).append(position)
    return holders


def _overlap(written: set[GroundAtom], others: set[GroundAtom]) -> GroundAtom | None:
    """An atom of ``written`` that one of ``others`` may be (``?x`` matches any object); ground fluent
    terms have the same shape and are matched the same way."""
    for atom in written:
        if atom in others:
            return atom
    for atom in written:
        for other in others:
            if len(atom) == len(other) and atom[0] == other[0] and all(
                    a == b or a[0] == "?" or b[0] == "?" for a, b in zip(atom, other, strict=True)):
                return atom
    return None

