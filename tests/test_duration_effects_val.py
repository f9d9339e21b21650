"""Durative actions whose numeric effects read ``?duration`` (``(at start (decrease (fuel ?r) (* ?duration
2)))``, also under ``forall`` and ``when``), differentially against VAL's ``Validate``: they used to make
``simulate`` skip (``valid: null``); now plansight gives VAL's verdict and failing happening on the valid
plan of a domain of our own (tests/fixtures/beyond_classical/nulls/) and its mutations."""

from __future__ import annotations

from pathlib import Path

import pytest
from val_oracle import assert_agree, assert_agree_on_mutations, run_plansight

FIXTURES = Path(__file__).parent / "fixtures" / "beyond_classical" / "nulls"
DOMAIN, PROBLEM = FIXTURES / "rover-domain.pddl", FIXTURES / "rover-problem.pddl"
PLAN = FIXTURES / "rover.plan"


def test_the_valid_plan_is_simulated_with_the_durations_values() -> None:
    result = run_plansight(DOMAIN, PROBLEM, PLAN)
    simulation = result.simulation
    assert simulation is not None and simulation.skipped_reason is None
    assert simulation.valid is True
    assert simulation.metric is not None and simulation.metric.value == pytest.approx(7.0)
    final = list(simulation.states())[-1]
    # 20 - 2*3 (drive) + 2 (bask at b, sunny) - 2*4 (drive) + 1 (bask at c, sunny)
    assert final.value(("fuel", "r1")) == pytest.approx(9.0)
    assert final.value(("light", "c")) == pytest.approx(6.0)  # 2*2 + 2*1 under forall / when


def test_plansight_agrees_with_val_on_the_plan_and_its_mutations(tmp_path: Path) -> None:
    assert_agree_on_mutations(DOMAIN, PROBLEM, PLAN, tmp_path)


@pytest.mark.parametrize(("label", "plan"), [
    # a long first drive burns 2 * 9 fuel: the second drive's `(>= (fuel r1) 6)` fails at its start
    ("long drive", "0.0: (drive r1 a b) [9.0]\n9.01: (bask r1 b) [2.0]\n11.02: (drive r1 b c) [4.0]\n"),
    # short basks add 2 * 1 + 2 * 0.5 light to c: the goal `(>= (light c) 4)` fails
    ("short basks", "0.0: (drive r1 a b) [3.0]\n3.01: (bask r1 b) [1.0]\n4.02: (drive r1 b c) [4.0]\n"
                    "8.03: (bask r1 c) [0.5]\n"),
    # a longer bask at b refuels by its duration: enough for a longer second drive
    ("long bask", "0.0: (drive r1 a b) [3.0]\n3.01: (bask r1 b) [5.0]\n8.02: (drive r1 b c) [6.5]\n"
                  "14.53: (bask r1 c) [1.0]\n"),
])
def test_duration_dependent_outcomes_agree_with_val(label: str, plan: str, tmp_path: Path) -> None:
    path = tmp_path / "plan.txt"
    path.write_text(plan)
    assert_agree(DOMAIN, PROBLEM, path)


@pytest.mark.parametrize(("duration", "valid"), [("3.0", True), ("4.0", False)])
def test_a_condition_may_read_the_duration_too(duration: str, valid: bool, tmp_path: Path) -> None:
    """VAL's parser rejects `?duration` in a condition (its grammar allows it in effects and duration
    constraints only); plansight reads the step's duration there as well, instead of failing the step on a
    value it calls undefined."""
    domain = tmp_path / "domain.pddl"
    domain.write_text(DOMAIN.read_text().replace("(at start (>= (fuel ?r) 6))",
                                                 "(at start (>= (fuel ?r) (* ?duration 6)))"))
    plan = tmp_path / "plan.txt"
    plan.write_text(f"0.000: (drive r1 a b) [{duration}]\n")  # fuel 20: enough for 3 * 6, not 4 * 6
    simulation = run_plansight(domain, PROBLEM, plan).simulation
    assert simulation is not None and simulation.skipped_reason is None
    if valid:
        assert simulation.failure is None
    else:
        assert simulation.failure is not None
        assert "(>= (fuel r1) (* ?duration 6)) is false: (fuel r1) is 20" in simulation.failure.message
