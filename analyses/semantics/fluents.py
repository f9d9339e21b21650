"""The value of a numeric expression in a state: PDDL 2.1's arithmetic over numeric fluents.

One evaluator serves every place a number is read — numeric preconditions and goals, the right-hand
side of ``increase`` / ``assign``…, a durative action's ``?duration`` constraint, the ``:metric`` — so
they agree with VAL (the plan validator of Howey, Long and Fox 2004) on the two corner cases: reading a
fluent the state does not define is an error (not zero) and raises :class:`UndefinedValue`, which names
the term so that a message can say which value was missing; dividing by zero is not an error but IEEE
arithmetic (``x / 0`` is an infinity, ``0 / 0`` is NaN, and every comparison with NaN is false), as
VAL computes it (docs/beyond-classical-numeric.md shows both cases).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Protocol

from plansight.analyses.model.pddl import Arithmetic, FunctionTerm, Name, Number, NumericExpr
from plansight.analyses.semantics.state import GroundTerm
from plansight.analyses.semantics.state import Number as Value

Binding = Mapping[str, str]
"""Variable key (``?x``) -> object key, as the world binds an action's parameters."""

_NO_NUMBERS: Mapping[str, float] = {}

DURATION = "?duration"
"""The variable a durative action's conditions and effects read its step's duration from."""


def with_duration(binding: Binding, duration: float) -> dict[str, str]:
    """``binding`` with ``?duration`` bound to the step's duration, as the exact text of the float.

    The duration travels inside the binding because every compiled condition and effect of the world
    already receives one: ``(at end (decrease (fuel ?r) (* ?duration 2)))``, an ``over all`` comparison
    with ``?duration`` and a ``when`` inside a ``forall`` all read it without a second channel (``repr``
    of a float reads back as the same float)."""
    return {**binding, DURATION: repr(duration)}


class Valuation(Protocol):
    """What an expression reads values from: a :class:`~plansight.analyses.semantics.state.State`, or the
    set a simulation steps forward in place with its values beside it."""

    def value(self, term: GroundTerm) -> Value | None:
        """The value of a ground function term, None when it is undefined."""


class UndefinedValue(Exception):
    """A numeric expression has no value: it reads an undefined fluent or names a variable that is not a
    number."""

    def __init__(self, text: str, term: GroundTerm | None = None) -> None:
        super().__init__(text)
        self.text = text
        self.term = term


def ground_term(term: FunctionTerm, binding: Binding) -> GroundTerm:
    """``(fuel ?t)`` with ``?t -> t1`` as the key a state stores values under: ``("fuel", "t1")``."""
    return (term.function.key, *(binding.get(a.key, a.key) for a in term.args))


def term_text(term: GroundTerm) -> str:
    """``(fuel t1)``, as users write it."""
    return "(" + " ".join(term) + ")"


def evaluate(expr: NumericExpr, binding: Binding, state: Valuation,
             numbers: Mapping[str, float] = _NO_NUMBERS) -> float:
    """The value of ``expr`` in ``state``; ``numbers`` gives the numeric variables a context binds
    (``?duration`` in a durative action, ``#t`` in a continuous effect).

    Raises :class:`UndefinedValue` when the value does not exist."""
    if isinstance(expr, Number):
        return expr.value
    if isinstance(expr, FunctionTerm):
        term = ground_term(expr, binding)
        value = state.value(term)
        if value is None:
            raise UndefinedValue(f"{term_text(term)} has no value", term)
        return value
    if isinstance(expr, Name):
        found = numbers.get(expr.key)
        if found is not None:
            return found
        if expr.key == DURATION and DURATION in binding:  # a durative step's duration (see with_duration)
            return float(binding[DURATION])
        raise UndefinedValue(f"{expr.display} has no numeric value here")
    values = [evaluate(arg, binding, state, numbers) for arg in expr.args]
    return _arithmetic(expr, values)


def _arithmetic(expr: Arithmetic, values: list[float]) -> float:
    op = expr.op
    if op == "-" and len(values) == 1:
        return -values[0]
    result = values[0]
    for value in values[1:]:
        if op == "+":
            result += value
        elif op == "-":
            result -= value
        elif op == "*":
            result *= value
        elif op == "/":
            result = divide(result, value)
        else:
            raise UndefinedValue(f"unknown operator {op}")
    return result


def divide(left: float, right: float) -> float:
    """``(/ left right)`` and ``(scale-down f right)`` as VAL computes them, in IEEE arithmetic where
    Python raises: a non-zero value over zero is infinite, its sign the product of the two signs (the zero's
    too: ``(* -1 0)`` is -0, and VAL's ``Validate`` gives ``-inf`` for ``(/ 5 (* -1 0))`` and for scaling
    5 down by it), and zero over zero, or NaN over anything, is NaN."""
    if right != 0:
        return left / right
    if left == 0 or math.isnan(left):
        return math.nan
    return math.copysign(math.inf, left) * math.copysign(1.0, right)


TOLERANCE = 1e-4
"""Two values closer than this are equal, as VAL compares them (so ``0.1 + 0.2`` equals ``0.3``)."""


def compare(op: str, left: float, right: float) -> bool:
    """A numeric comparison as PDDL writes it (``<``, ``<=``, ``=``, ``>=``, ``>``), with VAL's tolerance
    for equality. Strict comparisons stay strict: VAL also accepts ``(< 10 10)``, which PDDL 2.1 does not
    (docs/beyond-classical-numeric.md, Where VAL differs)."""
    equal = abs(left - right) < TOLERANCE
    if op == "<":
        return left < right and not equal
    if op == "<=":
        return left < right or equal
    if op == "=":
        return equal
    if op == ">=":
        return left > right or equal
    if op == ">":
        return left > right and not equal
    raise ValueError(f"unknown comparison {op}")
