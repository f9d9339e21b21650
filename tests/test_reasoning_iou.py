"""IoU scoring of answers (analyses/reasoning/iou.py) and how answers are read (answers.py), on
hand-worked cases: the definition of Murthy, Mink and Sanneman 2025 (|A ∩ T| / |A ∪ T|), action
distance as 1 − IoU, and the choices docs/reasoning.md documents (unreadable items count against the
answer, hallucinated items are told apart, both-empty scores 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.plans.metrics import action_distance
from plansight.analyses.plans.recovery import FALLBACK_SEARCH, PlannerResult
from plansight.analyses.reasoning import optimal
from plansight.analyses.reasoning.answers import read_answer, read_item, read_sequence
from plansight.analyses.reasoning.iou import action_judge, atom_judge, iou, score
from plansight.analyses.reasoning.truth import TruthError, build_world, ground_truth
from plansight.analyses.semantics.world import World
from plansight.analyses.syntax.parse_pddl import parse_pddl

BLOCKS = Path(__file__).resolve().parents[1] / "examples" / "blocksworld"


@pytest.fixture(scope="module")
def world() -> World:
    domain = parse_pddl((BLOCKS / "domain.pddl").read_text()).model
    problem = parse_pddl((BLOCKS / "p01.pddl").read_text()).model  # c on a; a, b on the table
    assert isinstance(domain, Domain) and isinstance(problem, Problem)
    return build_world(domain, problem)


# --- reading ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["pick-up(a)", "(pick-up a)", "PICK-UP(A)", " 'pick-up a' ", "pick-up a.",
                                  "`(pick-up  a)`", "- (pick-up a)", "1. pick-up(a)"])
def test_every_spelling_of_an_action_reads_the_same(text: str) -> None:
    assert read_answer(f"[{text}]").items == (("pick-up", "a"),)
    assert read_answer(text).items == (("pick-up", "a"),)


def test_an_item_is_a_name_and_its_arguments() -> None:
    assert read_item("stack(a, b)") == ("stack", "a", "b")
    assert read_item("(handempty)") == ("handempty",)


def test_a_list_with_prose_around_it_duplicates_and_forms_without_commas() -> None:
    answer = read_answer("Let me think. The state is: [(on c a) (clear c), on-table(a), handempty, "
                         "ON(C, A), stack(a, b)]\nThat is all.")
    assert answer.items == (("on", "c", "a"), ("clear", "c"), ("on-table", "a"), ("handempty",),
                            ("stack", "a", "b"))
    assert answer.duplicates == 1 and answer.list_found and not answer.unreadable


def test_the_last_list_is_the_answer_and_no_list_reads_the_whole_text() -> None:
    assert read_answer("Options [x] ... final: [clear(a)]").items == (("clear", "a"),)
    bare = read_answer("clear(a), clear(b)")
    assert bare.items == (("clear", "a"), ("clear", "b")) and not bare.list_found
    assert read_answer("[]").items == ()


def test_what_cannot_be_read_is_kept_with_a_reason() -> None:
    answer = read_answer("[clear(a), ???, on(a (b)), not (clear b), clear(a)]")
    assert answer.items == (("clear", "a"),)
    assert [u.text for u in answer.unreadable] == ["???", "on(a (b))", "not (clear b)"]
    assert all(u.reason for u in answer.unreadable)


def test_a_negation_is_a_delete_effect_only_in_the_delete_task() -> None:
    assert read_answer("[(not (on c a)), not handempty]", negated_means_deleted=True).items == (
        ("on", "c", "a"), ("handempty",))
    assert not read_answer("[(not (on c a))]").items


def test_a_sequence_keeps_repeats_and_order() -> None:
    items, unreadable = read_sequence("[pick-up(a), put-down(a), pick-up(a)]")
    assert items == [("pick-up", "a"), ("put-down", "a"), ("pick-up", "a")] and not unreadable


# --- scoring ---------------------------------------------------------------------------------------

def test_iou_precision_recall_by_hand(world: World) -> None:
    """Truth {(pick-up b), (unstack c a)}. The answer has one right, one wrong (an action of the task
    that is not applicable) and one hallucinated: |A ∩ T| = 1, |A ∪ T| = 4."""
    truth = ground_truth(world, "applicable").items
    result = score("applicable", read_answer("[pick-up(b), pick-up(a), fly(a)]"), truth, action_judge(world))
    assert result.iou == pytest.approx(1 / 4)
    assert result.precision == pytest.approx(1 / 3)
    assert result.recall == pytest.approx(1 / 2)
    assert result.wrong == (("pick-up", "a"),)
    assert result.hallucinated == ((("fly", "a"), "unknown action"),)
    assert result.missing == (("unstack", "c", "a"),)


def test_an_unreadable_item_counts_as_one_wrong_item(world: World) -> None:
    """The full right answer plus one unreadable item: 2 / (2 + 1), precision 2/3, recall 1."""
    truth = ground_truth(world, "applicable").items
    result = score("applicable", read_answer("[pick-up(b), unstack(c, a), ¿?]"), truth, action_judge(world))
    assert result.iou == pytest.approx(2 / 3)
    assert result.precision == pytest.approx(2 / 3) and result.recall == 1
    assert result.unreadable == (("¿?", "`¿?` is not a name"),)
    assert result.to_json()["answer_size"] == 3


def test_hallucinations_name_what_is_not_of_the_task(world: World) -> None:
    truth = ground_truth(world, "state").items
    answer = read_answer("[on(c, a), ontable(a), clear(z), clear(a, b), clear(a)]")
    result = score("state", answer, truth, atom_judge(world))
    assert dict(result.hallucinated) == {("ontable", "a"): "unknown predicate",
                                         ("clear", "z"): "unknown object",
                                         ("clear", "a", "b"): "wrong number of arguments"}
    assert result.wrong == (("clear", "a"),)
    assert result.correct == (("on", "c", "a"),)
    assert result.iou == pytest.approx(1 / 10)  # 1 right; union: 6 truth + 4 wrong answered


def test_empty_answers() -> None:
    assert iou([], []) == 1.0
    assert iou([], [("a",)]) == 0.0
    assert iou([], [], unreadable=1) == 0.0


def test_plan_tasks_are_scored_by_action_distance(world: World) -> None:
    optimal = [("unstack", "c", "a"), ("put-down", "c"), ("pick-up", "b"), ("stack", "b", "c"),
               ("pick-up", "a"), ("stack", "a", "b")]
    answer = read_answer("[unstack(c,a), put-down(c), pick-up(a), stack(a,b), pick-up(a)]")
    result = score("plan", answer, optimal, action_judge(world))
    assert result.value == pytest.approx(action_distance(list(answer.items), optimal))
    assert result.value == pytest.approx(1 - 4 / 6)
    assert result.to_json()["action_distance"] == pytest.approx(0.3333, abs=1e-4)


def test_a_plan_that_is_not_proved_optimal_is_not_a_reference(world: World,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """When LM-cut cannot handle a task, plan recovery falls back to a greedy search; its plan may be
    longer than optimal, so action distance is not measured against it."""
    greedy = PlannerResult("solved", (("unstack", "c", "a"),), f"fast-downward {FALLBACK_SEARCH}",
                           "plan found", 0.1)
    monkeypatch.setattr(optimal, "solve", lambda *args, **kwargs: greedy)
    with pytest.raises(TruthError, match="LM-cut does not support this task"):
        optimal.optimal_plan(world.domain, world.problem)
