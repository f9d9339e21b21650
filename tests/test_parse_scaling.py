"""Recovery stays linear in the file: a file with thousands of sections (a grounded domain) or plan steps,
broken near its end, recovers to the same model as a short one, and the work recovery spends copying parser
state does not grow with the square of the file."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from plansight.analyses.model.pddl import Domain
from plansight.analyses.syntax import lalr
from plansight.analyses.syntax.lalr import Node
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


class _IsNode(type):
    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Node)


class _CountingNode(metaclass=_IsNode):
    """Stands in for the driver's Node: builds real Nodes and counts the children copied into new lists
    (a repetition growing its list in place hands the same list on, which copies nothing)."""

    given = 0
    lists: ClassVar[dict[int, list[Any]]] = {}  # by id, kept alive so that no id is reused

    def __new__(cls, data: str, children: list[Any]) -> Any:  # type: ignore[misc]
        if id(children) not in _CountingNode.lists:
            _CountingNode.lists[id(children)] = children
            _CountingNode.given += len(children)
        return Node(data, children)


def _copied_children(text: str) -> int:
    _CountingNode.given = 0
    _CountingNode.lists = {}
    parse_pddl(text)
    return _CountingNode.given


def test_recovery_copies_parser_state_in_linear_work(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every section gets a snapshot; copying the stack's growing list of sections for each one made
    # a 1 MB grounded domain take seconds. Restoring a snapshot may copy that list once per recovery;
    monkeypatch.setattr(lalr, "Node", _CountingNode)
    small = _copied_children(grounded_domain(500, {490}))
    large = _copied_children(grounded_domain(2000, {1990}))
    assert 0 < large <= 5 * small
