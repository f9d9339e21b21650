"""The immutable model of PDDL domains, problems and plans.

Every node is a frozen, slotted dataclass whose ``span`` is excluded from equality and hashing: two
files that mean the same thing (different layout, comments, letter case) compare equal, which is what
the round-trip tests and the equivalence analyses rely on. Names compare by their lower-cased ``key``
because PDDL names are case-insensitive; ``text`` keeps the spelling the user wrote for messages and
edits.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from plansight.analyses.diagnostics.spans import NO_SPAN, Span
from plansight.analyses.model.deferred import deferrable


@dataclass(frozen=True, slots=True)
class Name:
    """An identifier: a name (``block``), a variable (``?x``) or a requirement (``:typing``)."""

    key: str
    text: str = field(default="", compare=False, hash=False)
    span: Span = field(default=NO_SPAN, compare=False, hash=False)

    @property
    def is_variable(self) -> bool:
        """Whether this is a variable (``?x``) rather than a name."""
        return self.key.startswith("?")

    @property
    def display(self) -> str:
        """The spelling to show users: as written when known, the lower-case key otherwise."""
        return self.text or self.key

    def __str__(self) -> str:
        return self.display


def name(text: str, span: Span = NO_SPAN) -> Name:
    """A Name from text: PDDL is case-insensitive, so the key is lower case while the text keeps the user's
    spelling.
    """
    return Name(text.lower(), text, span)


@dataclass(frozen=True, slots=True)
class TypeRef:
    """The type after ``-`` in a typed list: one name, or ``(either ...)`` with several."""

    names: tuple[Name, ...]
    span: Span = field(default=NO_SPAN, compare=False, hash=False)

    @property
    def is_either(self) -> bool:
        """Whether this is an ``(either ...)`` union rather than a single type."""
        return len(self.names) != 1


@dataclass(frozen=True, slots=True)
class TypedName:
    """A name in a typed list; ``type`` is None when the list gave it no type (implicitly ``object``)."""

    name: Name
    type: TypeRef | None = None
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


# --- numeric expressions ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Number:
    """A numeric literal; ``text`` keeps the spelling so printing does not turn ``1`` into ``1.0``."""

    value: float
    text: str = field(default="", compare=False, hash=False)
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class FunctionTerm:
    """``(f a b)`` in a numeric expression, or ``(f)``; also a bare 0-ary function name."""

    function: Name
    args: tuple[Name, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Arithmetic:
    """An arithmetic expression over numeric fluents and numbers."""

    op: str  # + - * /
    args: tuple[NumericExpr, ...]
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


NumericExpr = Number | FunctionTerm | Arithmetic | Name
"""A ``Name`` here is a variable (``?duration``, a numeric parameter) or ``#t``."""


# --- goal descriptions (conditions) ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Atom:
    """A predicate applied to names or variables, the basic condition and effect."""

    predicate: Name
    args: tuple[Name, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Equality:
    """``(= a b)`` between two objects or variables, kept apart from numeric comparison because it needs
    ``:equality`` and no fluents.
    """

    left: Name
    right: Name
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Not:
    """A negated formula (a delete effect when it appears in an effect)."""

    arg: Formula
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class And:
    """A conjunction; the empty conjunction stands for ``()``, which is always true."""

    args: tuple[Formula, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Or:
    """A disjunction (needs ``:disjunctive-preconditions``)."""

    args: tuple[Formula, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Imply:
    """An implication (needs ``:disjunctive-preconditions``)."""

    condition: Formula
    consequence: Formula
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Quantified:
    """An ``exists`` or ``forall`` over typed variables."""

    quantifier: str  # "exists" | "forall"
    variables: tuple[TypedName, ...]
    body: Formula
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Comparison:
    """A numeric comparison between expressions (needs ``:numeric-fluents``)."""

    op: str  # < <= = >= >
    left: NumericExpr
    right: NumericExpr
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Preference:
    """A soft goal or constraint, optionally named so the metric can refer to it."""

    name: Name | None
    body: Formula
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class TimeSpecified:
    """``(at start F)``, ``(at end F)``, ``(over all F)``; in effects as well as conditions."""

    when: str  # "start" | "end" | "all"
    body: Formula
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class TimedLiteral:
    """``(at 10 F)``: a timed initial literal in ``:init``."""

    time: Number
    body: Formula
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Modal:
    """An operator with fixed-shape arguments: PDDL3's trajectory constraints (``always``,
    ``within`` ...), and the non-deterministic / contingent extensions ``oneof`` and ``unknown``."""

    op: str
    numbers: tuple[Number, ...]
    args: tuple[Formula, ...]
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


# --- effects --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class When:
    """A conditional effect."""

    condition: Formula
    effect: Formula
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class NumericEffect:
    """An effect that changes a numeric fluent."""

    op: str  # assign increase decrease scale-up scale-down
    target: FunctionTerm
    value: NumericExpr
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


Formula = (
    Atom
    | Equality
    | Not
    | And
    | Or
    | Imply
    | Quantified
    | Comparison
    | Preference
    | TimeSpecified
    | TimedLiteral
    | Modal
    | When
    | NumericEffect
)
"""Conditions and effects share node types: ``(and ...)``, ``(not ...)``, ``forall`` and the time
specifiers have the same shape in both, and the grammar accepts the union so that a construct in the
wrong place gets a precise semantic diagnostic instead of a bare syntax error."""


def children(formula: Formula) -> tuple[Formula, ...]:
    """The sub-formulas of a node (not its terms)."""
    if isinstance(formula, (And, Or, Modal)):
        return formula.args
    if isinstance(formula, (Not,)):
        return (formula.arg,)
    if isinstance(formula, Imply):
        return (formula.condition, formula.consequence)
    if isinstance(formula, (Quantified, Preference, TimeSpecified, TimedLiteral)):
        return (formula.body,)
    if isinstance(formula, When):
        return (formula.condition, formula.effect)
    return ()


def walk(formula: Formula | None) -> Iterator[Formula]:
    """Every node of a formula, parents before children."""
    if formula is None:
        return
    stack = [formula]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def conjuncts(formula: Formula | None) -> list[Formula]:
    """The parts of a (nested) top-level conjunction; the formula itself when it is not one."""
    if formula is None:
        return []
    out: list[Formula] = []
    stack = [formula]
    while stack:
        node = stack.pop()
        if isinstance(node, And):
            stack.extend(reversed(node.args))
        else:
            out.append(node)
    return out


def numeric_terms(expr: NumericExpr) -> Iterator[NumericExpr]:
    """Every node of a numeric expression, parents before children, without recursion."""
    stack: list[NumericExpr] = [expr]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, Arithmetic):
            stack.extend(reversed(node.args))


# --- declarations ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TypeDecl:
    """One declared type and its parent type, if any."""

    name: Name
    parent: TypeRef | None = None
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class PredicateDecl:
    """A predicate's declaration: its name and typed parameters."""

    name: Name
    parameters: tuple[TypedName, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class FunctionDecl:
    """A numeric or object fluent's declaration."""

    name: Name
    parameters: tuple[TypedName, ...] = ()
    type: TypeRef | None = None  # None: number
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Action:
    """An action schema: ``:action``, ``:durative-action``, or PDDL+'s ``:process`` / ``:event``.

    For a durative action ``precondition`` holds the ``:condition`` and ``duration`` the duration
    constraint. ``sections`` lists the section keywords in the order written, for duplicate and
    missing-section checks. ``variables`` are PDDL 1.2's ``:vars``: in scope in the whole action like
    parameters, but bound by the planner, so a plan step does not list them.
    """

    name: Name
    parameters: tuple[TypedName, ...] = ()
    precondition: Formula | None = None
    effect: Formula | None = None
    kind: str = "action"  # action | durative-action | process | event
    duration: Formula | None = None
    observe: Formula | None = None  # contingent planning's sensing actions
    sections: tuple[Name, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, hash=False)
    variables: tuple[TypedName, ...] = ()

    @property
    def durative(self) -> bool:
        """Whether this is a ``:durative-action``, whose conditions and effects are time-annotated."""
        return self.kind == "durative-action"


@dataclass(frozen=True, slots=True)
class DerivedPredicate:
    """An axiom: the head predicate holds whenever the body does."""

    head: PredicateDecl
    body: Formula
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Domain:
    """A parsed domain file; ``sections`` lists the section keywords as written so checks can report misplaced
    or repeated sections.
    """

    name: Name
    requirements: tuple[Name, ...] = ()
    types: tuple[TypeDecl, ...] = ()
    constants: tuple[TypedName, ...] = ()
    predicates: tuple[PredicateDecl, ...] = ()
    functions: tuple[FunctionDecl, ...] = ()
    constraints: Formula | None = None
    actions: tuple[Action, ...] = ()
    derived: tuple[DerivedPredicate, ...] = ()
    sections: tuple[Name, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Metric:
    """A problem's plan-quality metric."""

    direction: str  # minimize | maximize
    expr: NumericExpr
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Problem:
    """A parsed problem file; ``sections`` lists the section keywords as written so checks can report
    misplaced or repeated sections.
    """

    name: Name
    domain_name: Name | None = None
    requirements: tuple[Name, ...] = ()
    objects: tuple[TypedName, ...] = ()
    init: tuple[Formula, ...] = ()
    goal: Formula | None = None
    constraints: Formula | None = None
    metric: Metric | None = None
    sections: tuple[Name, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


# An edit re-parsed incrementally leaves the sections after it to be moved when first read (deferred.py)
deferrable(Problem, "domain_name", "requirements", "objects", "init", "goal", "constraints", "metric")


@dataclass(frozen=True, slots=True)
class PlanStep:
    """One step of a plan; ``time`` and ``duration`` are set only for temporal plans."""

    action: Name
    args: tuple[Name, ...] = ()
    time: Number | None = None
    duration: Number | None = None
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Plan:
    """A parsed plan file, with the cost line planners print when there is one."""

    steps: tuple[PlanStep, ...] = ()
    cost: Number | None = None
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


def atom_text(predicate: str, args: tuple[str, ...] | list[str]) -> str:
    """An atom written as in PDDL: ``(on a b)``."""
    return "(" + " ".join((predicate, *args)) + ")" if args else f"({predicate})"
