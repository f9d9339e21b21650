"""Ground states and what actions do to them: the one definition of PDDL's state semantics.

Plan simulation, the editor's state views, equivalence (state-space search) and LTL evaluation all
ask the same questions — which atoms hold initially, does a formula hold, what does an action change,
which actions apply — so they are answered here, once. A :class:`World` is built from a domain and a
problem; every action's precondition and effect is compiled once into closures over a binding of its
parameters, because a 10,000-step plan evaluates them 10,000 times and re-walking the model each time
would be an order of magnitude slower.

Supported: STRIPS, typing (with ``either``), negative preconditions, equality, ``or`` / ``imply`` /
``not`` over any formula, ``forall`` / ``exists`` grounded over the typed objects and constants,
conditional effects (evaluated in the state before the step), ``forall`` effects, PDDL 2.1 numeric
fluents (comparisons over arithmetic in any condition, ``assign`` / ``increase`` / ``decrease`` /
``scale-up`` / ``scale-down`` with every right-hand side read in the state before the step; action
costs are such values: ``total-cost`` is a fluent like any other) and stratified derived predicates
(their closure joins a state's atoms wherever a condition reads them: analyses/semantics/derived.py).
PDDL3 preferences are soft here (they always hold): analyses/plans/constraints.py counts them and judges
trajectory constraints. Anything whose meaning needs more (time, derived predicates whose rules read
values, non-determinism) is listed in :attr:`World.unsupported` with a reason a user understands, so
that callers skip simulation instead of giving a wrong verdict.

A world without numeric conditions or effects compiles its checks over bare atom sets (the classical hot
path); a world with them (:attr:`World.numeric`) passes checks an object that also answers
``value(term)``: a :class:`State`, or the :class:`Valued` set a simulation steps forward. With
``:derived`` rules either one carries the closure's atoms too (:meth:`World.view`).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Collection, Container, Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

from plansight.analyses.model.pddl import (
    Action,
    And,
    Arithmetic,
    Atom,
    Comparison,
    Domain,
    Equality,
    Formula,
    FunctionTerm,
    Imply,
    Modal,
    Name,
    Not,
    NumericEffect,
    Or,
    Preference,
    Problem,
    Quantified,
    TimedLiteral,
    TimeSpecified,
    TypedName,
    When,
    children,
    conjuncts,
    numeric_terms,
    walk,
)
from plansight.analyses.model.vocabulary import Vocabulary, vocabulary
from plansight.analyses.semantics.argument_checks import Accepted, ObjectTable, Signatures, accepted, fits
from plansight.analyses.semantics.budget import BudgetExceeded, Meter
from plansight.analyses.semantics.derived import DerivedRules, ValuedAtoms, derived_reasons
from plansight.analyses.semantics.fluents import (
    DURATION,
    UndefinedValue,
    compare,
    divide,
    evaluate,
    ground_term,
    term_text,
)
from plansight.analyses.semantics.state import EMPTY, GroundAtom, GroundTerm, State

Atoms = Container[GroundAtom]
"""What a compiled check reads: in a classical world a :class:`State`'s frozenset (taken once, outside
the hot loop) or the mutable set a simulation steps forward; in a numeric world (:attr:`World.numeric`)
an object that also has ``value(term)``: the :class:`State` itself or a :class:`Valued` set."""
Binding = Mapping[str, str]
"""Variable key (``?x``) -> object key."""

Check = Callable[[Atoms, Binding], bool]
Collect = Callable[[Atoms, Binding, list[GroundAtom], list[GroundAtom]], None]
"""Appends the atoms an effect adds and deletes in a state (conditions read the state before)."""

Update = tuple[GroundTerm, str, float]
"""A numeric effect ground in the state before the step: the term, the operator (``assign``,
``increase``...), and the right-hand side's value."""
UpdateCollect = Callable[[Atoms, Binding, list[Update]], None]
"""Appends the numeric effects of an effect formula in a state (conditions and right-hand sides read it)."""

GROUND_CACHE_SIZE = 200_000
CLOSURE_CACHE_SIZE = 256
"""States whose derived atoms are remembered: a goal check, a hover, an LTL trajectory ask about the same
few states in a row (each entry holds a copy of its state with the derived atoms, so it stays small)."""
SPEND_EVERY = 256
"""Quantifier instances counted locally before they are charged to the world's meter at once."""
_VARIABLE = re.compile(r"\?[^\s()]+")


class Valued(set[GroundAtom]):
    """The atoms a simulation steps forward in place, with the fluent values beside them: membership
    tests stay the C set's, and numeric checks read :meth:`value` (a
    :class:`~plansight.analyses.semantics.fluents.Valuation`)."""

    __slots__ = ("values",)

    def __init__(self, state: State) -> None:
        super().__init__(state.atoms)
        self.values: dict[GroundTerm, float] = dict(state.values)

    def value(self, term: GroundTerm) -> float | None:
        """The value of a ground function term, None when it is undefined."""
        return self.values.get(term)

    def frozen(self) -> State:
        """The current state as an immutable :class:`State`."""
        return State(frozenset(self), self.values)


class WithDerived(Collection[GroundAtom]):
    """The basic atoms a simulation steps in place together with their derived closure, read without
    copying either (conditions ask membership; a join iterates). Numeric checks read the values of the
    basic set when it is a :class:`Valued` one: the rules' closure never changes a value."""

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

    def value(self, term: GroundTerm) -> float | None:
        """The value of a ground function term in the basic set, None when it is undefined."""
        return self.basic.values.get(term) if isinstance(self.basic, Valued) else None


_VALUED = (Valued, State, WithDerived, ValuedAtoms)
"""What a compiled check may read values from (anything else is bare atoms)."""


class ConflictingUpdates(Exception):
    """One step's numeric effects assign a fluent twice, or assign and also change it: VAL stops the plan
    there ("assigns to expression ... twice"); increases and decreases of one fluent add up."""

    def __init__(self, term: GroundTerm) -> None:
        super().__init__(f"{term_text(term)} is assigned more than once by the same step")
        self.term = term


ADDITIVE = frozenset({"increase", "decrease"})
COST_TERMS = frozenset({("total-cost",)})
"""Action costs: a value no condition of an action-cost task reads, so what a step costs does not
make it useful (a redundant step) nor its state a different world state (recovery's pi_corr)."""


def updated_values(values: Mapping[GroundTerm, float], updates: Sequence[Update]) -> dict[GroundTerm, float]:
    """The values after a step's numeric effects, all read in the state before it (simultaneous
    update). Several ``increase`` / ``decrease`` of one fluent add up; an ``assign`` or a scaling that
    meets any other update of the same fluent raises :class:`ConflictingUpdates`. Changing an
    undefined fluent starts from 0, as VAL does (only reading one in a condition or a right-hand side is
    an error)."""
    new = dict(values)
    if not updates:
        return new
    seen: dict[GroundTerm, str] = {}
    for term, op, _ in updates:
        previous = seen.get(term)
        if previous is not None and not (previous in ADDITIVE and op in ADDITIVE):
            raise ConflictingUpdates(term)
        seen[term] = op
    for term, op, amount in updates:
        old = new.get(term, 0.0)
        if op == "assign":
            new[term] = amount
        elif op == "increase":
            new[term] = old + amount
        elif op == "decrease":
            new[term] = old - amount
        elif op == "scale-up":
            new[term] = old * amount
        elif op == "scale-down":
            new[term] = divide(old, amount)
        else:
            raise ValueError(f"unknown numeric effect {op}")
    return new


class GroundAction(NamedTuple):
    """An action name with object arguments, the unit plans and planners exchange."""

    name: str
    args: tuple[str, ...]

    @property
    def text(self) -> str:
        """The action as PDDL text."""
        return format_atom((self.name, *self.args))


def format_atom(atom: GroundAtom) -> str:
    """``(on a b)``, ``(handempty)``."""
    return "(" + " ".join(atom) + ")"


def format_literal(atom: GroundAtom, positive: bool) -> str:
    """A ground literal as PDDL text, negated with ``(not ...)`` when false."""
    return format_atom(atom) if positive else f"(not {format_atom(atom)})"


class Unmet(NamedTuple):
    """A part of a condition that is false: a ground literal (``atom`` set) or a larger formula."""

    text: str
    atom: GroundAtom | None
    positive: bool
    formula: Formula
    binding: Binding


def ground_text(formula: Formula, binding: Binding) -> str:
    """A formula on one line with its bound variables replaced by their objects."""
    from plansight.analyses.model.printer import print_formula

    text = " ".join(print_formula(formula).split())
    return _VARIABLE.sub(lambda m: m.group(0) if m.group(0).lower() == DURATION
                         else binding.get(m.group(0).lower(), m.group(0)), text)  # `?duration` stays a name


CallProblem = str
"""A static reason a step cannot even be grounded: ``unknown_action``, ``arity``,
``unknown_object`` or ``type`` (the Embodied Agent Interface's hallucination / grammar errors)."""


@dataclass(frozen=True, slots=True)
class CompiledAction:
    """One action schema, compiled: its parameters, a precondition check and an effect collector."""

    action: Action
    parameters: tuple[str, ...]
    accepted: tuple[Accepted, ...]
    precondition: Check
    collect: Collect
    join_atoms: tuple[tuple[str, tuple[str, ...]], ...]
    """Positive atoms of the precondition's top-level conjunction: candidate bindings are joined
    from the atoms of the state that match them, before any other test (see :meth:`World.applicable`)."""
    literals: tuple[tuple[bool, Callable[[Binding], GroundAtom]], ...] | None
    """The precondition as (positive?, atom template) literals when it is a conjunction of literals
    (equalities aside), so a ground step can test plain set membership; None for other shapes."""
    equalities: tuple[tuple[bool, str, str], ...]
    state_free_effects: bool
    """No conditional effect: what the action adds and deletes depends only on its arguments."""
    updates: UpdateCollect | None = None
    """The action's numeric effects, None when it has none (every classical action)."""

    @property
    def name(self) -> str:
        """The action's lower-case key."""
        return self.action.name.key


@dataclass(frozen=True, slots=True)
class GroundStep:
    """A ground action resolved against a world (see :meth:`World.ground`)."""

    name: str
    args: tuple[str, ...]
    problem: CallProblem | None
    compiled: CompiledAction | None
    binding: dict[str, str]
    positive: tuple[GroundAtom, ...] | None
    """The precondition's positive ground atoms, or None when it is not a plain conjunction of
    literals (then the compiled check decides)."""
    negative: tuple[GroundAtom, ...]
    effects: tuple[tuple[GroundAtom, ...], tuple[GroundAtom, ...]] | None
    """(adds, deletes) when they do not depend on the state."""
    updates: UpdateCollect | None = None
    """The numeric effects (see :meth:`numeric_changes`), None when the action has none."""

    def applicable(self, state: Atoms) -> bool:
        """Whether the step can run in ``state``; a step that could not be grounded never can."""
        if self.compiled is None or self.problem is not None:
            return False
        if self.positive is None:
            return self.compiled.precondition(state, self.binding)
        return all(a in state for a in self.positive) and not any(a in state for a in self.negative)

    def changes(self, state: Atoms) -> tuple[Sequence[GroundAtom], Sequence[GroundAtom]]:
        """(adds, deletes) in ``state``."""
        if self.effects is not None:
            return self.effects
        assert self.compiled is not None
        adds: list[GroundAtom] = []
        deletes: list[GroundAtom] = []
        self.compiled.collect(state, self.binding, adds, deletes)
        return adds, deletes

    def numeric_changes(self, state: Atoms) -> list[Update]:
        """The numeric effects in ``state`` (a numeric world's view), their right-hand sides evaluated
        there; raises :class:`UndefinedValue` when one reads an undefined fluent."""
        out: list[Update] = []
        if self.updates is not None:
            self.updates(state, self.binding, out)
        return out


class World:
    """A domain and a problem, ready to be simulated.

    Build with :meth:`World.build`. ``unsupported`` lists why simulating this pair could give a
    wrong answer (empty when the pair is within the supported fragment).
    """

    def __init__(self, domain: Domain, problem: Problem, vocab: Vocabulary, objects: ObjectTable,
                 unsupported: tuple[str, ...]) -> None:
        self.domain = domain
        self.problem = problem
        self.vocabulary = vocab
        self.objects = objects
        self.unsupported = unsupported
        self.meter = Meter()
        """Charged one unit per quantifier instance expanded; :meth:`metered` swaps in a run's meter so
        that a budget or a cancellation can stop a 4e9-instance ``forall`` in the middle."""
        self._signatures = Signatures(vocab.actions, vocab.types)
        self._typed_lists: dict[Accepted, tuple[str, ...]] = {}
        self._checks: dict[int, tuple[object, Check]] = {}
        self._collectors: dict[int, tuple[object, Collect]] = {}
        self._goal_literals: list[tuple[Formula, str]] | None = None
        self._update_collectors: dict[int, tuple[object, UpdateCollect | None]] = {}
        self.numeric = _reads_or_writes_values(domain, problem)
        """Whether any condition compares values or any effect changes one: then checks read a
        :class:`State` or a :class:`Valued` set, never bare atoms."""
        self._actions: dict[str, CompiledAction] = {}
        self._durative: dict[str, CompiledAction] = {}
        """Durative actions: a plan may name them, but they never take part in :meth:`applicable`'s
        instantaneous successor states (the temporal simulator applies their start and end parts)."""
        self._temporal: bool | None = None
        self._dynamics: dict[str, CompiledAction] = {}
        """PDDL+ processes and events: no plan names them; they act whenever their precondition holds."""
        for key, action in vocab.actions.items():
            if action.kind == "action":
                self._actions[key] = self._compile_action(action)
            elif action.kind == "durative-action":
                self._durative[key] = self._compile_action(action)
            elif action.kind in ("process", "event"):
                self._dynamics[key] = self._compile_action(action)
        self._initial = State(frozenset(_initial_atoms(problem)), _initial_values(problem))
        self._ground: dict[tuple[str, tuple[str, ...]], GroundStep] = {}
        self._fitting: dict[str, dict[str, Container[str]]] = {}
        self.derived = (DerivedRules(domain.derived, self._check, self._typed_pool, lambda: self.meter,
                                     self._unmet_texts) if domain.derived else None)
        """The domain's ``:derived`` rules (analyses/semantics/derived.py), None without any: conditions
        read a state's basic atoms together with the derived atoms their closure adds."""
        self._closures: dict[Hashable, tuple[frozenset[GroundAtom], frozenset[GroundAtom]]] = {}
        """basic atoms (and the values the rules compare) -> (their derived atoms, both together)"""
        if self.derived is not None:  # only the rules decide a derived atom: one listed in :init is not basic
            heads = self.derived.heads
            self._initial = State(frozenset(a for a in self._initial.atoms if a[0] not in heads),
                                  self._initial.values)

    @property
    def temporal(self) -> bool:
        """Whether plans for this pair are temporal: the domain has durative actions or the problem has
        timed initial literals (then the happening sequence, not the step sequence, is simulated)."""
        if self._temporal is None:  # asked once per simulation: a problem with 100,000 facts is read once
            self._temporal = bool(self._durative) or bool(self._dynamics) or any(
                isinstance(fact, TimedLiteral) for fact in self.problem.init)
        return self._temporal

    @property
    def temporal_reason(self) -> str:
        """Why the task is temporal, in a user's words (for analyses that explore instantaneous actions only:
        the state search, the truth tasks): ``the domain has durative actions (`drive`)``."""
        parts = []
        if self._durative:
            parts.append("durative actions (" + ", ".join(f"`{a.action.name.display}`"
                                                          for a in list(self._durative.values())[:3]) + ")")
        if self._dynamics:
            parts.append("PDDL+ processes or events (" + ", ".join(
                f"`{a.action.name.display}`" for a in list(self._dynamics.values())[:3]) + ")")
        reason = "the domain has " + " and ".join(parts) if parts else ""
        if any(isinstance(fact, TimedLiteral) for fact in self.problem.init):
            reason += (" and " if reason else "") + "the problem has timed initial literals"
        return reason

    @classmethod
    def build(cls, domain: Domain, problem: Problem) -> World:
        """A world for ``problem`` in ``domain``, noting the constructs the simulator does not support."""
        vocab = vocabulary(domain)
        typed = vocab.typing or bool(vocab.types)
        objects = ObjectTable(vocab, problem, typed)
        return cls(domain, problem, vocab, objects, unsupported_constructs(domain, problem))

    # --- objects ---------------------------------------------------------------------------------

    @property
    def object_names(self) -> tuple[str, ...]:
        """Every object and constant key, constants first, in declaration order."""
        return self._objects_accepting(None)

    def objects_of_type(self, type_key: str) -> tuple[str, ...]:
        """The objects and constants that may stand where ``type_key`` is declared."""
        from plansight.analyses.model.pddl import TypeRef, name

        return self._objects_accepting(accepted(TypeRef((name(type_key),)), self.vocabulary.types))

    def _typed_pool(self, variable: TypedName) -> tuple[tuple[str, ...], Container[str]]:
        wanted = accepted(variable.type, self.vocabulary.types)
        return self._objects_accepting(wanted), self.objects.fitting(wanted)

    def _objects_accepting(self, wanted: Accepted) -> tuple[str, ...]:
        found = self._typed_lists.get(wanted)
        if found is None:
            fitting = self.objects.fitting(wanted)
            found = tuple(k for k in self.objects.declared if k in fitting)
            self._typed_lists[wanted] = found
        return found

    @contextmanager
    def metered(self, meter: Meter) -> Iterator[Meter]:
        """Charge the quantifiers evaluated inside the block to ``meter`` (the simulator's, the LTL
        evaluation's); the previous meter is back afterwards."""
        previous, self.meter = self.meter, meter
        try:
            yield meter
        finally:
            self.meter = previous

    # --- states ----------------------------------------------------------------------------------

    def initial_state(self) -> State:
        """The problem's initial state."""
        return self._initial

    def holds(self, formula: Formula | None, state: State, binding: Binding | None = None) -> bool:
        """Whether ``formula`` holds in ``state`` with its free variables bound by ``binding``."""
        if formula is None:
            return True
        return self._check(formula)(self.view(state), binding or {})

    def view(self, state: State) -> Atoms:
        """What compiled checks read for ``state``: its atoms in a classical world (set membership at C
        speed), the state itself in a numeric one (atoms and values). With ``:derived`` rules the atoms
        are the basic ones with their closure (in a numeric world wrapped with the state's values)."""
        if self.derived is None:
            return state if self.numeric else state.atoms
        full = self._closure(state.atoms, state.values)[1]
        if not self.numeric:
            return full
        return state if full is state.atoms else State(full, state.values)

    def derived_atoms(self, atoms: Collection[GroundAtom],
                      values: Mapping[GroundTerm, float] | None = None) -> frozenset[GroundAtom]:
        """The derived atoms that hold over the basic ``atoms`` (empty when the domain has no rules);
        rules that compare numbers read ``values``."""
        if self.derived is None:
            return frozenset()
        try:
            return self._closure(atoms, values)[0]
        except UndefinedValue:  # a rule compares a value the state lacks: the step reading it fails
            return frozenset()

    def full_atoms(self, atoms: Collection[GroundAtom],
                   values: Mapping[GroundTerm, float] | None = None) -> Collection[GroundAtom]:
        """The atoms a condition reads: the basic ``atoms`` and, with ``:derived`` rules, their closure
        (bare atoms: a numeric world's checks read :meth:`view`; with rules that compare numbers, the
        atoms carry ``values`` so that an explanation of such a rule reads them)."""
        if self.derived is None:
            return atoms
        try:
            full = self._closure(atoms, values)[1]
        except UndefinedValue:  # a rule compares a value the state lacks: the step reading it fails
            full = atoms if isinstance(atoms, frozenset) else frozenset(atoms)
        return ValuedAtoms(full, values or {}) if self.derived.functions else full

    def _closure(self, atoms: Collection[GroundAtom], values: Mapping[GroundTerm, float] | None = None
                 ) -> tuple[frozenset[GroundAtom], frozenset[GroundAtom]]:
        assert self.derived is not None
        basic = atoms if isinstance(atoms, frozenset) else frozenset(atoms)
        functions = self.derived.functions
        key: Hashable = basic
        if functions:  # the closure depends on the values the rules compare: they are part of the key
            read = values or {}
            key = (basic, tuple(sorted((t, v) for t, v in read.items() if t[0] in functions)))
        found = self._closures.get(key)
        if found is None:
            if len(self._closures) >= CLOSURE_CACHE_SIZE:
                self._closures.clear()
            derived = self.derived.closure(basic, values or {}) if functions else self.derived.closure(basic)
            found = self._closures[key] = (derived, basic | derived if derived else basic)
        return found

    def _check(self, formula: Formula) -> Check:
        return _compiled_once(self._checks, formula, self._compile)

    def goal_literals(self) -> list[tuple[Formula, str]]:
        """The goal's top-level conjuncts, each with its text as written: ``(on a b)``. Preferences are left
        out: they are soft, counted by ``is-violated`` and never make the goal fail.

        Printed once per world: the plan metrics simulate thousands of variants of one plan in the same
        world, and printing the goal for each was a fifth of their simulation time."""
        if self._goal_literals is None:
            self._goal_literals = [(part, ground_text(part, {})) for part in conjuncts(self.problem.goal)
                                  if not _soft(part)]
        return list(self._goal_literals)

    def unmet(self, formula: Formula | None, state: State, binding: Binding | None = None) -> list[Unmet]:
        """Why ``formula`` is false in ``state``: the failing literals of its conjunctions (the first
        failing instance of a ``forall``), each ground; other shapes (``or``, ``exists``) as a whole.
        Empty when the formula holds."""
        out: list[Unmet] = []
        if formula is not None:
            self._unmet(formula, self.view(state), dict(binding or {}), out)
        return out

    def _unmet_texts(self, formula: Formula, atoms: Atoms, binding: Binding) -> list[str]:
        out: list[Unmet] = []
        self._unmet(formula, atoms, dict(binding), out)
        return [unmet.text for unmet in out]

    def _unmet(self, formula: Formula, state: Atoms, binding: dict[str, str], out: list[Unmet]) -> None:
        try:
            if self._check(formula)(state, binding):
                return
        except UndefinedValue:
            pass  # a part reads an undefined fluent: it is among the reasons, and says which value

        if isinstance(formula, And):
            for part in formula.args:
                self._unmet(part, state, binding, out)
            return
        if isinstance(formula, Quantified) and formula.quantifier == "forall":
            names, pools = self._quantified(formula.variables)
            body = self._check(formula.body)
            meter = self.meter
            for values in itertools.product(*pools):
                meter.spend(1)
                inner = {**binding, **dict(zip(names, values, strict=True))}
                try:
                    holds = body(state, inner)
                except UndefinedValue:
                    holds = False
                if not holds:
                    self._unmet(formula.body, state, inner, out)
                    return
        literal = formula.arg if isinstance(formula, Not) else formula
        if isinstance(literal, Atom):
            atom = (literal.predicate.key, *(binding.get(a.key, a.key) for a in literal.args))
            positive = literal is formula
            out.append(Unmet(format_literal(atom, positive), atom, positive, formula, binding))
            return
        out.append(Unmet(ground_text(formula, binding), None, True, formula, binding))

    # --- actions ---------------------------------------------------------------------------------

    def action(self, name: str) -> CompiledAction | None:
        """The compiled action ``name`` (any case), durative or not, or None when the domain has none."""
        key = name.lower()
        return self._actions.get(key) or self._durative.get(key)

    @property
    def actions(self) -> tuple[CompiledAction, ...]:
        """Every compiled instantaneous action, in declaration order."""
        return tuple(self._actions.values())

    @property
    def durative_actions(self) -> tuple[CompiledAction, ...]:
        """Every compiled durative action, in declaration order."""
        return tuple(self._durative.values())

    @property
    def processes_and_events(self) -> tuple[CompiledAction, ...]:
        """Every compiled PDDL+ process and event, in declaration order."""
        return tuple(self._dynamics.values())

    def bindings(self, compiled: CompiledAction) -> Iterator[dict[str, str]]:
        """Every binding of the schema's parameters to objects of fitting types (a process or an event
        is grounded this way: no plan step names its arguments)."""
        pools = [self._objects_accepting(w) for w in compiled.accepted]
        for values in itertools.product(*pools):
            self.meter.spend(1)
            yield dict(zip(compiled.parameters, values, strict=True))

    def check_call(self, name: str, args: Sequence[str]) -> CallProblem | None:
        """Why ``(name args...)`` cannot be grounded, or None when it names an action with the right
        number of declared objects of fitting types."""
        compiled = self.action(name)
        if compiled is None:
            return "unknown_action"
        if len(args) != len(compiled.parameters):
            return "arity"
        ancestry = self.objects.ancestry
        keys = [a.lower() for a in args]
        if any(k not in ancestry for k in keys):
            return "unknown_object"
        if not all(fits(ancestry[k], w) for k, w in zip(keys, compiled.accepted, strict=True)):
            return "type"
        return None

    def ground(self, name: str, args: Sequence[str]) -> GroundStep:
        """The step resolved once per distinct ground action (long plans repeat the same steps):
        its static problem, its binding, its precondition as ground literals and, when no effect is
        conditional, its adds and deletes."""
        key = (name.lower(), tuple(a.lower() for a in args))
        found = self._ground.get(key)
        if found is None:
            if len(self._ground) > GROUND_CACHE_SIZE:
                self._ground.clear()
            found = self._ground[key] = self._resolve(*key)
        return found

    def _resolve(self, name: str, args: tuple[str, ...]) -> GroundStep:
        problem = self.check_call(name, args)
        compiled = self.action(name)
        if problem is not None or compiled is None:
            return GroundStep(name, args, problem, compiled, {}, None, (), None)
        binding = dict(zip(compiled.parameters, args, strict=True))
        positive: tuple[GroundAtom, ...] | None = None
        negative: tuple[GroundAtom, ...] = ()
        if compiled.literals is not None and all(
                (binding.get(left, left) == binding.get(right, right)) == equal
                for equal, left, right in compiled.equalities):
            positive = tuple(template(binding) for sign, template in compiled.literals if sign)
            negative = tuple(template(binding) for sign, template in compiled.literals if not sign)
        effects: tuple[tuple[GroundAtom, ...], tuple[GroundAtom, ...]] | None = None
        if compiled.state_free_effects:
            adds: list[GroundAtom] = []
            deletes: list[GroundAtom] = []
            compiled.collect(frozenset(), binding, adds, deletes)
            effects = (tuple(dict.fromkeys(adds)), tuple(dict.fromkeys(deletes)))
        return GroundStep(name, args, None, compiled, binding, positive, negative, effects, compiled.updates)

    def binding(self, name: str, args: Sequence[str]) -> dict[str, str]:
        """The map from the action's parameters to ``args``; the caller must pass as many arguments as it has
        parameters.
        """
        compiled = self._actions[name.lower()]
        return dict(zip(compiled.parameters, (a.lower() for a in args), strict=True))

    def precondition_holds(self, name: str, args: Sequence[str], state: State) -> bool:
        """Whether action ``name`` with ``args`` is applicable in ``state``."""
        compiled = self._actions[name.lower()]
        return compiled.precondition(self.view(state), self.binding(name, args))

    def effects(self, name: str, args: Sequence[str],
                state: State) -> tuple[list[GroundAtom], list[GroundAtom]]:
        """The (adds, deletes) of the ground action in ``state``; conditions read ``state``."""
        compiled = self._actions[name.lower()]
        adds: list[GroundAtom] = []
        deletes: list[GroundAtom] = []
        compiled.collect(self.view(state), self.binding(name, args), adds, deletes)
        return adds, deletes

    def apply_effect(self, effect: Formula | None, state: State, binding: Binding | None = None) -> State:
        """The state after ``effect`` (any effect formula: an action's, one ``at start`` / ``at end`` part of
        a durative action's, a timed literal's) with its free variables bound by ``binding``. Conditions
        inside it (``when``) read ``state``; deletes go first, then adds.

        Numeric effects read every right-hand side in ``state`` and change the values together (see
        :func:`updated_values`); reading an undefined fluent raises
        :class:`~plansight.analyses.semantics.fluents.UndefinedValue`, assigning one twice
        :class:`ConflictingUpdates`.

        This is the one way a caller outside this module changes a state by an effect that is not a whole
        classical action, so temporal simulation and numeric effects extend the same place."""
        if effect is None:
            return state
        adds: list[GroundAtom] = []
        deletes: list[GroundAtom] = []
        view = self.view(state)
        bound = binding or {}
        self._collector(effect)(view, bound, adds, deletes)
        numeric = self._update_collector(effect)
        if numeric is None:
            return state.apply(adds, deletes)
        updates: list[Update] = []
        numeric(view, bound, updates)
        return state.apply(adds, deletes, updated_values(state.values, updates))

    def effect_updates(self, effect: Formula | None, state: State,
                       binding: Binding | None = None) -> list[Update]:
        """The numeric effects of ``effect`` in ``state``, right-hand sides evaluated there (for a caller
        that applies several effects at one instant and must see their conflicts together)."""
        numeric = self._update_collector(effect) if effect is not None else None
        out: list[Update] = []
        if numeric is not None:
            numeric(self.view(state), binding or {}, out)
        return out

    def _update_collector(self, effect: Formula) -> UpdateCollect | None:
        return _compiled_once(self._update_collectors, effect, self._compile_updates)

    def _collector(self, effect: Formula) -> Collect:
        return _compiled_once(self._collectors, effect, self._compile_effect)

    def apply(self, action_name: str, args: Sequence[str], state: State) -> State:
        """The state after the step: deletes first, then adds (an atom both deleted and added holds).
        The precondition is not checked: that is :meth:`precondition_holds`."""
        step = self.ground(action_name, args)
        view = self.view(state)
        adds, deletes = step.changes(view)
        if step.updates is None:
            return state.apply(adds, deletes)
        return state.apply(adds, deletes, updated_values(state.values, step.numeric_changes(view)))

    def applicable(self, state: State) -> Iterator[GroundAction]:
        """Every ground action whose precondition holds in ``state``.

        Bindings are built by joining the precondition's top-level positive atoms with the state's
        atoms of the same predicate (so only parameters the state can satisfy are tried), then the
        remaining parameters range over the objects of their types, then the whole precondition is
        checked.
        """
        atoms = self._closure(state.atoms, state.values)[1] if self.derived is not None else state.atoms
        view = self.view(state)  # derived atoms join parameters like basic ones
        by_predicate: dict[str, list[GroundAtom]] = {}
        for atom in atoms:
            by_predicate.setdefault(atom[0], []).append(atom)
        for compiled in self._actions.values():
            for binding in self._joined(compiled, atoms, by_predicate):
                try:
                    holds = compiled.precondition(view, binding)
                except UndefinedValue:
                    holds = False  # it reads an undefined fluent: VAL would stop there, so it never applies
                if holds:
                    yield GroundAction(compiled.name, tuple(binding[p] for p in compiled.parameters))

    def _joined(self, compiled: CompiledAction, state: Atoms,
                by_predicate: Mapping[str, list[GroundAtom]]) -> Iterator[dict[str, str]]:
        fitting = self._fitting.get(compiled.name)
        if fitting is None:
            pairs = zip(compiled.parameters, compiled.accepted, strict=True)
            fitting = self._fitting[compiled.name] = {p: self.objects.fitting(w) for p, w in pairs}
        atoms = compiled.join_atoms

        def join(index: int, binding: dict[str, str]) -> Iterator[dict[str, str]]:
            if index == len(atoms):
                yield from self._completed(compiled, binding)
                return
            predicate, terms = atoms[index]
            if all(t[0] != "?" or t in binding for t in terms):  # nothing to bind: one membership test
                if (predicate, *(binding.get(t, t) for t in terms)) in state:
                    yield from join(index + 1, binding)
                return
            for atom in by_predicate.get(predicate, ()):
                if len(atom) != len(terms) + 1:
                    continue
                extended = binding
                for term, value in zip(terms, atom[1:], strict=True):
                    if term[0] == "?":
                        bound = extended.get(term)
                        if bound is None:
                            allowed = fitting.get(term)
                            if allowed is None or value not in allowed:
                                break
                            if extended is binding:
                                extended = dict(binding)
                            extended[term] = value
                        elif bound != value:
                            break
                    elif term != value:
                        break
                else:
                    yield from join(index + 1, extended)

        yield from join(0, {})

    def _completed(self, compiled: CompiledAction, binding: dict[str, str]) -> Iterator[dict[str, str]]:
        free = [(p, w) for p, w in zip(compiled.parameters, compiled.accepted, strict=True)
                if p not in binding]
        if not free:
            yield binding
            return
        pools = [self._objects_accepting(w) for _, w in free]
        names = [p for p, _ in free]
        meter = self.meter
        for values in itertools.product(*pools):
            meter.spend(1)  # an action with 6 free parameters over 40 objects has 4.1e9 bindings
            full = dict(binding)
            full.update(zip(names, values, strict=True))
            yield full

    # --- compilation -----------------------------------------------------------------------------

    def _compile_action(self, action: Action) -> CompiledAction:
        signature = self._signatures.get(action.name.key)
        assert signature is not None
        parameters, wanted = signature
        join_atoms = _join_order([
            (part.predicate.key, tuple(a.key for a in part.args))
            for part in conjuncts(action.precondition)
            if isinstance(part, Atom)
        ])
        return CompiledAction(
            action,
            tuple(p.name.key for p in parameters),
            wanted,
            self._compile(action.precondition) if action.precondition is not None else _always,
            self._compile_effect(action.effect),
            join_atoms,
            *_literal_precondition(action.precondition),
            not any(isinstance(node, When) for node in walk(action.effect)),
            self._compile_updates(action.effect) if action.effect is not None else None,
        )

    def _compile(self, formula: Formula) -> Check:
        if isinstance(formula, Atom):
            return _atom_check(formula)
        if isinstance(formula, Not):
            inner = self._compile(formula.arg)
            return lambda s, b: not inner(s, b)
        if isinstance(formula, And):
            parts = tuple(self._compile(f) for f in formula.args)
            if len(parts) == 1:
                return parts[0]
            return lambda s, b: all(p(s, b) for p in parts)
        if isinstance(formula, Or):
            options = tuple(self._compile(f) for f in formula.args)
            return lambda s, b: any(p(s, b) for p in options)
        if isinstance(formula, Imply):
            condition, consequence = self._compile(formula.condition), self._compile(formula.consequence)
            return lambda s, b: not condition(s, b) or consequence(s, b)
        if isinstance(formula, Equality):
            left, right = formula.left.key, formula.right.key
            return lambda s, b: b.get(left, left) == b.get(right, right)
        if isinstance(formula, Quantified):
            body = self._compile(formula.body)
            names, pools = self._quantified(formula.variables)
            every = formula.quantifier == "forall"
            kind, instances = formula.quantifier, math.prod(len(p) for p in pools)

            def quantified(s: Atoms, b: Binding) -> bool:
                inner = dict(b)
                meter = self.meter
                count = 0
                try:
                    for values in itertools.product(*pools):
                        count += 1
                        if count == SPEND_EVERY:
                            meter.spend(count)
                            count = 0
                        inner.update(zip(names, values, strict=True))
                        if body(s, inner) != every:
                            meter.spend(count)
                            return not every
                    meter.spend(count)
                except BudgetExceeded as exceeded:
                    exceeded.within(kind, len(names), instances)
                    raise
                return every

            return quantified
        if isinstance(formula, Preference):
            return _always  # soft, never failing a step or goal: analyses/plans/constraints.py counts it
        if isinstance(formula, TimeSpecified):
            return self._compile(formula.body)
        if isinstance(formula, Comparison):
            op, lhs, rhs = formula.op, formula.left, formula.right

            def comparison(s: Atoms, b: Binding) -> bool:
                values = s if isinstance(s, _VALUED) else EMPTY  # bare atoms: no values
                return compare(op, evaluate(lhs, b, values), evaluate(rhs, b, values))

            return comparison
        # PDDL3 modalities: judged by analyses/plans/constraints.py, never as a state formula
        return _never

    def instances(self, variables: Sequence[TypedName], binding: Binding) -> Iterator[dict[str, str]]:
        """``binding`` extended by each assignment of objects to ``variables`` (typed as declared): the
        instances of a ``forall`` whose body is not a state formula, such as a trajectory constraint or a
        preference, which the caller evaluates one by one."""
        names, pools = self._quantified(tuple(variables))
        for values in itertools.product(*pools):
            self.meter.spend(1)
            yield {**binding, **dict(zip(names, values, strict=True))}

    def _quantified(self, variables: tuple[TypedName, ...]) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
        names = tuple(v.name.key for v in variables)
        pools = [self._objects_accepting(accepted(v.type, self.vocabulary.types)) for v in variables]
        return names, pools

    def _compile_effect(self, effect: Formula | None) -> Collect:
        if effect is None:
            return _no_effect
        if isinstance(effect, And):
            parts = tuple(self._compile_effect(f) for f in effect.args)
            simple_adds = tuple(_ground_template(p) for p in effect.args if isinstance(p, Atom))
            simple_deletes = tuple(
                _ground_template(p.arg) for p in effect.args
                if isinstance(p, Not) and isinstance(p.arg, Atom))
            others = tuple(
                part for part, f in zip(parts, effect.args, strict=True)
                if not isinstance(f, Atom) and not (isinstance(f, Not) and isinstance(f.arg, Atom)))

            def collect_all(s: Atoms, b: Binding, adds: list[GroundAtom],
                            deletes: list[GroundAtom]) -> None:
                for ground in simple_adds:
                    adds.append(ground(b))
                for ground in simple_deletes:
                    deletes.append(ground(b))
                for part in others:
                    part(s, b, adds, deletes)

            return collect_all
        if isinstance(effect, Atom):
            ground_add = _ground_template(effect)
            return lambda s, b, adds, deletes: adds.append(ground_add(b))
        if isinstance(effect, Not) and isinstance(effect.arg, Atom):
            ground_delete = _ground_template(effect.arg)
            return lambda s, b, adds, deletes: deletes.append(ground_delete(b))
        if isinstance(effect, When):
            condition = self._compile(effect.condition)
            then = self._compile_effect(effect.effect)

            def conditional(s: Atoms, b: Binding, adds: list[GroundAtom],
                            deletes: list[GroundAtom]) -> None:
                if condition(s, b):
                    then(s, b, adds, deletes)

            return conditional
        if isinstance(effect, Quantified):
            body = self._compile_effect(effect.body)
            names, pools = self._quantified(effect.variables)
            instances = math.prod(len(p) for p in pools)

            def every(s: Atoms, b: Binding, adds: list[GroundAtom], deletes: list[GroundAtom]) -> None:
                inner = dict(b)
                meter = self.meter
                count = 0
                try:
                    for values in itertools.product(*pools):
                        count += 1
                        if count == SPEND_EVERY:
                            meter.spend(count)
                            count = 0
                        inner.update(zip(names, values, strict=True))
                        body(s, inner, adds, deletes)
                    meter.spend(count)
                except BudgetExceeded as exceeded:
                    exceeded.within("forall", len(names), instances)
                    raise

            return every
        if isinstance(effect, TimeSpecified):
            return self._compile_effect(effect.body)
        return _no_effect  # numeric effects (see _compile_updates) or constructs listed in `unsupported`

    def _compile_updates(self, effect: Formula) -> UpdateCollect | None:
        """The numeric effects of ``effect`` as a collector of ground updates, None when it has none (so
        a classical action pays nothing for them)."""
        if not any(isinstance(node, NumericEffect) for node in walk(effect)):
            return None
        if isinstance(effect, NumericEffect):
            op, target, value = effect.op, effect.target, effect.value

            def update(s: Atoms, b: Binding, out: list[Update]) -> None:
                values = s if isinstance(s, _VALUED) else EMPTY
                out.append((ground_term(target, b), op, evaluate(value, b, values)))

            return update
        if isinstance(effect, And):
            parts = tuple(p for p in (self._compile_updates(f) for f in effect.args) if p is not None)

            def every_part(s: Atoms, b: Binding, out: list[Update]) -> None:
                for part in parts:
                    part(s, b, out)

            return every_part
        if isinstance(effect, When):
            condition = self._compile(effect.condition)
            then = self._compile_updates(effect.effect)
            assert then is not None

            def conditional(s: Atoms, b: Binding, out: list[Update]) -> None:
                if condition(s, b):
                    then(s, b, out)

            return conditional
        if isinstance(effect, Quantified):
            body = self._compile_updates(effect.body)
            assert body is not None
            names, pools = self._quantified(effect.variables)

            def for_each(s: Atoms, b: Binding, out: list[Update]) -> None:
                inner = dict(b)
                meter = self.meter
                for values in itertools.product(*pools):
                    meter.spend(1)
                    inner.update(zip(names, values, strict=True))
                    body(s, inner, out)

            return for_each
        if isinstance(effect, TimeSpecified):
            return self._compile_updates(effect.body)
        return None  # a numeric effect somewhere this simulator does not reach (listed in `unsupported`)


def _soft(formula: Formula) -> bool:
    """A preference, or a ``forall`` over preferences."""
    while isinstance(formula, Quantified) and formula.quantifier == "forall":
        formula = formula.body
    if isinstance(formula, And):
        return bool(formula.args) and all(_soft(part) for part in formula.args)
    return isinstance(formula, Preference)


_Compiled = TypeVar("_Compiled")


def _compiled_once(cache: dict[int, tuple[object, _Compiled]], formula: Formula,
                   compile_formula: Callable[[Formula], _Compiled]) -> _Compiled:
    """``compile_formula(formula)``, computed once per formula object: the world's checks and effect
    collectors are keyed by the formula's id, and the entry keeps the formula alive so its id stays
    unique."""
    cached = cache.get(id(formula))
    if cached is None:
        cached = cache[id(formula)] = (formula, compile_formula(formula))
    return cached[1]


def _always(state: Atoms, binding: Binding) -> bool:
    return True


def _never(state: Atoms, binding: Binding) -> bool:
    return False


def _no_effect(state: Atoms, binding: Binding, adds: list[GroundAtom], deletes: list[GroundAtom]) -> None:
    return None


def _ground_template(atom: Atom) -> Callable[[Binding], GroundAtom]:
    """A function from a binding to the ground atom; variables are looked up, constants kept
    (``b.get(k, k)``: a constant's key never starts with ``?``, so it is never bound)."""
    predicate = atom.predicate.key
    keys = tuple(a.key for a in atom.args)
    if not any(k.startswith("?") for k in keys):
        ground = (predicate, *keys)
        return lambda b: ground
    if len(keys) == 1:
        (key,) = keys
        return lambda b: (predicate, b.get(key, key))
    return lambda b: (predicate, *map(b.get, keys, keys))


def _atom_check(atom: Atom) -> Check:
    predicate = atom.predicate.key
    keys = tuple(a.key for a in atom.args)
    if not any(k.startswith("?") for k in keys):
        ground = (predicate, *keys)
        return lambda s, b: ground in s
    if len(keys) == 1:
        (key,) = keys
        return lambda s, b: (predicate, b.get(key, key)) in s
    if len(keys) == 2:
        first, second = keys
        return lambda s, b: (predicate, b.get(first, first), b.get(second, second)) in s
    return lambda s, b: (predicate, *map(b.get, keys, keys)) in s


def _join_order(atoms: list[tuple[str, tuple[str, ...]]]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Atoms without variables first (one membership test each), then each next atom the one sharing
    the most variables with those already joined, so later atoms filter instead of multiplying."""
    ordered: list[tuple[str, tuple[str, ...]]] = []
    bound: set[str] = set()
    remaining = list(atoms)
    while remaining:
        def rank(atom: tuple[str, tuple[str, ...]]) -> tuple[int, int]:
            variables = {t for t in atom[1] if t.startswith("?")}
            return (len(variables - bound), -len(variables & bound))

        best = min(remaining, key=rank)
        remaining.remove(best)
        ordered.append(best)
        bound.update(t for t in best[1] if t.startswith("?"))
    return tuple(ordered)


def _literal_precondition(precondition: Formula | None) -> tuple[
        tuple[tuple[bool, Callable[[Binding], GroundAtom]], ...] | None, tuple[tuple[bool, str, str], ...]]:
    """A conjunction of literals as atom templates and (equal?, left, right) tests; (None, ())
    for any other shape."""
    literals: list[tuple[bool, Callable[[Binding], GroundAtom]]] = []
    equalities: list[tuple[bool, str, str]] = []
    for part in conjuncts(precondition):
        positive = not isinstance(part, Not)
        inner = part.arg if isinstance(part, Not) else part
        if isinstance(inner, Atom):
            literals.append((positive, _ground_template(inner)))
        elif isinstance(inner, Equality):
            equalities.append((positive, inner.left.key, inner.right.key))
        else:
            return None, ()
    return tuple(literals), tuple(equalities)


def _initial_atoms(problem: Problem) -> Iterator[GroundAtom]:
    for fact in problem.init:
        if isinstance(fact, Atom):
            yield (fact.predicate.key, *(a.key for a in fact.args))


def _initial_values(problem: Problem) -> dict[GroundTerm, float]:
    """``(= (fuel t1) 10)`` facts of ``:init``; a later fact for the same term wins, as in VAL."""
    values: dict[GroundTerm, float] = {}
    for fact in problem.init:
        if isinstance(fact, Comparison) and fact.op == "=" and isinstance(fact.left, FunctionTerm):
            try:
                values[ground_term(fact.left, {})] = evaluate(fact.right, {}, EMPTY)
            except UndefinedValue:
                continue  # not a number (an object fluent's value): nothing a numeric check can read
    return values


def numeric_beyond_costs(domain: Domain, problem: Problem) -> list[str]:
    """Where the pair uses numbers beyond action costs (a comparison anywhere, a numeric effect other than
    ``increase (total-cost)``): the places a classical planner (Fast Downward) cannot plan with and a
    state search cannot forget values in; empty for a classical or action-cost task."""
    places: dict[str, None] = {}
    for action in domain.actions:
        for formula in (action.precondition, action.effect):
            for node in walk(formula):
                if isinstance(node, Comparison) or (isinstance(node, NumericEffect) and not (
                        node.op == "increase" and ground_term(node.target, {}) in COST_TERMS)):
                    places.setdefault(f"`{action.name.display}`", None)
    if any(isinstance(node, Comparison) for node in walk(problem.goal)):
        places.setdefault("the goal", None)
    return list(places)


def _reads_or_writes_values(domain: Domain, problem: Problem) -> bool:
    for action in domain.actions:
        for formula in (action.precondition, action.effect):
            if any(isinstance(node, (Comparison, NumericEffect)) for node in walk(formula)):
                return True
    if any(isinstance(node, Comparison) for rule in domain.derived for node in walk(rule.body)):
        return True
    return any(isinstance(node, Comparison) for node in walk(problem.goal))


def unsupported_constructs(domain: Domain, problem: Problem) -> tuple[str, ...]:
    """Why simulating this pair could be wrong, in words a user understands; empty when it is fine.
    One reason per kind of construct, naming where it occurs (at most three places)."""
    found: dict[str, dict[str, None]] = {}
    flowing = _flowing_functions(domain)

    def add(kind: str, where: str) -> None:
        found.setdefault(kind, {}).setdefault(where, None)

    for action in domain.actions:
        name = f"`{action.name.display}`"
        if action.kind == "durative-action":
            _durative_reasons(action, name, add, flowing)
            continue
        if action.kind in ("process", "event"):
            _dynamics_reasons(action, name, add, flowing)
            continue
        if action.observe is not None:
            add("sensing actions (`:observe`)", name)
        if action.variables:
            add("PDDL 1.2 `:vars` (variables the planner binds)", name)
        for node in walk(action.precondition):
            _condition_reason(node, name, add)
        _nested_preferences(action.precondition, name, add)
        for node in walk(action.effect):
            if isinstance(node, Modal):
                add(f"non-deterministic effects (`{node.op}`)", name)
            elif isinstance(node, When):
                for inner in walk(node.condition):
                    _condition_reason(inner, name, add)
                    if isinstance(inner, Preference):
                        add("preferences in conditional effects", name)
    for function in domain.functions:
        if function.type is not None and [n.key for n in function.type.names] != ["number"]:
            add("object fluents", f"`{function.name.display}`")
    for rule in domain.derived:  # a rule's body is a condition like any other
        where = f"`{rule.head.name.display}`"
        for node in walk(rule.body):
            _condition_reason(node, where, add)
    for owner, constraints in (("the domain", domain.constraints), ("the problem", problem.constraints)):
        _constraint_reasons(constraints, owner, add)
    for fact in problem.init:
        if isinstance(fact, TimedLiteral):
            for node in walk(fact.body):
                if isinstance(node, (Comparison, NumericEffect)):
                    add("numeric timed initial literals", "the problem")
    for node in walk(problem.goal):
        _condition_reason(node, "the goal", add)
    _nested_preferences(problem.goal, "the goal", add)
    reasons = []
    for kind, places in found.items():
        listed = list(places)
        where = ", ".join(listed[:3]) + (f" and {len(listed) - 3} more" if len(listed) > 3 else "")
        intro = _KIND_INTRO.get(kind)
        reasons.append(f"{intro} {kind} ({where})" if intro else f"there are {kind} (in {where})")
    reasons.extend(derived_reasons(domain))
    return tuple(reasons)


_KIND_INTRO = {
    "durative actions": "the domain has",
    "processes whose effects are not linear rates": "the domain has",
    "events with continuous effects": "the domain has",
    "sensing actions (`:observe`)": "the domain has",
    "PDDL 1.2 `:vars` (variables the planner binds)": "the domain has",
    "object fluents": "the domain has",
    "non-linear continuous effects (a rate reads a fluent that changes continuously)": "the domain has",
    "continuous effects under `when` read after the start or inside `forall`": "the domain has",
}


TRAJECTORY_SHAPES = {
    "always": (0, 1), "sometime": (0, 1), "at-most-once": (0, 1), "within": (1, 1), "hold-after": (1, 1),
    "hold-during": (2, 1), "sometime-after": (0, 2), "sometime-before": (0, 2), "always-within": (1, 2),
}
"""PDDL3's trajectory operators: how many numbers (times) and conditions each takes."""
TRAJECTORY_MODALS = frozenset(TRAJECTORY_SHAPES)


def _constraint_reasons(formula: Formula | None, where: str, add: Callable[[str, str], None]) -> None:
    """What in ``:constraints`` analyses/plans/constraints.py cannot evaluate: anything but ``and``,
    ``forall`` and ``preference`` above PDDL3's operators, and operators nested inside operators."""
    if formula is None:
        return
    if isinstance(formula, And):
        for part in formula.args:
            _constraint_reasons(part, where, add)
        return
    if isinstance(formula, Quantified) and formula.quantifier == "forall":
        _constraint_reasons(formula.body, where, add)
        return
    if isinstance(formula, Preference) and not isinstance(formula.body, Preference):
        _constraint_reasons(formula.body, where, add)
        return
    if isinstance(formula, Modal) and formula.op in TRAJECTORY_MODALS:
        if (len(formula.numbers), len(formula.args)) != TRAJECTORY_SHAPES[formula.op]:
            add(f"`{formula.op}` with the wrong number of times or conditions", where)
            return
        bodies: tuple[Formula, ...] = formula.args
    elif isinstance(formula, TimeSpecified) and formula.when == "end":
        bodies = (formula.body,)
    else:
        add("trajectory constraints outside PDDL3's operators", where)
        return
    for body in bodies:
        for node in walk(body):
            if isinstance(node, (Modal, TimeSpecified, Preference)):
                add("nested trajectory constraints", where)
            else:
                _condition_reason(node, where, add)


def _nested_preferences(formula: Formula | None, where: str, add: Callable[[str, str], None]) -> None:
    """Preferences are counted where they stand in a conjunction (or a ``forall`` of one); one under
    ``or``, ``not``, ``imply`` or ``exists`` has no meaning plansight could give it."""
    stack: list[tuple[Formula, bool]] = [(formula, True)] if formula is not None else []
    while stack:
        node, conjunctive = stack.pop()
        if isinstance(node, Preference):
            if not conjunctive:
                add("preferences inside `or`, `not`, `imply` or `exists`", where)
            continue
        inside = conjunctive and (isinstance(node, And) or (
            isinstance(node, Quantified) and node.quantifier == "forall"))
        stack.extend((child, inside) for child in children(node))


def _flowing_functions(domain: Domain) -> frozenset[str]:
    """The functions some durative action or process changes continuously (``(increase (f) (* #t e))``)."""
    return frozenset(
        node.target.function.key for action in domain.actions if action.kind in ("durative-action", "process")
        for node in walk(action.effect) if isinstance(node, NumericEffect)
        and any(isinstance(term, Name) and term.key == "#t" for term in numeric_terms(node.value)))


def _dynamics_reasons(action: Action, where: str, add: Callable[[str, str], None],
                      flowing: frozenset[str]) -> None:
    """What a PDDL+ process or event uses beyond linear dynamics (analyses/plans/processes.py): a process
    changes fluents at constant rates (``(increase (f) (* #t e))`` directly in its effect, ``e`` reading no
    flowing fluent); an event changes the state at once, like an action."""
    for node in walk(action.precondition):
        _condition_reason(node, where, add)
    if action.kind == "process":
        for part in conjuncts(action.effect):
            if not (isinstance(part, NumericEffect) and _linear_rate(part, flowing)):
                add("processes whose effects are not linear rates", where)
        return
    for node in walk(action.effect):
        if isinstance(node, NumericEffect) and any(
                isinstance(term, Name) and term.key == "#t" for term in numeric_terms(node.value)):
            add("events with continuous effects", where)
        elif isinstance(node, Modal):
            add(f"non-deterministic effects (`{node.op}`)", where)


def _linear_rate(effect: NumericEffect, flowing: frozenset[str]) -> bool:
    """``(* #t e)`` (or ``#t`` alone) where ``e`` reads no continuously changing fluent, directly under the
    top-level conjunction: a rate that stays constant between two happenings (PDDL 2.1 level 4, linear)."""
    value = effect.value
    if effect.op not in ("increase", "decrease"):
        return False
    if isinstance(value, Name):
        return value.key == "#t"
    if not isinstance(value, Arithmetic) or value.op != "*":
        return False
    times = [a for a in value.args if isinstance(a, Name) and a.key == "#t"]
    rest = [a for a in value.args if not (isinstance(a, Name) and a.key == "#t")]
    return len(times) == 1 and not any(
        (isinstance(term, FunctionTerm) and term.function.key in flowing)
        or (isinstance(term, Name) and term.key == "#t")
        for part in rest for term in numeric_terms(part))


def _durative_reasons(action: Action, where: str, add: Callable[[str, str], None],
                      flowing: frozenset[str] = frozenset()) -> None:
    """What a durative action uses beyond PDDL 2.1 level 3 with discrete numeric effects (its time
    specifiers, duration constraint and ``at start`` / ``at end`` numeric effects are simulated:
    analyses/plans/temporal.py)."""
    for node in walk(action.precondition):
        if not isinstance(node, TimeSpecified):
            _condition_reason(node, where, add)
    for node in walk(action.effect):
        if isinstance(node, NumericEffect):
            names = {term.key for term in numeric_terms(node.value) if isinstance(term, Name)}
            if "#t" in names:
                if not any(node is part for part in _forall_conjuncts(action.effect)) and not any(
                        node is inner for part in conjuncts(action.effect)
                        if isinstance(part, When) and starts_only(part.condition)
                        for inner in conjuncts(part.effect)):
                    add("continuous effects under `when` read after the start or inside `forall`", where)
                elif not _linear_rate(node, flowing):
                    add("non-linear continuous effects (a rate reads a fluent that changes continuously)",
                        where)
        elif isinstance(node, Modal):
            add(f"non-deterministic effects (`{node.op}`)", where)
        elif isinstance(node, When):
            for inner in walk(node.condition):
                if not isinstance(inner, TimeSpecified):
                    _condition_reason(inner, where, add)
    for part in conjuncts(action.duration):
        if not isinstance(part.body if isinstance(part, TimeSpecified) else part, Comparison):
            add("duration constraints other than comparisons", where)


def _forall_conjuncts(effect: Formula | None) -> Iterator[Formula]:
    """The parts of an effect's conjunction, looking through ``forall`` (whose continuous effects the
    temporal simulator grounds per instance) but not ``when``."""
    for part in conjuncts(effect):
        if isinstance(part, Quantified) and part.quantifier == "forall":
            yield from _forall_conjuncts(part.body)
        else:
            yield part


def starts_only(condition: Formula) -> bool:
    """Whether every part of a conditional effect's condition is ``at start`` (the temporal simulator reads
    it once, as the action starts, and keeps a continuous effect's rate to the end, as VAL does)."""
    return all(isinstance(part, TimeSpecified) and part.when == "start" for part in conjuncts(condition))


def _condition_reason(node: Formula, where: str, add: Callable[[str, str], None]) -> None:
    if isinstance(node, Preference):
        return  # soft: counted by analyses/plans/constraints.py
    elif isinstance(node, Modal):
        add(f"`{node.op}`", where)
    elif isinstance(node, TimeSpecified):
        add("time specifiers outside durative actions", where)
