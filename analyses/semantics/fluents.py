"""The value of a numeric expression in a state: PDDL 2.1's arithmetic over numeric fluents.

One evaluator serves every place a number is read — numeric preconditions and goals, the right-hand
side of ``increase`` / ``assign``…, a durative action's ``?duration`` constraint, the ``:metric`` — so
they agree on the two things VAL is strict about: reading a fluent the state does not define is an
error (not zero), and so is dividing by zero. Both raise :class:`UndefinedValue`, which names the
term so that a message can say which value was missing.
"""

from __future__ import annotations

from collections.abc import Mapping

from plansight.analyses.model.pddl import Arithmetic, FunctionTerm, Name, Number, NumericExpr
from plansight.analyses.semantics.state import GroundTerm, State

Binding = Mapping[str, str]
"""Variable key (``?x``) -> object key, as the world binds an action's parameters."""

_NO_NUMBERS: Mapping[str, float] = {}


class UndefinedValue(Exception):
    """A numeric expression has no value: it reads an undefined fluent, divides by zero, or names a
    variable that is not a number."""

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


def evaluate(expr: NumericExpr, binding: Binding, state: State,
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
        if found is None:
            raise UndefinedValue(f"{expr.display} has no numeric value here")
        return found
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
            if value == 0:
                raise UndefinedValue("division by zero")
            result /= value
        else:
            raise UndefinedValue(f"unknown operator {op}")
    return result


def compare(op: str, left: float, right: float) -> bool:
    """A numeric comparison as PDDL writes it (``<``, ``<=``, ``=``, ``>=``, ``>``)."""
    if op == "<":
        return left < right
    if op == "<=":
        return left <= right
    if op == "=":
        return left == right
    if op == ">=":
        return left >= right
    if op == ">":
        return left > right
    raise ValueError(f"unknown comparison {op}")
