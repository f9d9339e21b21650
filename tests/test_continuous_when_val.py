"""Continuous effects under ``when`` with an ``at start`` condition (``(when (at start (boost)) (increase
(temp) (* #t 2)))``), differentially against VAL's ``Validate``: they used to make ``simulate`` skip
(``valid: null``); now the condition is read once, in the state before the action starts, and the rate
holds to its end, as VAL does (tests/fixtures/beyond_classical/nulls/boost-* and its plan's mutations)."""

from __future__ import annotations

from pathlib import Path

import pytest
from val_oracle import assert_agree, assert_agree_on_mutations, run_plansight

FIXTURES = Path(__file__).parent / "fixtures" / "beyond_classical" / "nulls"
DOMAIN, PROBLEM = FIXTURES / "boost-domain.pddl", FIXTURES / "boost-problem.pddl"
PLAN = FIXTURES / "boost.plan"


@pytest.mark.parametrize(("plan", "temp"), [
    (PLAN.read_text(), 9.0),  # boost holds as heat starts: rate 1 + 2 for 3
    ("0.000: (heat) [3.000]\n0.500: (charge) [1.000]\n", 3.0),  # boost comes after the start: rate 1
])
def test_the_condition_is_read_as_the_action_starts(plan: str, temp: float, tmp_path: Path) -> None:
    path = tmp_path / "plan.txt"
    path.write_text(plan)
    simulation = run_plansight(DOMAIN, PROBLEM, path).simulation
    assert simulation is not None and simulation.skipped_reason is None
    assert simulation.stop_state.value(("temp",)) == pytest.approx(temp)


def test_plansight_agrees_with_val_on_the_plan_and_its_mutations(tmp_path: Path) -> None:
    assert_agree_on_mutations(DOMAIN, PROBLEM, PLAN, tmp_path)


@pytest.mark.parametrize(("label", "plan"), [
    ("charged too late", "0.000: (heat) [3.000]\n0.500: (charge) [1.000]\n"),
    # boosted heat for 5 passes 12 while `watch` runs: its `over all` breaks
    ("too hot while watched", "0.000: (charge) [1.000]\n0.500: (watch) [8.000]\n1.010: (heat) [5.000]\n"),
    ("hot after the watch", "0.000: (charge) [1.000]\n0.500: (watch) [2.000]\n1.010: (heat) [5.000]\n"),
])
def test_conditional_rates_agree_with_val(label: str, plan: str, tmp_path: Path) -> None:
    path = tmp_path / "plan.txt"
    path.write_text(plan)
    assert_agree(DOMAIN, PROBLEM, path)


def test_a_condition_read_later_still_names_its_reason() -> None:
    from plansight.analyses.model.pddl import Domain, Problem
    from plansight.analyses.semantics.world import World
    from plansight.analyses.syntax.parse_pddl import parse_pddl

    text = DOMAIN.read_text().replace("(when (at start (boost))", "(when (at end (boost))")
    domain, problem = parse_pddl(text).model, parse_pddl(PROBLEM.read_text()).model
    assert isinstance(domain, Domain) and isinstance(problem, Problem)
    assert any("continuous effects under `when` read after the start" in reason
               for reason in World.build(domain, problem).unsupported)
