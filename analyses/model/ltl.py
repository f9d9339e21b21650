"""The immutable model of LTL goals (Embodied Agent Interface grammar, Li et al. 2024, Appendix C.3).

Same conventions as :mod:`.model`: frozen slotted dataclasses whose ``span`` is excluded from
equality, so two formulas that differ only in layout, comments, redundant parentheses or letter
case compare equal. ``and`` / ``or`` / ``then`` are n-ary because the grammar writes them as
repetitions (``a and b and c`` is one conjunction); all three are associative, so nothing is lost.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from plansight.analyses.diagnostics.spans import NO_SPAN, Span
from plansight.analyses.model.pddl import Name


@dataclass(frozen=True, slots=True)
class LtlAtom:
    """``name(arg, ...)``: a state proposition or an action proposition, decided by the domain."""

    name: Name
    args: tuple[Name, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class LtlNot:
    """Negation in an LTL goal."""

    operand: LtlFormula
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class LtlAnd:
    """Conjunction in an LTL goal."""

    operands: tuple[LtlFormula, ...]
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class LtlOr:
    """Disjunction in an LTL goal."""

    operands: tuple[LtlFormula, ...]
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class LtlImplies:
    """``a implies b`` / ``a => b`` (an extension: the paper lists implication but gives no syntax)."""

    left: LtlFormula
    right: LtlFormula
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class LtlThen:
    """``s1 then s2 then ...``: the stages hold on consecutive non-empty pieces of the trajectory."""

    stages: tuple[LtlFormula, ...]
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


Quantifier = Literal["forall", "exists", "forn"]


@dataclass(frozen=True, slots=True)
class LtlQuantified:
    """``forall x. (...)``, ``exists x. (...)``, ``forn n. x. (...)``; ``count`` only for ``forn``."""

    quantifier: Quantifier
    variable: Name
    body: LtlFormula
    count: int | None = None
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


LtlFormula = LtlAtom | LtlNot | LtlAnd | LtlOr | LtlImplies | LtlThen | LtlQuantified


@dataclass(frozen=True, slots=True)
class LtlGoal:
    """The model of a ``.ltl`` file: its one formula (None when nothing could be recovered)."""

    formula: LtlFormula | None
    span: Span = field(default=NO_SPAN, compare=False, hash=False)


def ltl_children(formula: LtlFormula) -> tuple[LtlFormula, ...]:
    """The direct sub-formulas, so walks over a formula need not know every node type."""
    if isinstance(formula, LtlAtom):
        return ()
    if isinstance(formula, LtlNot):
        return (formula.operand,)
    if isinstance(formula, (LtlAnd, LtlOr)):
        return formula.operands
    if isinstance(formula, LtlThen):
        return formula.stages
    if isinstance(formula, LtlImplies):
        return (formula.left, formula.right)
    return (formula.body,)


def ltl_walk(formula: LtlFormula | None) -> Iterator[LtlFormula]:
    """Every node, parents before children, left to right."""
    stack = [formula] if formula is not None else []
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(ltl_children(node)))


def ltl_depth(formula: LtlFormula | None) -> int:
    """How deeply the formula nests (an atom: 1), counted without recursion: it is how callers learn
    that a formula is too deep for the recursive walks (evaluation, printing) before starting one."""
    deepest = 0
    stack = [(formula, 1)] if formula is not None else []
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ltl_children(node))
    return deepest


def is_temporal(formula: LtlFormula) -> bool:
    """Whether ``then`` occurs in the formula (otherwise it is a state formula, judged pair by pair)."""
    return any(isinstance(node, LtlThen) for node in ltl_walk(formula))


_PRECEDENCE = {LtlThen: 0, LtlImplies: 1, LtlOr: 2, LtlAnd: 3, LtlNot: 4, LtlQuantified: 5, LtlAtom: 5}


def format_ltl(formula: LtlFormula) -> str:
    """The formula in the grammar's surface syntax, with only the parentheses precedence needs.

    ``parse_ltl(format_ltl(f))`` gives ``f`` back (tested), so messages and code lenses can quote
    sub-formulas the user can paste.
    """
    if isinstance(formula, LtlAtom):
        return f"{formula.name.display}({', '.join(a.display for a in formula.args)})"
    if isinstance(formula, LtlQuantified):
        count = f"{formula.count}. " if formula.quantifier == "forn" else ""
        return f"{formula.quantifier} {count}{formula.variable.display}. ({format_ltl(formula.body)})"
    level = _PRECEDENCE[type(formula)]
    if isinstance(formula, LtlNot):
        return "not " + _operand(formula.operand, level)
    if isinstance(formula, LtlImplies):
        # right-associative: a left operand that is itself an implication needs parentheses
        return f"{_operand(formula.left, level + 1)} implies {_operand(formula.right, level)}"
    word = {LtlAnd: "and", LtlOr: "or", LtlThen: "then"}[type(formula)]
    parts = formula.operands if isinstance(formula, (LtlAnd, LtlOr)) else formula.stages
    # a nested same-operator operand keeps its parentheses: the model distinguishes the two shapes
    return f" {word} ".join(_operand(p, level + 1) for p in parts)


def _operand(formula: LtlFormula, level: int) -> str:
    text = format_ltl(formula)
    return f"({text})" if _PRECEDENCE[type(formula)] < level else text
