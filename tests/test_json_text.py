"""`plansight plan --format json` writes batch reports with its own indented writer (cli/json_text.py):
the text must be exactly what `json.dumps(..., indent=2, ensure_ascii=False)` writes, for any report."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plansight.json_text import dumps_indented

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | \
    st.text()
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.tuples(inner, inner) | st.dictionaries(st.text(), inner,
                                                                                         max_size=5),
    max_leaves=40,
)


def _reference(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


@settings(max_examples=300, deadline=None)
@given(_VALUES)
def test_any_report_is_written_as_json_dumps_writes_it(value: Any) -> None:
    assert dumps_indented(value) == _reference(value)


def test_a_plan_report_shape() -> None:
    report = [{"path": "p1.plan", "valid": False, "length": 3, "failure": None, "metric": 12.5,
               "goals": {"satisfied": [], "unsatisfied": ["(hot p0)", "(é \"quoted\"\n)"], "fraction": 0.0},
               "trace": [{"index": 0, "added": ["(a)"], "changed": [{"term": "(fuel t1)", "before": 1e-07,
                                                                     "after": 1e16}]}]}]
    assert dumps_indented(report) == _reference(report)
    assert dumps_indented({}) == "{}" and dumps_indented([]) == "[]" and dumps_indented("x") == '"x"'


@pytest.mark.parametrize("value", [
    {"metric": math.nan}, [math.inf, -math.inf], {1: "int key"}, {None: 1, True: 2, 2.5: 3}, [True, 1, 1.0],
])
def test_values_json_spells_its_own_way_fall_back_to_it(value: Any) -> None:
    assert dumps_indented(value) == _reference(value)


def test_values_json_cannot_write_fail_as_json_fails() -> None:
    with pytest.raises(TypeError):
        dumps_indented({"path": object()})
