"""Goal F1 has no work limit, only a time budget: the mixed-integer programme answers what the fast
solvers give up on (docs/metrics.md, goal F1).

Oracles: every pair listed in order (the first best pair kept) on small random goals, with ``or``,
``exists``, ``forall``, ``forn``, negations and action sequences, for the programme alone; and on goals
whose choices share many conditions, listing on small sizes and the fast solvers where they finish.
"""

from __future__ import annotations

import random
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from test_ltl_f1_exact import GOALS, SCOPE, listed_f1, small
from test_ltl_f1_hard import Groups, element, formula, generated, listed_best

from plansight.analyses.ltl import f1
from plansight.analyses.ltl.f1 import SimpleGoal, goal_f1, set_f1
from plansight.analyses.ltl.f1_milp import best_pair_milp
from plansight.analyses.ltl.goal_options import goal_options
from plansight.analyses.ltl.report import ltl_report
from plansight.analyses.ltl.scope import LtlScope
from plansight.analyses.model.ltl import LtlFormula
from plansight.analyses.semantics.budget import Cancelled, WorkBudget
from plansight.analyses.syntax.parse_ltl import parse_ltl

PLAIN = LtlScope()


def parsed(text: str) -> LtlFormula:
    result = parse_ltl(text).formula
    assert result is not None
    return result


def programme(reference: Groups, candidate: Groups) -> tuple[SimpleGoal, SimpleGoal]:
    """The programme's pair alone, whatever the fast solvers would do."""
    return best_pair_milp(goal_options(formula(reference), PLAIN), goal_options(formula(candidate), PLAIN))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                  HealthCheck.too_slow])
@given(GOALS.filter(small), GOALS.filter(small))
def test_the_programme_agrees_with_listing_every_pair(candidate: LtlFormula, reference: LtlFormula) -> None:
    ref, cand = best_pair_milp(goal_options(reference, SCOPE), goal_options(candidate, SCOPE))
    f1_value, precision, recall, listed_ref, listed_cand = listed_f1(candidate, reference)
    assert set_f1(cand.elements(), ref.elements()) == (f1_value, precision, recall)
    assert (ref, cand) == (listed_ref, listed_cand)


@pytest.mark.parametrize(("reference", "candidate", "expected", "sequence"), [
    # only the second alternative of each side makes the sequences equal, and that outweighs p(o1)
    ("((act(o1) then p(o1)) or (act(o2) then go)) and q(o1, o2)",
     "((act(o3) then p(o1)) or (act(o2) then go)) and q(o1, o2)", 1.0, ("act o2", "go")),
    # the sequences cannot be equal: the best pair shares the propositions only
    ("(act(o1) or go) then p(o1)", "act(o2) then p(o1)", 0.5, None),
    # forall over objects: one sequence of three actions in object order, against a choice per step
    ("forall x. (act(x))", "(act(o1) or go) then (act(o2) or go) then act(o3)", 1.0,
     ("act o1", "act o2", "act o3")),
])
def test_action_sequences_match_only_when_equal(reference: str, candidate: str, expected: float,
                                                sequence: tuple[str, ...] | None) -> None:
    ref, cand = best_pair_milp(goal_options(parsed(reference), SCOPE), goal_options(parsed(candidate), SCOPE))
    assert set_f1(cand.elements(), ref.elements())[0] == expected
    if sequence is not None:
        assert ("action-sequence", *sequence) in ref.elements() & cand.elements()


def test_hub_heavy_goals_agree_with_listing_every_pair() -> None:
    rng = random.Random(23)
    for keys, options, hubs in [(4, 3, 8)] * 3 + [(5, 3, 8), (6, 2, 8)]:
        reference, candidate = generated(rng, keys, options, hubs)
        ref, cand = programme(reference, candidate)
        assert (set_f1(cand.elements(), ref.elements())[0], ref, cand) == listed_best(reference, candidate)


def test_twenty_keys_with_eight_shared_conditions_are_answered_whatever_the_budget() -> None:
    """The fast solvers took up to 5 s and 3,000,000 units on these, or gave up (goal F1 "not computed")."""
    rng = random.Random(2)
    for _ in range(2):
        reference, candidate = generated(rng, keys=20, options=5, hubs=8)
        meter = WorkBudget(time_limit_s=None, max_units=20_000).meter()  # enough to build the trees only
        result = goal_f1(formula(candidate), formula(reference), PLAIN, PLAIN, meter)
        assert result.f1 == set_f1(result.candidate.elements(), result.reference.elements())[0]
        for _ in range(2000):  # no pair drawn at random beats it
            ref = frozenset(element(a) for g in reference for a in rng.choice(g))
            cand = frozenset(element(a) for g in candidate for a in rng.choice(g))
            assert set_f1(cand, ref)[0] <= result.f1


def test_where_the_fast_solvers_finish_the_programme_gives_the_same_pair(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(9)
    for hubs in (3, 6):
        reference, candidate = generated(rng, keys=20, options=5, hubs=hubs)
        monkeypatch.setattr(f1, "FAST_SECONDS", None)
        monkeypatch.setattr(f1, "FAST_UNITS", 50_000_000)
        fast = goal_f1(formula(candidate), formula(reference), PLAIN, PLAIN)
        assert (fast.reference, fast.candidate) == programme(reference, candidate)


def test_a_newer_edit_still_cancels_the_programme(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(f1, "FAST_UNITS", 0)
    reference, candidate = generated(random.Random(4), keys=20, options=5, hubs=8)
    asked = []

    def cancelled() -> bool:
        asked.append(True)
        return len(asked) > 2  # the fast solvers give up, then the programme is asked between solves

    meter = WorkBudget(time_limit_s=None, max_units=None, cancelled=cancelled).meter()
    with pytest.raises(Cancelled):
        goal_f1(formula(candidate), formula(reference), PLAIN, PLAIN, meter)


def test_the_report_gives_the_f1_where_it_said_not_computed() -> None:
    """``plansight ltl --reference`` and the editor's lens: with the default budget (10 s, 50,000,000 units)
    this pair used to end in "goal F1 not computed: stopped after 10 s"; the units no longer matter."""
    reference, candidate = generated(random.Random(2), keys=20, options=5, hubs=8)
    report = ltl_report(formula(candidate), None, None, reference=formula(reference),
                        budget=WorkBudget(max_units=100_000))
    assert report.f1 is not None and not report.notes
    assert report.f1.f1 == set_f1(report.f1.candidate.elements(), report.f1.reference.elements())[0]
    assert report.f1.f1 > 0.8


def test_the_time_budget_still_bounds_a_hostile_pair() -> None:
    """40 keys of 8 options sharing 16 conditions take the programme about a minute: a run given half a
    second says the F1 was not computed, and why, instead of a pair the solver has not proven best."""
    reference, candidate = generated(random.Random(5), keys=40, options=8, hubs=16)
    report = ltl_report(formula(candidate), None, None, reference=formula(reference),
                        budget=WorkBudget(time_limit_s=0.5))
    assert report.f1 is None
    assert report.notes == ("goal F1 not computed: stopped after 0.5 s while evaluating the goal F1",)


def test_without_scipy_the_report_says_how_to_get_the_exact_f1(monkeypatch: pytest.MonkeyPatch) -> None:
    """The VS Code extension bundles only pure-Python packages: on a pair the fast solvers give up on, a
    Python without scipy gets "not computed" and the command that installs it, not a failed request."""
    monkeypatch.setattr(f1, "FAST_UNITS", 0)
    monkeypatch.setitem(sys.modules, "plansight.analyses.ltl.f1_milp", None)  # the import fails
    reference, candidate = generated(random.Random(2), keys=20, options=5, hubs=8)
    report = ltl_report(formula(candidate), None, None, reference=formula(reference))
    assert report.f1 is None
    (note,) = report.notes
    assert note.startswith("goal F1 not computed: stopped after 0.25 s of searching: ")
    assert "`python -m pip install scipy`" in note
