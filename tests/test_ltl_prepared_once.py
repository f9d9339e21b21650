"""A parsed goal judged on many trajectories is prepared once per scope (docs/metrics.md, LTL goals), and
the memo never mixes up two versions of a file whose goals are equal but sit at different places."""

from __future__ import annotations

from plansight.analyses.ltl import evaluate as evaluation
from plansight.analyses.ltl.evaluate import evaluate, prepare
from plansight.analyses.ltl.scope import FormulaMemo, LtlScope
from plansight.analyses.model.ltl import ltl_walk
from plansight.analyses.semantics.state import State
from plansight.analyses.syntax.parse_ltl import parse_ltl

SCOPE_OBJECTS = ("a", "b")


def trajectory(*states: set[tuple[str, ...]]) -> list[tuple[State, tuple[str, ...] | None]]:
    return [(State.of(s), None) for s in states]


def test_one_goal_on_many_trajectories_is_prepared_once(monkeypatch: object) -> None:
    scope = LtlScope.abstract(SCOPE_OBJECTS)
    formula = parse_ltl("on(a, b) then clear(a)").formula
    assert formula is not None
    made: list[object] = []
    original = evaluation.PreparedGoal.__init__

    def counting(self: evaluation.PreparedGoal, *args: object) -> None:
        made.append(self)
        original(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(evaluation.PreparedGoal, "__init__", counting)  # type: ignore[attr-defined]
    answers = [evaluate(formula, trajectory({("on", "a", "b")}, {("clear", "a")}), scope).satisfied,
               evaluate(formula, trajectory({("clear", "a")}), scope).satisfied]
    assert answers == [True, False]
    assert len(made) == 1
    assert prepare(formula, scope) is made[0]
    evaluate(formula, trajectory({("clear", "a")}), LtlScope.abstract(SCOPE_OBJECTS))  # another scope
    assert len(made) == 2


def test_an_equal_goal_from_another_version_reports_its_own_places() -> None:
    scope = LtlScope.abstract(SCOPE_OBJECTS)
    old = parse_ltl("on(a, b)").formula
    new = parse_ltl("\n\n   on(a, b)").formula  # the same goal, moved down by an edit
    assert old is not None and new is not None and old == new
    states = trajectory({("clear", "a")})
    evaluate(old, states, scope)
    [failure] = evaluate(new, states, scope).failures
    assert any(failure.node is node for node in ltl_walk(new))
    assert failure.node.span == new.span != old.span


def test_the_memo_keeps_the_formulas_used_last() -> None:
    memo = FormulaMemo()
    formulas = [parse_ltl(f"p(o{k})").formula for k in range(FormulaMemo.SIZE + 1)]
    for formula in formulas:
        memo.get(formula, lambda: object())  # type: ignore[arg-type]
    kept = memo.get(formulas[-1], lambda: "again")  # type: ignore[arg-type]
    first = memo.get(formulas[0], lambda: "again")  # type: ignore[arg-type]
    assert kept != "again" and first == "again"
