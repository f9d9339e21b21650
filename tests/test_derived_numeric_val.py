"""Derived predicates whose rules compare numbers (``(:derived (low ?t) (< (fuel ?t) 3))``), differentially
against VAL's ``Validate``: they used to make ``simulate`` skip (``valid: null``); now the closure reads
the state's values (and is cached per atoms *and* values), so plansight gives VAL's verdict and failing
step on a domain of our own (tests/fixtures/beyond_classical/nulls/tanker-*) and its plan's mutations."""

from __future__ import annotations

from pathlib import Path

import pytest
from val_oracle import assert_agree, assert_agree_on_mutations, run_plansight

FIXTURES = Path(__file__).parent / "fixtures" / "beyond_classical" / "nulls"
DOMAIN, PROBLEM = FIXTURES / "tanker-domain.pddl", FIXTURES / "tanker-problem.pddl"
PLAN = FIXTURES / "tanker.plan"


def test_the_valid_plan_is_simulated_and_its_derived_atoms_follow_the_values() -> None:
    simulation = run_plansight(DOMAIN, PROBLEM, PLAN).simulation
    assert simulation is not None and simulation.skipped_reason is None
    assert simulation.valid is True
    assert simulation.metric is not None and simulation.metric.value == pytest.approx(4.0)
    # fuel 5 -> 4 -> 8 -> 12 (full) -> 9 -> 4 -> 2 (low) -> 6: `full` and `low` come and go with it
    derived = [simulation.derived_before(i) for i in range(len(simulation.trace) + 1)]
    assert [("full", "t1") in atoms for atoms in derived] == [False, False, False, True, True, False, False,
                                                                False]
    assert [("low", "t1") in atoms for atoms in derived] == [False] * 6 + [True, False]


def test_plansight_agrees_with_val_on_the_plan_and_its_mutations(tmp_path: Path) -> None:
    assert_agree_on_mutations(DOMAIN, PROBLEM, PLAN, tmp_path)


@pytest.mark.parametrize(("label", "plan", "failing"), [
    # a third refuel: `(not (full t1))` is false at 12 >= 9
    ("refuel when full", "(drive t1 a b)\n(refuel t1 b)\n(refuel t1 b)\n(refuel t1 b)\n", 3),
    # `tow` needs `(stranded t1)`, which needs `(low t1)`: fuel 4 is not low
    ("tow a truck that can drive", "(drive t1 a b)\n(tow t1 b c)\n", 1),
    # fuel 1 at c, below every road out of it: stranded, so the tow is allowed; then low blocks a drive
    ("tow a stranded truck", "(drive t1 a b)\n(drive t1 b c)\n(tow t1 c b)\n(drive t1 b c)\n", 3),
    # without the last refuel the goal's `(not (low t1))` fails at fuel 2
    ("end low", "(drive t1 a b)\n(refuel t1 b)\n(refuel t1 b)\n(drive t1 b c)\n(drive t1 c d)\n"
                "(drive t1 d b)\n", None),
])
def test_derived_numeric_conditions_fail_where_val_fails(label: str, plan: str, failing: int | None,
                                                         tmp_path: Path) -> None:
    path = tmp_path / "plan.txt"
    path.write_text(plan)
    comparison = assert_agree(DOMAIN, PROBLEM, path)
    simulation = comparison.plansight.simulation
    assert simulation is not None and simulation.valid is False
    assert (simulation.failure.index if simulation.failure else None) == failing


def test_a_rule_reading_an_undefined_value_fails_the_first_step_as_val_does(tmp_path: Path) -> None:
    (tmp_path / "d.pddl").write_text(
        "(define (domain d) (:requirements :adl :numeric-fluents :derived-predicates)\n"
        " (:predicates (q) (r)) (:functions (f))\n (:derived (q) (> (f) 1))\n"
        " (:action go :parameters () :precondition (not (q)) :effect (r))\n"
        " (:action fill :parameters () :precondition (r) :effect (and (assign (f) 5))))\n")
    (tmp_path / "p.pddl").write_text("(define (problem x) (:domain d) (:init) (:goal (and (r) (q))))\n")
    (tmp_path / "plan.txt").write_text("(go)\n(fill)\n")
    comparison = assert_agree(tmp_path / "d.pddl", tmp_path / "p.pddl", tmp_path / "plan.txt")
    simulation = comparison.plansight.simulation
    assert simulation is not None and simulation.failure is not None
    assert simulation.failure.index == 0 and simulation.failure.category == "undefined_value"
