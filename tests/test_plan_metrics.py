"""Armony et al. 2025's plan metrics on their running example, step by step, and their pieces.

The expected figures are those docs/metrics.md records from running the paper's reference
implementation on this example (v1 = the paper's August 2025 similarity, v2 = its January 2026
code); validity comes from our simulator on the example's domain and problem.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plansight.analyses.plans import word_similarity
from plansight.analyses.plans.comparison import (
    compare,
    reference_prefix_length,
    simulate_actions,
    validity_checker,
)
from plansight.analyses.plans.metrics import (
    Action,
    action_distance,
    actions_of,
    align,
    aqm_score,
    evaluate,
    lcs_subsequence,
    lcs_substring,
    length_penalty,
    np_aqm,
    parameter_score,
    parse_action_text,
    renaming_penalty,
    steps_to_validity,
)
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "plan-evaluation"
DOMAIN = parse_pddl((EXAMPLE / "domain.pddl").read_text()).model
PROBLEM = parse_pddl((EXAMPLE / "problems" / "p10.pddl").read_text()).model


def plan_file(path: Path) -> list[Action]:
    return actions_of(parse_plan(path.read_text()).plan)


GT = plan_file(EXAMPLE / "ground-truth" / "p10.plan")
PI0 = plan_file(EXAMPLE / "generated" / "p10.plan")
PI1 = plan_file(EXAMPLE / "remapped" / "p10.plan")
IS_VALID = validity_checker(DOMAIN, PROBLEM)
PAPER_V1_LABELS = ("same_act", "same_act", "correct", "same_act", "diff_act", "redundant", "same_act",
                   "redundant")
"""pi0's AQM in the paper (and docs/metrics.md, from running the reference code)."""


def acts(*texts: str) -> list[Action]:
    return [a for a in (parse_action_text(t) for t in texts) if a is not None]


@pytest.fixture
def no_wordnet(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("PLANSIGHT_WORDNET", "")
    word_similarity.reset()
    yield
    monkeypatch.delenv("PLANSIGHT_WORDNET")
    word_similarity.reset()


def test_the_example_files_are_the_papers_plans() -> None:
    assert acts(
        "(unstack b c)", "(put-down b)", "(pick-up c)", "(stack c b)", "(pick-up a)", "(stack a c)"
    ) == GT
    assert acts(
        "(unstack a c)",
        "(put-down a)",
        "(pick-up c)",
        "(stack c a)",
        "(unstack c a)",
        "(put-down c)",
        "(pick-up b)",
        "(stack b c)",
    ) == PI0
    assert IS_VALID is not None and IS_VALID(GT) and not IS_VALID(PI0) and not IS_VALID(PI1)


def test_pi0_lea_is_zero() -> None:
    simulation = simulate_actions(DOMAIN, PROBLEM, PI0)
    assert (
        simulation.lea == 0
        and simulation.failure is not None
        and simulation.failure.action == "(unstack a c)"
    )


def test_v1_labels_and_pairs_of_pi0() -> None:
    alignment = align(PI0, GT, "v1")
    assert alignment.labels == PAPER_V1_LABELS
    similar = {
        (PI0[p.index], GT[p.reference_index]): round(p.similarity, 4) for p in alignment.similar_pairs
    }
    assert similar == {
        (("unstack", "a", "c"), ("unstack", "b", "c")): 1.25,
        (("put-down", "a"), ("put-down", "b")): 1.0,
        (("stack", "c", "a"), ("stack", "c", "b")): 1.25,
        (("unstack", "c", "a"), ("stack", "a", "c")): 0.2,
        (("pick-up", "b"), ("pick-up", "a")): 1.0,
    }
    assert sum(p.similarity for p in alignment.similar_pairs) == pytest.approx(4.7)


def test_v1_scores_of_pi0() -> None:
    result = evaluate(PI0, GT, valid=False, is_valid=IS_VALID, version="v1")
    assert result.similarity_source == "wordnet-3.0"
    # 1 (correct) + 4.7 (pairs) + 2.5 (pair bonus) + 1 (subsequence) + 2 * 1 (contiguous run)
    assert result.similarity == pytest.approx(11.2)
    assert [list(x) for x in (result.subsequence, result.substring)] == [
        [("pick-up", "c")],
        [("pick-up", "c")],
    ]
    assert length_penalty(8, 6) == pytest.approx(4 / 6)
    assert result.raw_score == pytest.approx(8 + 11.2 - 4 / 6)
    assert round(result.raw_score, 4) == 18.5333 and round(result.score, 4) == 2.3167


def test_v1_steps_to_validity_of_pi0_and_pi1() -> None:
    result = evaluate(PI0, GT, valid=False, is_valid=IS_VALID, version="v1")
    kinds = [step.kind for step in result.steps]
    assert result.stv == 7
    assert kinds.count("remove") == 2 and kinds.count("add") == 0
    assert kinds.count("repair_parameters") + kinds.count("repair_action") == 5
    assert {step.action for step in result.steps if step.kind == "remove"} == {
        ("put-down", "c"),
        ("stack", "b", "c"),
    }
    pi1_labels = align(PI1, GT).labels
    assert pi1_labels == ("correct",) * 4 + ("redundant", "redundant", "misplaced", "misplaced")
    pi1_steps = steps_to_validity(PI1, GT, pi1_labels, IS_VALID)
    assert [(s.kind, s.action) for s in pi1_steps] == [
        ("remove", ("unstack", "c", "b")),
        ("remove", ("put-down", "c")),
    ]


def test_v1_potential_finds_pi1_and_the_final_score() -> None:
    result = evaluate(PI0, GT, valid=False, is_valid=IS_VALID, version="v1")
    assert result.potential is not None
    assert list(result.potential.plan) == PI1
    assert {k: v for k, v in result.potential.mapping.items() if k != v} == {"a": "b", "b": "a"}
    assert result.potential.offset == 0 and not result.potential.any_valid
    # 8 + 19 - 4/6 (length) - 2/3 (two of three arguments renamed), per action
    assert round(result.potential.score, 4) == round((8 + 19 - 4 / 6 - 2 / 3) / 8, 4) == 3.2083
    assert len(result.potential_steps) == 2
    assert round(result.final_score or 0, 4) == 2.7625


def test_v2_numbers_of_pi0() -> None:
    result = evaluate(PI0, GT, valid=False, is_valid=IS_VALID, version="v2")
    assert result.alignment.labels == (
        "same_act",
        "diff_act",
        "correct",
        "same_act",
        "diff_act",
        "same_act",
        "redundant",
        "redundant",
    )
    assert round(result.raw_score, 4) == 18.6889 and round(result.score, 4) == 2.3361
    assert result.stv == 7
    assert round(result.final_score or 0, 4) == 2.7722


def test_np_aqm_of_pi0_matches_the_paper() -> None:
    labels = align(PI0, GT).labels
    assert np_aqm(PI0, GT, labels) == (
        "same_act",
        "same_act",
        "correct",
        "same_act",
        "diff_act",
        "same_act",
        "same_act",
        "same_act",
    )


def test_np_aqm_counts_misplaced_as_correct_and_keeps_unrelated_actions_redundant() -> None:
    plan = acts("(b)", "(a)", "(zzz q)")
    reference = acts("(a)", "(b)")
    labels = align(plan, reference).labels
    assert labels == ("misplaced", "misplaced", "redundant")
    assert np_aqm(plan, reference, labels) == ("correct", "correct", "redundant")


def test_a_valid_optimal_plan_scores_four_and_needs_no_step() -> None:
    result = compare(DOMAIN, PROBLEM, GT, GT, valid=True)
    assert result.alignment.labels == ("correct",) * 6
    assert result.stv == 0 and result.final_score == pytest.approx(4.0) and result.distance == 0.0


def test_parameter_score_rules() -> None:
    assert parameter_score(("stack", "c", "a"), ("stack", "a", "c")) == pytest.approx(0.2)
    assert parameter_score(("stack", "c", "a"), ("stack", "c", "b")) == pytest.approx(0.25)
    assert parameter_score(("unstack", "c", "a"), ("pick-up", "a")) == pytest.approx(0.15)
    assert parameter_score(("put-down", "c"), ("pick-up", "a")) == 0.0
    assert parameter_score(("put-down", "c"), ("stack", "a", "b")) == pytest.approx(-0.1)
    assert parameter_score(("noop",), ("stack", "a", "b")) == 0.0


def test_lcs_subsequence_and_substring() -> None:
    a, b, c, d, e = (("x", s) for s in "abcde")
    assert lcs_subsequence([a, b, c, d], [a, c, d, b]) == [a, c, d]
    assert lcs_substring([a, b, c, d], [a, c, d, b]) == [c, d]
    assert lcs_substring([e, a, b], [a, b, e]) == [a, b]
    assert lcs_subsequence([], [a]) == [] and lcs_substring([a], []) == []
    assert lcs_subsequence([a, b], [b, a]) == [b]  # ties take the left cell, as the reference code does


def test_action_distance_over_distinct_ground_actions() -> None:
    a, b, c = ("x", "a"), ("x", "b"), ("x", "c")
    assert action_distance([a, a, b], [a, b]) == 0.0
    assert action_distance([a, b], [b, c]) == pytest.approx(1 - 1 / 3)
    assert action_distance([a], [b]) == 1.0 and action_distance([], []) == 0.0


def test_reference_prefix_is_the_latest_reference_state_reached() -> None:
    states = list(simulate_actions(DOMAIN, PROBLEM, PI1).states())
    reference_states = list(simulate_actions(DOMAIN, PROBLEM, GT).states())
    assert reference_prefix_length(states, reference_states) == 4  # "the 5th state" of the paper
    pi0_states = list(simulate_actions(DOMAIN, PROBLEM, PI0).states())
    assert reference_prefix_length(pi0_states, reference_states) == 0


def test_wordnet_similarity_is_wordnets() -> None:
    assert word_similarity.source() == "wordnet-3.0"
    # stack.v.01 and remove.v.01 meet two levels below the verb root: 2 * 1 / (3 + 4)
    assert word_similarity.name_similarity("stack", "remove", "v2") == pytest.approx(2 / 7)
    # v1 looks names up as written: WordNet has no verb `put-down` or `unstack`
    assert word_similarity.name_similarity("put-down", "stack", "v1") == 0.0
    assert word_similarity.name_similarity("unstack", "stack", "v1") == 0.0
    assert word_similarity.name_similarity("put-down", "pick-up", "v2") > 0.5


def test_without_wordnet_the_fallback_is_used_and_reported(no_wordnet: None) -> None:
    assert word_similarity.source() == "fallback"
    expected = difflib.SequenceMatcher(None, "unstack", "stack").ratio()
    assert word_similarity.name_similarity("unstack", "stack") == pytest.approx(expected)
    result = evaluate(PI0, GT, valid=False, is_valid=IS_VALID)
    assert result.similarity_source == "fallback"
    assert result.to_json()["similarity_source"] == "fallback"
    # differently named actions now score by the names' string similarity (WordNet gave 0 here)
    different = [p for p in result.alignment.pairs if p.label == "diff_act"]
    assert different
    for pair in different:
        mine, theirs = PI0[pair.index], GT[pair.reference_index]
        expected_pair = difflib.SequenceMatcher(
            None, mine[0].replace("-", " "), theirs[0].replace("-", " ")
        ).ratio()
        assert pair.similarity == pytest.approx(expected_pair + parameter_score(mine, theirs))
        assert expected_pair > 0


def test_potential_search_respects_its_budget() -> None:
    result = evaluate(PI0, GT, valid=False, is_valid=IS_VALID, potential_budget=5)
    assert result.potential is not None and result.potential.truncated and result.potential.evaluated == 5


ACTIONS = st.tuples(st.sampled_from(["pick-up", "put-down", "stack", "unstack", "fly"]),
                    st.lists(st.sampled_from(["a", "b", "c"]), max_size=3)).map(lambda t: (t[0], *t[1]))


@settings(max_examples=150, deadline=None)
@given(st.lists(ACTIONS, max_size=7), st.lists(ACTIONS, max_size=6))
def test_metrics_hold_their_invariants_on_any_plans(plan: list[Action], reference: list[Action]) -> None:
    result = evaluate(plan, reference, valid=False, potential_budget=200)
    labels = result.alignment.labels
    assert len(labels) == len(plan) == len(result.np_labels)
    paired = [p for p in result.alignment.pairs]
    assert len(paired) == sum(1 for label in labels if label != "redundant") <= len(reference)
    assert len({p.reference_index for p in paired}) == len(paired)  # one-to-one
    assert all(plan[p.index] == reference[p.reference_index] for p in paired if p.label == "correct")
    assert len(result.substring) <= len(result.subsequence) <= min(len(plan), len(reference))
    assert 0.0 <= result.distance <= 1.0 and 0.0 <= aqm_score(labels) <= 1.0
    assert result.stv >= labels.count("redundant")
    if plan == reference:
        assert result.stv == 0 and set(labels) <= {"correct"}


def test_renaming_costs_one_over_the_number_of_arguments_and_nothing_without_arguments() -> None:
    assert renaming_penalty({"a": "b", "b": "a", "c": "c"}) == pytest.approx(2 / 3)
    assert renaming_penalty({"a": "a"}) == 0.0
    assert renaming_penalty({}) == 0.0


def test_an_action_without_arguments_compared_with_itself_is_correct_and_needs_nothing() -> None:
    """Regression: `(pick-up)` against itself divided by the number of plan arguments (zero)."""
    plan = [("pick-up",)]
    result = evaluate(plan, plan, valid=False, is_valid=lambda actions: list(actions) == plan)
    assert result.alignment.labels == ("correct",) and result.stv == 0
    assert result.potential is not None
    assert result.potential.mapping == {} and result.potential.offset == 0
    assert result.potential.any_valid
    assert result.final_score == pytest.approx((result.score + 2.0) / 2)


@pytest.mark.parametrize(
    ("plan", "reference", "labels", "step_kinds"),
    [
        ([], [], (), []),
        ([], [("pick-up",)], (), ["add"]),
        ([("pick-up",)], [], ("redundant",), ["remove"]),
        ([("pick-up",)], [("pick-up", "a")], ("same_act",), ["repair_parameters"]),
        ([("pick-up", "a")], [("pick-up",)], ("same_act",), ["repair_parameters"]),
        ([("stack",), ("pick-up",)], [("pick-up",), ("stack",)], ("misplaced", "misplaced"),
         ["reorder", "reorder"]),
    ],
)
@pytest.mark.parametrize("valid", [False, True])
def test_edge_plans_are_measured_without_errors(
    plan: list[Action], reference: list[Action], labels: tuple[str, ...], step_kinds: list[str], valid: bool
) -> None:
    result = evaluate(plan, reference, valid=valid, is_valid=lambda actions: list(actions) == reference)
    assert result.alignment.labels == labels
    assert [step.kind for step in result.steps] == step_kinds
    json = result.to_json()
    assert json["stv"] == len(step_kinds) and json["reference_length"] == len(reference)
    if not plan or not reference:
        assert result.final_score is None and json["potential"] is None
    else:
        assert result.final_score is not None


@settings(max_examples=60, deadline=None)
@given(st.lists(ACTIONS, min_size=1, max_size=6))
def test_any_plan_compared_with_itself_is_correct_everywhere(plan: list[Action]) -> None:
    result = evaluate(plan, plan, valid=True, is_valid=lambda actions: list(actions) == plan,
                      potential_budget=200)
    assert result.alignment.labels == ("correct",) * len(plan)
    assert result.stv == 0 and result.distance == 0.0 and len(result.substring) == len(plan)
    assert result.final_score is not None and result.final_score > 0
