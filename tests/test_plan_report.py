"""The wording of simulated plans shared by the editor and the CLI (analyses/plans/report.py)."""

from __future__ import annotations

from plansight.analyses.plans.report import (
    effect_items,
    effects_line,
    sorted_atoms,
    state_groups,
    state_lines,
    summary_line,
)
from plansight.analyses.semantics.state import EMPTY, State


def test_effects_list_additions_then_deletions_in_the_order_given() -> None:
    added = [("holding", "a")]
    deleted = [("on-table", "a"), ("handempty",)]
    assert effect_items(added, deleted) == ["+(holding a)", "-(on-table a)", "-(handempty)"]
    assert effects_line(added, deleted) == "+(holding a) -(on-table a) -(handempty)"


def test_long_effects_are_cut_with_a_count_of_the_rest() -> None:
    added = [("at", f"package{i}", "depot") for i in range(10)]  # "+(at package0 depot)" = 20 chars
    line = effects_line(added, [], width=60)
    assert line == "+(at package0 depot) +(at package1 depot) … +8 more"
    assert len(line) <= 60
    # the first item is always shown, however narrow the width
    assert effects_line(added, [], width=5) == "+(at package0 depot) … +9 more"


def test_effects_that_just_fit_are_not_cut() -> None:
    added = [("p", "a"), ("p", "b")]
    assert effects_line(added, [], width=len("+(p a) +(p b)")) == "+(p a) +(p b)"
    assert effects_line(added, [], width=len("+(p a) +(p b)") - 1) == "+(p a) … +1 more"


def test_a_step_that_changed_nothing_says_so() -> None:
    assert effects_line([], []) == "no change"


def test_states_are_sorted_and_grouped_by_predicate() -> None:
    state = State.of([("on-table", "b"), ("clear", "b"), ("on", "a", "b"), ("clear", "a"), ("handempty",)])
    assert state_groups(state) == [
        ("clear", ["(clear a)", "(clear b)"]),
        ("handempty", ["(handempty)"]),
        ("on", ["(on a b)"]),
        ("on-table", ["(on-table b)"]),
    ]
    assert state_lines(state) == ["(clear a) (clear b)", "(handempty)", "(on a b)", "(on-table b)"]
    assert sorted_atoms(state) == ["(clear a)", "(clear b)", "(handempty)", "(on a b)", "(on-table b)"]
    assert state_lines(EMPTY) == []


def test_summary_of_a_valid_plan_is_one_word() -> None:
    assert summary_line(valid=True, lea=6, length=6, goals_satisfied=2, goals_total=2) == "valid"


def test_summary_of_a_failing_plan_locates_the_failure() -> None:
    assert summary_line(valid=False, lea=3, length=8, goals_satisfied=2, goals_total=5,
                        stv=4) == "LEA 3/8 · 2 of 5 goals hold · StV 4"
    assert summary_line(valid=False, lea=0, length=8, goals_satisfied=0, goals_total=2, stv=7, lcs=1,
                        score=2.316667) == "LEA 0/8 · 0 of 2 goals hold · StV 7 · LCS 1 · score 2.32"


def test_summary_of_an_executable_plan_missing_its_goal() -> None:
    assert summary_line(valid=False, lea=2, length=2, goals_satisfied=0, goals_total=1) == (
        "executable (2 steps) · 0 of 1 goal holds")
