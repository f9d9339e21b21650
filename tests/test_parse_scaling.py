"""Recovery stays linear in the file: a file with thousands of sections (a grounded domain) or plan steps,
broken near its end, recovers to the same model as a short one, and the work recovery spends copying parser
state does not grow with the square of the file."""

from __future__ import annotations

from typing import Any

import pytest
from lark import Tree

from plansight.analyses.model.pddl import Domain
from plansight.analyses.syntax import lalr
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan


def grounded_domain(actions: int, broken: set[int]) -> str:
    parts = []
    for i in range(actions):
        effect = "(and (q) (not))" if i in broken else "(and (q) (not (p)))"
        parts.append(f"(:action a{i} :parameters () :precondition (p) :effect {effect})")
    return "(define (domain d) (:requirements :strips) (:predicates (p) (q))\n" + "\n".join(parts) + ")"


def test_a_broken_action_late_in_a_long_domain_keeps_every_action_once() -> None:
    count = 3000
    result = parse_pddl(grounded_domain(count, {5, count - 2}))
    assert [d.message for d in result.diagnostics] == ["Unexpected `)`: expected `(`."] * 2
    assert isinstance(result.model, Domain)
    assert [a.name.text for a in result.model.actions] == [f"a{i}" for i in range(count)]
    # the broken `(not)` is dropped, the rest of that effect kept
    assert [str(e.predicate.text) for e in result.model.actions[count - 2].effect.args] == ["q"]  # type: ignore[union-attr]
    assert len(result.model.actions[count - 3].effect.args) == 2  # type: ignore[union-attr]


def test_broken_steps_late_in_a_long_plan_keep_every_step_once() -> None:
    count = 3000
    lines = [f"3 : 4 (a{i} x y)" if i in (7, count - 5) else f"(a{i} x y)" for i in range(count)]
    result = parse_plan("\n".join(lines))
    assert [d.message for d in result.diagnostics] == ["Unexpected `4`: expected `(`."] * 2
    assert result.plan is not None
    assert [s.action.text for s in result.plan.steps] == [f"a{i}" for i in range(count)]


class _IsTree(type):
    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tree)


class _CountingTree(metaclass=_IsTree):
    """Stands in for lark's Tree in the driver: builds real Trees and counts the children copied."""

    copied = 0

    def __new__(cls, data: str, children: list[Any], meta: Any = None) -> Any:  # type: ignore[misc]
        _CountingTree.copied += len(children)
        return Tree(data, children, meta)


def _copied_children(text: str) -> int:
    _CountingTree.copied = 0
    parse_pddl(text)
    return _CountingTree.copied


def test_recovery_copies_parser_state_in_linear_work(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every section gets a snapshot; copying the stack's growing list of sections for each one made
    # a 1 MB grounded domain take seconds. Restoring a snapshot may copy that list once per recovery.
    monkeypatch.setattr(lalr, "Tree", _CountingTree)
    small = _copied_children(grounded_domain(500, {490}))
    large = _copied_children(grounded_domain(2000, {1990}))
    assert 0 < large <= 5 * small
