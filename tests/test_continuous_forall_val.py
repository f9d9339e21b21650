"""Continuous effects under ``forall`` (``(forall (?t - tank) (increase (level ?t) (* #t (flow ?t ?l))))``),
differentially against VAL's ``Validate``: they used to make ``simulate`` skip (``valid: null``); now each
instance of the variables changes its own fluent at its own rate while the action runs, and plansight
gives VAL's verdict and failing happening on tests/fixtures/beyond_classical/nulls/pumps-* and the
mutations of its plan."""

from __future__ import annotations

from pathlib import Path

import pytest
from val_oracle import assert_agree, assert_agree_on_mutations, run_plansight

FIXTURES = Path(__file__).parent / "fixtures" / "beyond_classical" / "nulls"
DOMAIN, PROBLEM = FIXTURES / "pumps-domain.pddl", FIXTURES / "pumps-problem.pddl"
PLAN = FIXTURES / "pumps.plan"
PUMPS = "0.000: (pump l1) [4.000]\n1.000: (pump l2) [2.000]\n"


def test_every_instance_flows_at_its_own_rate() -> None:
    simulation = run_plansight(DOMAIN, PROBLEM, PLAN).simulation
    assert simulation is not None and simulation.skipped_reason is None and simulation.valid is True
    final = simulation.stop_state
    # t1: 2 * 4; t2: 1 + 0.5 * 4 + 1 * 2 - 1 * 1 (drained); t3: 3 * 2 (as VAL's trace shows)
    assert final.value(("level", "t1")) == pytest.approx(8.0)
    assert final.value(("level", "t2")) == pytest.approx(4.0)
    assert final.value(("level", "t3")) == pytest.approx(6.0)


def test_plansight_agrees_with_val_on_the_plan_and_its_mutations(tmp_path: Path) -> None:
    assert_agree_on_mutations(DOMAIN, PROBLEM, PLAN, tmp_path)


@pytest.mark.parametrize(("label", "plan"), [
    # t3 is empty: draining it breaks its `over all (>= (level t3) 0)` inside the interval
    ("drain an empty tank", PUMPS + "0.500: (drain t3) [1.000]\n"),
    # pumping l1 for 5 fills t1 to 10, above the goal's 9
    ("overfill t1", "0.000: (pump l1) [5.000]\n1.000: (pump l2) [2.000]\n5.500: (drain t2) [1.000]\n"),
    # draining t2 while both lines fill it: the flows add up (0.5 + 1 - 1), still valid
    ("drain while filling", PUMPS + "1.500: (drain t2) [1.000]\n"),
    # draining t3 as l2 starts: its level rises at 3 - 1, never below 0
    ("drain as it fills", "0.000: (pump l1) [4.000]\n1.000: (pump l2) [3.000]\n1.010: (drain t3) [1.000]\n"),
])
def test_forall_flows_agree_with_val(label: str, plan: str, tmp_path: Path) -> None:
    path = tmp_path / "plan.txt"
    path.write_text(plan)
    assert_agree(DOMAIN, PROBLEM, path)
