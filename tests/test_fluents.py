"""Numeric expressions read fluent values from a state (analyses/semantics/fluents.py)."""

from __future__ import annotations

import math

import pytest

from plansight.analyses.model.pddl import Arithmetic, FunctionTerm, Number, name
from plansight.analyses.semantics.fluents import UndefinedValue, compare, evaluate
from plansight.analyses.semantics.state import State

FUEL = FunctionTerm(name("fuel"), (name("?t"),))
STATE = State(frozenset(), {("fuel", "t1"): 4.0, ("capacity",): 10.0})


def test_arithmetic_over_fluents_and_variables() -> None:
    expr = Arithmetic("-", (FunctionTerm(name("capacity")), Arithmetic("*", (FUEL, Number(2.0)))))
    assert evaluate(expr, {"?t": "t1"}, STATE) == 2.0
    assert evaluate(Arithmetic("-", (FUEL,)), {"?t": "t1"}, STATE) == -4.0
    assert evaluate(Arithmetic("/", (name("?duration"), Number(4.0))), {}, STATE, {"?duration": 6.0}) == 1.5


def test_an_undefined_fluent_has_no_value() -> None:
    with pytest.raises(UndefinedValue) as missing:
        evaluate(FUEL, {"?t": "t2"}, STATE)
    assert missing.value.term == ("fuel", "t2") and "(fuel t2)" in missing.value.text


def test_division_by_zero_is_ieee_arithmetic_as_in_val() -> None:
    """VAL computes ``(/ 10 0)`` as infinity and ``(/ 0 0)`` as NaN rather than stopping the plan
    (tests/test_numeric_val.py checks it against VAL's binary)."""
    assert evaluate(Arithmetic("/", (FUEL, Number(0.0))), {"?t": "t1"}, STATE) == math.inf
    negative = Arithmetic("-", (FUEL,))
    assert evaluate(Arithmetic("/", (negative, Number(0.0))), {"?t": "t1"}, STATE) == -math.inf
    assert math.isnan(evaluate(Arithmetic("/", (Number(0.0), Number(0.0))), {}, STATE))
    assert not compare(">", math.nan, 0.0) and not compare("<=", math.nan, 0.0)


@pytest.mark.parametrize(("op", "expected"), [("<", True), ("<=", True), ("=", False), (">=", False),
                                               (">", False)])
def test_comparisons(op: str, expected: bool) -> None:
    assert compare(op, 1.0, 2.0) is expected


def test_equality_has_vals_tolerance_and_strict_comparisons_stay_strict() -> None:
    assert compare("=", 0.1 + 0.2, 0.3) and compare("=", 10.00009, 10.0) and not compare("=", 10.00011, 10.0)
    assert compare("<=", 10.00009, 10.0) and compare(">=", 9.99991, 10.0)
    assert not compare("<", 10.0, 10.0) and not compare(">", 10.0, 10.0) and not compare("<", 9.99995, 10.0)
