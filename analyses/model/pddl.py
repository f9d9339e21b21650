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


@dataclass(frozen=True, slots=True)
class Name:
    """An identifier: a name (``block``), a variable (``?x``) or a requirement (``:typing``)."""

    key: str
    text: str = field(default="", compare=False, hash=False)
    span: Span = field(default=NO_SPAN, compare=False, hash=False)

    @property
    def is_variable(self) -> bool:
        return self.key.startswith("?")

    @property
    def display(self) -> str:
        return self.text or self.key

    def __str__(self) -> str:
        return self.display


def name(text: str, span: Span = NO_SPAN) -> Name:
    return Name(text.lower(), text, span)


@dataclass(frozen=True, slots=True)
class TypeRef:
    """The type after ``-`` in a typed list: one name, or ``(either ...)`` with several."""

    names: tuple[Name, ...]
    span: Span = field(default=NO_SPAN, compare=False, hash=False)

    @property
    def is_either(self) -> bool:
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
    op: str  # + - * /
    args: tuple[NumericExpr, ...]
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


NumericExpr = Number | FunctionTerm | Arithmetic | Name
"""A ``Name`` here is a variable (``?duration``, a numeric parameter) or ``#t``."""


# --- goal descriptions (conditions) ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Atom:
    predicate: Name
    args: tuple[Name, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Equality:
    left: Name
    right: Name
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Not:
    arg: Formula
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class And:
    args: tuple[Formula, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Or:
    args: tuple[Formula, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Imply:
    condition: Formula
    consequence: Formula
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Quantified:
    quantifier: str  # "exists" | "forall"
    variables: tuple[TypedName, ...]
    body: Formula
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Comparison:
    op: str  # < <= = >= >
    left: NumericExpr
    right: NumericExpr
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Preference:
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
    condition: Formula
    effect: Formula
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class NumericEffect:
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
    stack: list[NumericExpr] = [expr]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, Arithmetic):
            stack.extend(reversed(node.args))


# --- declarations ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TypeDecl:
    name: Name
    parent: TypeRef | None = None
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class PredicateDecl:
    name: Name
    parameters: tuple[TypedName, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class FunctionDecl:
    name: Name
    parameters: tuple[TypedName, ...] = ()
    type: TypeRef | None = None  # None: number
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Action:
    """An action schema: ``:action``, ``:durative-action``, or PDDL+'s ``:process`` / ``:event``.

    For a durative action ``precondition`` holds the ``:condition`` and ``duration`` the duration
    constraint. ``sections`` lists the section keywords in the order written, for duplicate and
    missing-section checks.
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

    @property
    def durative(self) -> bool:
        return self.kind == "durative-action"


@dataclass(frozen=True, slots=True)
class DerivedPredicate:
    head: PredicateDecl
    body: Formula
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Domain:
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
    direction: str  # minimize | maximize
    expr: NumericExpr
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Problem:
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


@dataclass(frozen=True, slots=True)
class PlanStep:
    action: Name
    args: tuple[Name, ...] = ()
    time: Number | None = None
    duration: Number | None = None
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Plan:
    steps: tuple[PlanStep, ...] = ()
    cost: Number | None = None
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


def atom_text(predicate: str, args: tuple[str, ...] | list[str]) -> str:
    """An atom written as in PDDL: ``(on a b)``."""
    return "(" + " ".join((predicate, *args)) + ")" if args else f"({predicate})"
