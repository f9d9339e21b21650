"""Simulate a plan step by step (docs/metrics.md): the trace, LEA, where and why the plan breaks, goals.

The state after each step is not stored: a 10,000-step plan over a large problem would hold
10,000 copies of the state. Each step keeps only what it changed (added and deleted atoms, fluent values
before and after); states
are rebuilt on demand from the nearest checkpoint (one frozen state every ``CHECKPOINT_EVERY``
steps), and the explanation of a failure walks the deltas backwards to find the step after which a
missing atom stopped holding.

Failure categories follow the Embodied Agent Interface (Li et al. 2024, Appendix D.2): first the static
"grammar" errors (``parse``, ``unknown_action``, ``arity``, ``unknown_object``, ``type``), then the
runtime ones in the paper's order — ``additional_step`` when everything the step would add holds
already, ``missing_step`` when some unsatisfied precondition never held before, ``wrong_order`` when
each held at some earlier point. Numeric plans add two runtime categories VAL also stops at
(docs/beyond-classical-numeric.md): ``undefined_value`` when the step reads a fluent that has no value,
``conflicting_effects`` when it assigns one fluent twice.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence, Set
from dataclasses import replace

from plansight.analyses.diagnostics.diagnostic import Diagnostic, Severity
from plansight.analyses.diagnostics.spans import Span, line_end_at, line_start_at
from plansight.analyses.diagnostics.suggest import suffix
from plansight.analyses.model.pddl import Atom, Domain, Plan, PlanStep, Problem
from plansight.analyses.plans.constraints import check_trajectory, has_pddl3
from plansight.analyses.plans.simulation import (
    CATEGORY_WORDS,
    CHECKPOINT_EVERY,
    RUNTIME_CATEGORIES,
    STATIC_CATEGORIES,
    Failure,
    Goals,
    Missing,
    Simulation,
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
from plansight.analyses.semantics.budget import BudgetExceeded, Meter, WorkBudget
from plansight.analyses.semantics.derived import DerivedRules
from plansight.analyses.semantics.fluents import UndefinedValue, term_text
from plansight.analyses.semantics.state import GroundTerm, State
from plansight.analyses.semantics.world import (
    COST_TERMS,
    ConflictingUpdates,
    GroundAtom,
    Unmet,
    Valued,
    WithDerived,
    World,
    format_atom,
    updated_values,
)
from plansight.analyses.syntax.lexical import without_comment

__all__ = [
    "CATEGORY_WORDS",
    "CHECKPOINT_EVERY",
    "DEFAULT_EPSILON",
    "RUNTIME_CATEGORIES",
    "STATIC_CATEGORIES",
    "Failure",
    "Missing",
    "Simulation",
    "SnapEffect",
    "TraceStep",
    "Unparsed",
    "ValueChange",
    "number_text",
    "simulate",
    "step_text",
    "unparsed_lines",
]
"""What a simulation gives lives in analyses/plans/simulation.py; it is named here too, so callers import
the simulator and its result from one place."""

DEFAULT_EPSILON = 0.01
"""VAL's default tolerance (``Validate -t``): duration constraints hold within it, and snap actions within
a tenth of it form one happening (measured with VAL; docs/beyond-classical-temporal.md)."""


def simulate(domain: Domain, problem: Problem, plan: Plan | Sequence[PlanStep | Unparsed],
             world: World | None = None, budget: WorkBudget | None = None, *,
             explain: bool = True, epsilon: float = DEFAULT_EPSILON) -> Simulation:
    """Simulate ``plan`` (a parsed plan, or its steps with :class:`Unparsed` lines in place) from the
    problem's initial state. ``world`` may be passed to reuse one built for the same pair.

    ``budget`` (default: :class:`WorkBudget`'s 10 s and 50,000,000 units) bounds the work: past it the
    result has a ``stopped_reason`` and no verdict; its ``cancelled`` hook raises
    :class:`~plansight.analyses.semantics.budget.Cancelled` out of this call.

    ``explain=False`` is for callers that want only the verdict (the plan metrics ask it of thousands of
    variants of one plan): a runtime failure then carries no explanation, category ``unexplained``.

    A domain with durative actions or a problem with timed initial literals is simulated as a temporal
    plan (analyses/plans/temporal.py) with tolerance ``epsilon`` (VAL's ``-t``); its failures are always
    explained."""
    steps = tuple(plan.steps if isinstance(plan, Plan) else plan)
    world = world or World.build(domain, problem)
    if world.unsupported:
        reason = "; ".join(world.unsupported)
        return Simulation(len(steps), steps, skipped_reason=reason, world=world,
                          initial=world.initial_state())
    if world.temporal:
        # imported here: a classical plan's lint does not load the temporal simulator (10 ms of start-up)
        from plansight.analyses.plans.temporal import simulate_temporal

        simulation = simulate_temporal(world, steps, budget or WorkBudget(), epsilon)
    else:
        simulation = _Simulator(world, steps, budget or WorkBudget(), explain).run()
    if simulation.unknown or not has_pddl3(world):
        return simulation
    times: list[float] | None = None
    if simulation.temporal:  # the states between happenings, at the happenings' times
        executed: list[tuple[str, dict[str, str]]] = []
        times = [0.0, *(h.time for h in simulation.happenings[:len(simulation.trace)])]
    else:
        executed = [(t.step.action.key, world.ground(t.step.action.key, [a.key for a in t.step.args]).binding)
                    for t in simulation.trace]
        if steps and all(isinstance(s, PlanStep) and s.time is not None for s in steps):  # `0.5: (a)` lines
            times = [0.0, *(t.step.time.value for t in simulation.trace if t.step.time is not None)]
    report = check_trajectory(world, list(simulation.states()), executed, simulation.failure is None, times)
    judged = replace(simulation, trajectory=report, metric=None)
    if not judged.valid:
        return judged
    # the metric again, now that `(is-violated p)` has a value; (total-time) is a temporal plan's makespan
    total_time: float = judged.length
    if judged.temporal:
        total_time = judged.happenings[-1].time if judged.happenings else 0.0
    return replace(judged, metric=metric_value(world, judged.stop_state, total_time, report.violations))


SYNTAX_CODES = frozenset({"syntax-error", "unclosed-paren", "unexpected-close-paren", "invalid-character"})
"""The plan parser's diagnostics: a line holding one of them is not an action."""


def unparsed_lines(text: str, plan: Plan, diagnostics: Sequence[Diagnostic]) -> list[PlanStep | Unparsed]:
    """The plan's steps with the lines the parser could not read as a step in their places.

    A line holding a syntax error is a step that does not parse, even when the parser recovered a step
    from it (``(1. pick-up a)``, ``**(pick-up a)**``, a missing ``)``): a plan the linter rejects must
    never be simulated as valid.
    """
    errors = [d for d in diagnostics if d.severity is Severity.ERROR and d.code in SYNTAX_CODES]
    if not errors:
        return list(plan.steps)
    bad: dict[int, Unparsed] = {}
    for diagnostic in errors:
        start = _line_start(text, diagnostic.span.start)
        if start in bad:
            continue
        line = text[start:line_end_at(text, start)]
        content = without_comment(line).rstrip()
        stripped = len(line) - len(line.lstrip())
        if content.strip():
            bad[start] = Unparsed(content.strip(), Span(start + stripped, start + len(content)))
    kept = [s for s in plan.steps if _line_start(text, s.span.start) not in bad]
    merged: list[PlanStep | Unparsed] = [*kept, *bad.values()]
    merged.sort(key=lambda item: item.span.start)
    return merged


def _line_start(text: str, offset: int) -> int:
    return line_start_at(text, offset)


class _Simulator:
    def __init__(self, world: World, steps: tuple[PlanStep | Unparsed, ...], budget: WorkBudget,
                 explain: bool = True) -> None:
        self.world = world
        self.explain = explain
        self.budget = budget
        self.stage, self.index = "precondition", 0
        """What the run is doing, for the reason given when the budget runs out."""
        self.steps = steps
        self.initial = world.initial_state()
        self.trace: list[TraceStep] = []
        self.checkpoints: list[State] = [self.initial]
        self.redundant: list[int] = []

    def run(self) -> Simulation:
        meter = self.budget.meter()
        try:
            with self.world.metered(meter):
                return self._run(meter)
        except BudgetExceeded as exceeded:
            if self.stage == "goal":
                exceeded.where = "the goal"
            elif self.stage == "closure":
                exceeded.where = (f"the derived predicates after step {self.index + 1}" if self.trace
                                  else "the derived predicates of the initial state")
            else:
                exceeded.where = f"the {self.stage} of step {self.index + 1}"
            return Simulation(len(self.steps), self.steps, tuple(self.trace), None, Goals((), ()),
                              tuple(self.redundant), None, self.world, self.initial, tuple(self.checkpoints),
                              stopped_reason=exceeded.reason)

    def _run(self, meter: Meter) -> Simulation:
        # stepped in place: one copy, not one per step; a numeric world's set carries the values
        state: set[GroundAtom] = Valued(self.initial) if self.world.numeric else set(self.initial.atoms)
        values = self.initial.values
        world = self.world
        failure: Failure | None = None
        trace = self.trace
        rules = world.derived
        closure: frozenset[GroundAtom] = frozenset()
        reading: Collection[GroundAtom] = state
        unreadable: UndefinedValue | None = None
        """A rule compared an undefined value while closing the current state: the next step fails on it
        (VAL: "Attempt to access undefined numeric expression" at the happening that reads the rules)."""
        if rules is not None:
            self.stage = "closure"
            closure, unreadable = _closed(rules, state)
            reading = WithDerived(state, closure)
        for index, step in enumerate(self.steps):
            meter.spend(1)
            self.stage, self.index = "precondition", index
            if index and index % CHECKPOINT_EVERY == 0:
                if isinstance(state, Valued):
                    values = dict(state.values)
                self.checkpoints.append(State(frozenset(state), values))
            if isinstance(step, Unparsed):
                failure = Failure(index, step.text, "parse", (), (
                    f"Step {index + 1} `{step.text}` is not an action `(name arg ...)`, so the plan "
                    f"stops here (category: {CATEGORY_WORDS['parse']})."), step.span)
                break
            ground = world.ground(step.action.key, [a.key for a in step.args])
            if ground.problem is not None:
                failure = self._static_failure(index, step, ground.problem)
                break
            try:
                if unreadable is not None:
                    raise unreadable
                if not ground.applicable(reading):
                    failure = self._runtime_failure(index, step, state, reading, ground.binding)
                    break
                self.stage = "effects"
                adds, deletes = ground.changes(reading)
                changed: tuple[ValueChange, ...] = ()
                if ground.updates is not None:
                    assert isinstance(state, Valued)
                    changed = _apply_updates(state.values, ground.numeric_changes(reading))
            except UndefinedValue as undefined:
                failure = self._undefined_failure(index, step, undefined)
                break
            except ConflictingUpdates as conflict:
                failure = self._conflict_failure(index, step, conflict)
                break
            deleted = tuple(a for a in deletes if a in state and a not in adds)
            added = tuple(a for a in adds if a not in state)
            if ground.effects is None:  # collected afresh: may hold repeats
                deleted, added = tuple(dict.fromkeys(deleted)), tuple(dict.fromkeys(added))
            state.difference_update(deleted)
            state.update(added)
            if not added and not deleted and all(c[0] in COST_TERMS for c in changed):
                self.redundant.append(index)  # what it costs does not make a step useful
            if rules is None or not (_touches(rules.reads, added, deleted) or (
                    rules.functions and any(c[0][0] in rules.functions for c in changed))):
                trace.append(TraceStep(index, step, added, deleted, changed))
                continue
            self.stage = "closure"
            before = closure
            closure, unreadable = _closed(rules, state)
            reading = WithDerived(state, closure)
            trace.append(TraceStep(index, step, added, deleted, changed, tuple(sorted(closure - before)),
                                   tuple(sorted(before - closure))))
        self.stage = "goal"
        final = state.frozen() if isinstance(state, Valued) else State(frozenset(state), values)
        goals = self._goals(final)
        metric = None
        if failure is None and not goals.unsatisfied:
            metric = metric_value(world, final, len(self.steps)) if self.explain else None
        return Simulation(len(self.steps), self.steps, tuple(trace), failure, goals, tuple(self.redundant),
                          None, world, self.initial, tuple(self.checkpoints), metric=metric)

    def _goals(self, state: State) -> Goals:
        satisfied: list[str] = []
        unsatisfied: list[str] = []
        why: list[str] = []
        rules = self.world.derived if self.explain else None
        for formula, text in self.world.goal_literals():
            try:
                holds = self.world.holds(formula, state)
            except UndefinedValue as undefined:  # VAL stops at the goal too ("undefined expression")
                holds, text = False, f"{text} ({undefined.text})"
            if holds:
                satisfied.append(text)
                continue
            unsatisfied.append(text)
            if rules is not None and isinstance(formula, Atom) and formula.predicate.key in rules.heads:
                atom = (formula.predicate.key, *(a.key for a in formula.args))
                full = self.world.full_atoms(state.atoms, state.values)
                why.append(f"{text} is false: {rules.explain(atom, full)}")
        return Goals(tuple(satisfied), tuple(unsatisfied), tuple(why))

    def _undefined_failure(self, index: int, step: PlanStep, undefined: UndefinedValue) -> Failure:
        text = step_text(step)
        missing = Missing(undefined.text, None, False)
        message = (f"Step {index + 1} {text} cannot be executed: it reads a value that is not defined "
                   f"({undefined.text}: neither the initial state nor an earlier step gives it one). "
                   f"Category: {CATEGORY_WORDS['undefined_value']}.")
        return Failure(index, text, "undefined_value", (missing,), message, step.span)

    def _conflict_failure(self, index: int, step: PlanStep, conflict: ConflictingUpdates) -> Failure:
        text = step_text(step)
        message = (f"Step {index + 1} {text} cannot be executed: {conflict} (an `assign` or a scaling "
                   "cannot be combined with another update of the same fluent in one step). "
                   f"Category: {CATEGORY_WORDS['conflicting_effects']}.")
        return Failure(index, text, "conflicting_effects", (), message, step.span)

    def _static_failure(self, index: int, step: PlanStep, category: str) -> Failure:
        text = step_text(step)
        compiled = self.world.action(step.action.key)
        hint = ""
        if category == "unknown_action":
            reason = f"`{step.action.display}` is not an action of the domain"
            hint = suffix(step.action.display, [a.action.name.display for a in self.world.actions])
        elif category == "arity":
            assert compiled is not None
            expected = len(compiled.parameters)
            reason = (f"`{step.action.display}` takes {expected} argument{'s' if expected != 1 else ''}, "
                      f"got {len(step.args)}")
        elif category == "unknown_object":
            unknown = [a.display for a in step.args if a.key not in self.world.objects.ancestry]
            reason = ", ".join(f"`{u}`" for u in unknown) + (
                " is not an object" if len(unknown) == 1 else " are not objects") + " of the problem"
        else:
            reason = "an argument's type does not fit the action's parameter"
        message = (f"Step {index + 1} {text} cannot be executed: {reason} "
                   f"(category: {CATEGORY_WORDS[category]}).{hint}")
        return Failure(index, text, category, (), message, step.span)

    def _runtime_failure(self, index: int, step: PlanStep, state: set[GroundAtom],
                         reading: Collection[GroundAtom], binding: dict[str, str]) -> Failure:
        if not self.explain:
            return Failure(index, step_text(step), "unexplained", (), "", step.span)
        world = self.world
        compiled = world.action(step.action.key)
        assert compiled is not None
        current = state.frozen() if isinstance(state, Valued) else State.of(state, self.initial.values)
        unmet = world.unmet(compiled.action.precondition, current, binding)
        missing = tuple(self._history(u, state, index) for u in unmet)
        if world.derived is not None:
            missing = tuple(self._because(m, u, reading) for m, u in zip(missing, unmet, strict=True))
        adds: list[GroundAtom] = []
        try:
            compiled.collect(reading, binding, adds, [])
        except UndefinedValue:
            adds = []  # a `when` reads an undefined value: what the step achieves is unknown
        text = step_text(step)
        reasons = "; ".join(self._explain(m) for m in missing) or "its precondition is false"
        if adds and all(a in state for a in adds):
            category = "additional_step"
            held = " ".join(format_atom(a) for a in dict.fromkeys(adds))
            why = f"what it achieves already holds ({held}): the step is not needed"
        elif any(not m.held_before for m in missing):
            category = "missing_step"
            why = "a step that makes the precondition true is missing before it"
        else:
            category = "wrong_order"
            why = "the precondition held earlier, so the steps are out of order"
        message = (f"Step {index + 1} {text} is not executable: {reasons}. "
                   f"Category: {CATEGORY_WORDS[category]} ({why}).")
        return Failure(index, text, category, missing, message, step.span)

    def _history(self, unmet: Unmet, state: set[GroundAtom], index: int) -> Missing:
        """When ``unmet`` last held: walk the deltas backwards from the failing step."""
        if unmet.atom is not None:
            derived = self.world.derived is not None and unmet.atom[0] in self.world.derived.heads
            for step in reversed(self.trace):
                # a positive atom stopped holding when deleted; a negative literal when its atom was added
                if derived:
                    changed = step.derived_deleted if unmet.positive else step.derived_added
                else:
                    changed = step.deleted if unmet.positive else step.added
                if unmet.atom in changed:
                    return Missing(unmet.text, step.index, True)
            return Missing(unmet.text, None, False)  # it would still hold had it held initially
        current = set(state)
        values = dict(state.values) if isinstance(state, Valued) else {}
        numbers = self._numbers_of(unmet, state)
        for step in reversed(self.trace):
            current.difference_update(step.added)
            current.update(step.deleted)
            for term, before, _ in step.changed:
                if before is None:
                    values.pop(term, None)
                else:
                    values[term] = before
            try:
                held = self.world.holds(unmet.formula, State.of(current, values), unmet.binding)
            except UndefinedValue:
                held = False
            if held:
                return Missing(unmet.text, step.index, True, numbers)
        return Missing(unmet.text, None, False, numbers)

    def _numbers_of(self, unmet: Unmet, state: set[GroundAtom]) -> str:
        """What the values a numeric condition reads are, and which step made them so: ``(fuel t1) is 4
        after step 3 (drive t1 a b), which decreased it by 6``."""
        if not isinstance(state, Valued):
            return ""
        terms = terms_read(unmet)
        parts = []
        for term in terms:
            value = state.values.get(term)
            if value is None:
                parts.append(f"{term_text(term)} has no value")
                continue
            changer = next((s for s in reversed(self.trace) if any(c[0] == term for c in s.changed)), None)
            if changer is None:
                parts.append(f"{term_text(term)} is {number_text(value)} (its initial value)")
                continue
            before = next(c[1] for c in changer.changed if c[0] == term)
            parts.append(f"{term_text(term)} is {number_text(value)} after step {changer.index + 1} "
                         f"{changer.action}, which {change_verb(before, value)}")
        return "; ".join(parts)

    def _because(self, missing: Missing, unmet: Unmet, reading: Collection[GroundAtom]) -> Missing:
        """``missing`` with the reason no rule derives it, when it is a positive derived atom."""
        rules = self.world.derived
        if rules is None or unmet.atom is None or not unmet.positive or unmet.atom[0] not in rules.heads:
            return missing
        return replace(missing, because=rules.explain(unmet.atom, reading))

    def _explain(self, missing: Missing) -> str:
        def step(index: int) -> str:
            return f"step {index + 1} {self.trace[index].action}"

        return explain_missing(missing, since=lambda index: f" since {step(index)}",
                               stopped=lambda index: f": it stopped holding after {step(index)}")


def _closed(rules: DerivedRules, state: set[GroundAtom]
            ) -> tuple[frozenset[GroundAtom], UndefinedValue | None]:
    """The closure of ``state``, or none and the undefined value a rule's comparison read."""
    try:
        return rules.closure(state), None
    except UndefinedValue as undefined:
        return frozenset(), undefined


def _touches(predicates: Set[str], added: Sequence[GroundAtom], deleted: Sequence[GroundAtom]) -> bool:
    """Whether a step changed an atom some derived rule reads (else the closure stays as it was)."""
    return any(a[0] in predicates for a in added) or any(a[0] in predicates for a in deleted)


def _apply_updates(values: dict[GroundTerm, float], updates: list[tuple[GroundTerm, str, float]]
                   ) -> tuple[ValueChange, ...]:
    """Apply a step's numeric effects to ``values`` in place; what changed, in the effects' order."""
    new = updated_values(values, updates)
    changed: list[ValueChange] = []
    for term in dict.fromkeys(term for term, _, _ in updates):
        before, after = values.get(term), new[term]
        if before is None or (before != after and not (math.isnan(before) and math.isnan(after))):
            changed.append((term, before, after))
        values[term] = after
    return tuple(changed)


