"""Simulate a plan step by step (docs/metrics.md): the trace, LEA, where and why the plan breaks, goals.

The state after each step is not stored: a 10,000-step plan over a large problem would hold
10,000 copies of the state. Each step keeps only what it changed (added and deleted atoms); states
are rebuilt on demand from the nearest checkpoint (one frozen state every ``CHECKPOINT_EVERY``
steps), and the explanation of a failure walks the deltas backwards to find the step after which a
missing atom stopped holding.

Failure categories follow the Embodied Agent Interface (Li et al. 2024, Appendix D.2): first the static
"grammar" errors (``parse``, ``unknown_action``, ``arity``, ``unknown_object``, ``type``), then the
runtime ones in the paper's order — ``additional_step`` when everything the step would add holds
already, ``missing_step`` when some unsatisfied precondition never held before, ``wrong_order`` when
each held at some earlier point.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence, Set
from dataclasses import dataclass, field, replace

from plansight.analyses.diagnostics.diagnostic import Diagnostic, Severity
from plansight.analyses.diagnostics.spans import Span, line_end_at, line_start_at
from plansight.analyses.diagnostics.suggest import suffix
from plansight.analyses.model.pddl import Atom, Domain, Plan, PlanStep, Problem
from plansight.analyses.semantics.budget import BudgetExceeded, Meter, WorkBudget
from plansight.analyses.semantics.state import EMPTY, State
from plansight.analyses.semantics.world import Atoms, GroundAtom, Unmet, World, format_atom
from plansight.analyses.syntax.lexical import without_comment

CHECKPOINT_EVERY = 256

STATIC_CATEGORIES = ("parse", "unknown_action", "arity", "unknown_object", "type")
RUNTIME_CATEGORIES = ("additional_step", "missing_step", "wrong_order")
CATEGORY_WORDS = {
    "parse": "not an action",
    "unknown_action": "unknown action",
    "arity": "wrong number of arguments",
    "unknown_object": "unknown object",
    "type": "argument of the wrong type",
    "additional_step": "additional step",
    "missing_step": "missing step",
    "wrong_order": "wrong order",
}


@dataclass(frozen=True, slots=True)
class Unparsed:
    """A plan line that is not an action at all; it counts as a step, in its place."""

    text: str
    span: Span


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One executed step and what it changed (atoms that became true / false); with ``:derived``
    rules, also the derived atoms that became true / false as a consequence (kept apart: no effect
    changes them, their rules do)."""

    index: int
    step: PlanStep
    added: tuple[GroundAtom, ...]
    deleted: tuple[GroundAtom, ...]
    derived_added: tuple[GroundAtom, ...] = ()
    derived_deleted: tuple[GroundAtom, ...] = ()

    @property
    def action(self) -> str:
        """The step as PDDL text, as users wrote it."""
        return step_text(self.step)

    @property
    def span(self) -> Span:
        """Where the step is in the plan file, for underlining it."""
        return self.step.span


@dataclass(frozen=True, slots=True)
class Missing:
    """An unsatisfied part of the failing step's precondition, and the step (0-based) after which
    it stopped holding, when it ever held."""

    text: str
    stopped_after: int | None
    held_before: bool
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
        return self.failure is None and not self.goals.unsatisfied

    @property
    def unreached(self) -> range:
        """Indices of the steps after the failing one."""
        return range(self.failure.index + 1, self.length) if self.failure is not None else range(0)

    def state_before(self, index: int) -> State:
        """The state before step ``index`` (0-based); ``index == len(trace)`` is where it stopped."""
        if not 0 <= index <= len(self.trace):
            raise IndexError(index)
        checkpoint = index // CHECKPOINT_EVERY
        start = self._checkpoints[checkpoint] if self._checkpoints else self.initial
        state = set(start.atoms)
        for step in self.trace[checkpoint * CHECKPOINT_EVERY:index]:
            state.difference_update(step.deleted)
            state.update(step.added)
        return State(frozenset(state), start.values)

    def derived_before(self, index: int) -> frozenset[GroundAtom]:
        """The derived atoms that hold before step ``index`` (empty without ``:derived`` rules): shown
        apart from the basic atoms of :meth:`state_before`."""
        if self.world is None or self.world.derived is None:
            return frozenset()
        return self.world.derived_atoms(self.state_before(index).atoms)

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
            yield State(frozenset(state), values)


def simulate(domain: Domain, problem: Problem, plan: Plan | Sequence[PlanStep | Unparsed],
             world: World | None = None, budget: WorkBudget | None = None, *,
             explain: bool = True) -> Simulation:
    """Simulate ``plan`` (a parsed plan, or its steps with :class:`Unparsed` lines in place) from the
    problem's initial state. ``world`` may be passed to reuse one built for the same pair.

    ``budget`` (default: :class:`WorkBudget`'s 10 s and 50,000,000 units) bounds the work: past it the
    result has a ``stopped_reason`` and no verdict; its ``cancelled`` hook raises
    :class:`~plansight.analyses.semantics.budget.Cancelled` out of this call.

    ``explain=False`` is for callers that want only the verdict (the plan metrics ask it of thousands of
    variants of one plan): a runtime failure then carries no explanation, category ``unexplained``."""
    steps = tuple(plan.steps if isinstance(plan, Plan) else plan)
    world = world or World.build(domain, problem)
    if world.unsupported:
        reason = "; ".join(world.unsupported)
        return Simulation(len(steps), steps, skipped_reason=reason, world=world,
                          initial=world.initial_state())
    return _Simulator(world, steps, budget or WorkBudget(), explain).run()


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


def step_text(step: PlanStep | Unparsed) -> str:
    """A step as PDDL text; a step that did not parse keeps its raw text."""
    if isinstance(step, Unparsed):
        return step.text
    return format_atom((step.action.display, *(a.display for a in step.args)))


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
        state: set[GroundAtom] = set(self.initial.atoms)  # stepped in place: one copy, not one per step
        values = self.initial.values
        world = self.world
        failure: Failure | None = None
        trace = self.trace
        rules = world.derived
        closure: frozenset[GroundAtom] = frozenset()
        reading: Atoms = state
        if rules is not None:
            self.stage = "closure"
            closure = rules.closure(state)
            reading = _Union(state, closure)
        for index, step in enumerate(self.steps):
            meter.spend(1)
            self.stage, self.index = "precondition", index
            if index and index % CHECKPOINT_EVERY == 0:
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
            if not ground.applicable(reading):
                failure = self._runtime_failure(index, step, state, reading, ground.binding)
                break
            self.stage = "effects"
            adds, deletes = ground.changes(reading)
            deleted = tuple(a for a in deletes if a in state and a not in adds)
            added = tuple(a for a in adds if a not in state)
            if ground.effects is None:  # collected afresh: may hold repeats
                deleted, added = tuple(dict.fromkeys(deleted)), tuple(dict.fromkeys(added))
            state.difference_update(deleted)
            state.update(added)
            if not added and not deleted:
                self.redundant.append(index)
            if rules is None or not _touches(rules.reads, added, deleted):
                trace.append(TraceStep(index, step, added, deleted))
                continue
            self.stage = "closure"
            before, closure = closure, rules.closure(state)
            reading = _Union(state, closure)
            trace.append(TraceStep(index, step, added, deleted, tuple(sorted(closure - before)),
                                   tuple(sorted(before - closure))))
        self.stage = "goal"
        goals = self._goals(State(frozenset(state), values))
        return Simulation(len(self.steps), self.steps, tuple(trace), failure, goals, tuple(self.redundant),
                          None, world, self.initial, tuple(self.checkpoints))

    def _goals(self, state: State) -> Goals:
        satisfied: list[str] = []
        unsatisfied: list[str] = []
        why: list[str] = []
        rules = self.world.derived if self.explain else None
        for formula, text in self.world.goal_literals():
            if self.world.holds(formula, state):
                satisfied.append(text)
                continue
            unsatisfied.append(text)
            if rules is not None and isinstance(formula, Atom) and formula.predicate.key in rules.heads:
                atom = (formula.predicate.key, *(a.key for a in formula.args))
                why.append(f"{text} is false: {rules.explain(atom, self.world.full_atoms(state.atoms))}")
        return Goals(tuple(satisfied), tuple(unsatisfied), tuple(why))

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

    def _runtime_failure(self, index: int, step: PlanStep, state: set[GroundAtom], reading: Atoms,
                         binding: dict[str, str]) -> Failure:
        if not self.explain:
            return Failure(index, step_text(step), "unexplained", (), "", step.span)
        world = self.world
        compiled = world.action(step.action.key)
        assert compiled is not None
        unmet = world.unmet(compiled.action.precondition, State.of(state, self.initial.values), binding)
        missing = tuple(self._history(u, state, index) for u in unmet)
        if world.derived is not None:
            missing = tuple(self._because(m, u, reading) for m, u in zip(missing, unmet, strict=True))
        adds: list[GroundAtom] = []
        compiled.collect(reading, binding, adds, [])
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
        for step in reversed(self.trace):
            current.difference_update(step.added)
            current.update(step.deleted)
            if self.world.holds(unmet.formula, State.of(current), unmet.binding):
                return Missing(unmet.text, step.index, True)
        return Missing(unmet.text, None, False)

    def _because(self, missing: Missing, unmet: Unmet, reading: Atoms) -> Missing:
        """``missing`` with the reason no rule derives it, when it is a positive derived atom."""
        rules = self.world.derived
        if rules is None or unmet.atom is None or not unmet.positive or unmet.atom[0] not in rules.heads:
            return missing
        return replace(missing, because=rules.explain(unmet.atom, reading))

    def _explain(self, missing: Missing) -> str:
        if missing.because is not None:
            since = ""
            if missing.stopped_after is not None:
                since = f" since step {missing.stopped_after + 1} {self.trace[missing.stopped_after].action}"
            return f"{missing.text} is false{since}: {missing.because}"
        if missing.stopped_after is not None:
            stopped = self.trace[missing.stopped_after]
            return (f"{missing.text} is false: it stopped holding after step "
                    f"{missing.stopped_after + 1} {stopped.action}")
        return f"{missing.text} is false and has not held at any point so far"


def _touches(predicates: Set[str], added: Sequence[GroundAtom], deleted: Sequence[GroundAtom]) -> bool:
    """Whether a step changed an atom some derived rule reads (else the closure stays as it was)."""
    return any(a[0] in predicates for a in added) or any(a[0] in predicates for a in deleted)


class _Union(Collection[GroundAtom]):
    """The basic atoms a simulation steps in place together with their derived closure, read without
    copying either (conditions only ask membership; a join iterates)."""

    __slots__ = ("basic", "derived")

    def __init__(self, basic: set[GroundAtom], derived: frozenset[GroundAtom]) -> None:
        self.basic = basic
        self.derived = derived

    def __contains__(self, atom: object) -> bool:
        return atom in self.basic or atom in self.derived

    def __iter__(self) -> Iterator[GroundAtom]:
        yield from self.basic
        yield from self.derived

    def __len__(self) -> int:
        return len(self.basic) + len(self.derived)
