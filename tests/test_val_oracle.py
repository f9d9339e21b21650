"""The VAL differential harness (tests/val_oracle.py) and the plan mutations (tests/plan_mutations.py).

The harness must read each of VAL's answers right (the verdict, the failing happening, the reason), or
every differential test built on it is wrong; so each format is checked on a plan VAL really judges. On
classical plans, where plansight simulates today, it must find plansight and VAL agreeing on every
mutation, except where VAL itself is wrong (it crashes on a wrong number of arguments, and drops an extra
argument that names an object).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from corpus import EXAMPLES, FIXTURES
from plan_mutations import mutations, read_steps, render
from val_oracle import (
    BAD_PLAN,
    CONSTRAINT,
    CRASH,
    DURATION,
    GOAL,
    INVALID,
    INVARIANT,
    MUTEX,
    PRECONDITION,
    UNDEFINED,
    UNKNOWN_OBJECT,
    VALID,
    ValResult,
    compare,
    compare_with_mutations,
    happening_steps,
    run_plansight,
    run_val,
)

PLANNED = FIXTURES / "beyond_classical" / "planned"
NUMERIC, TEMPORAL = PLANNED / "numeric", PLANNED / "temporal"
LIGHTS = FIXTURES / "constructs" / "temporal"

NUMERIC_PLAN = ("(drive t1 a b)\n(deliver t1 b)\n(drive t1 b c)\n(refuel t1 c)\n(drive t1 c d)\n"
                "(deliver t1 d)\n")
TEMPORAL_PLAN = ("0.000: (light) [1.000]\n0.000: (fill p1) [2.000]\n0.000: (fill p2) [2.000]\n"
                 "2.010: (heat p1) [3.000]\n2.010: (heat p2) [3.000]\n")


def _val(folder: Path, plan: str, tmp_path: Path, problem: str = "p01.pddl") -> ValResult:
    path = tmp_path / "plan.plan"
    path.write_text(plan)
    return run_val(folder / "domain.pddl", folder / problem, path)


def test_a_valid_plan_and_its_metric_value(tmp_path: Path) -> None:
    numeric = _val(NUMERIC, NUMERIC_PLAN, tmp_path)
    assert (numeric.status, numeric.value, numeric.verdict) == (VALID, 24.0, True)
    assert [a for _, a in numeric.read_plan] == [f"({line.strip('()')})" for line in NUMERIC_PLAN.split("\n")
                                                 if line]
    temporal = _val(TEMPORAL, TEMPORAL_PLAN, tmp_path)
    assert (temporal.status, temporal.value) == (VALID, 5.01)
    assert temporal.read_plan[3] == (2.01, "(heat p1)")


def test_a_failed_numeric_precondition_names_its_step(tmp_path: Path) -> None:
    # 10 fuel - 6 - 4 leaves 0 for a 9-long road
    result = _val(NUMERIC, "(drive t1 a b)\n(drive t1 b c)\n(drive t1 c d)\n", tmp_path)
    assert (result.status, result.kind, result.time, result.action, result.part) == (
        INVALID, PRECONDITION, 3.0, "(drive t1 c d)", None)
    assert any("(fuel t1)[=0]" in line for line in result.advice)


def test_a_missed_goal_names_the_atoms(tmp_path: Path) -> None:
    result = _val(NUMERIC, "(drive t1 a b)\n", tmp_path)
    assert (result.status, result.kind, result.time) == (INVALID, GOAL, None)
    assert set(result.goal_atoms) == {"(delivered d)", "(delivered b)"}


def test_an_undefined_fluent_fails_the_step_that_reads_it(tmp_path: Path) -> None:
    problem = (NUMERIC / "p01.pddl").read_text().replace("(= (distance b c) 4)", "")
    (tmp_path / "p.pddl").write_text(problem)
    plan = tmp_path / "u.plan"
    plan.write_text("(drive t1 a b)\n(drive t1 b c)\n")
    result = run_val(NUMERIC / "domain.pddl", tmp_path / "p.pddl", plan)
    assert (result.status, result.kind, result.time, result.action) == (INVALID, UNDEFINED, 2.0,
                                                                         "(distance b c)")


@pytest.mark.parametrize(("plan", "kind"), [
    ("(drive t1 a b)\n(fly t1 b c)\n", BAD_PLAN),  # an unknown action
    ("(drive a b c)\n", BAD_PLAN),  # a truck argument that is a city
    ("(drive t1 a zz)\n", UNKNOWN_OBJECT),
])
def test_plans_val_rejects_before_running_them(plan: str, kind: str, tmp_path: Path) -> None:
    result = _val(NUMERIC, plan, tmp_path)
    assert (result.status, result.kind, result.verdict) == (INVALID, kind, False)


def test_a_wrong_number_of_arguments_crashes_val(tmp_path: Path) -> None:
    result = _val(NUMERIC, "(drive t1 a)\n", tmp_path)
    assert result.status == CRASH and result.verdict is None


def test_a_broken_over_all_names_the_action_and_since_when(tmp_path: Path) -> None:
    # the stove goes off at 4 while both pots heat until 5.01
    result = _val(TEMPORAL, TEMPORAL_PLAN + "3.000: (off) [1.000]\n", tmp_path)
    assert (result.kind, result.time, result.action, result.part, result.since) == (
        INVARIANT, 5.01, "(heat p1)", "invariant", 4.0)
    steps = run_plansight(TEMPORAL / "domain.pddl", TEMPORAL / "p01.pddl", tmp_path / "plan.plan").steps
    assert happening_steps(result, steps, 0.01) == {3}


def test_a_timed_initial_literal_ends_an_over_all(tmp_path: Path) -> None:
    # daylight ends at 10 while p2 is being filled from 9 to 11
    plan = TEMPORAL_PLAN.replace("0.000: (fill p2)", "9.000: (fill p2)").replace("2.010: (heat p2)",
                                                                                "11.010: (heat p2)")
    result = _val(TEMPORAL, plan, tmp_path)
    assert (result.kind, result.time, result.action, result.since) == (INVARIANT, 11.0, "(fill p2)", 10.0)


def test_a_duration_out_of_bounds_fails_the_start(tmp_path: Path) -> None:
    result = _val(TEMPORAL, TEMPORAL_PLAN.replace("(heat p2) [3.000]", "(heat p2) [2.000]"), tmp_path)
    assert (result.kind, result.time, result.action, result.part) == (DURATION, 2.01, "(heat p2)", "start")


def test_interfering_starts_are_a_mutex_violation(tmp_path: Path) -> None:
    result = _val(LIGHTS, "0.000: (toggle s1) [2.000]\n0.000: (toggle s1) [2.000]\n", tmp_path)
    assert (result.kind, result.time, result.action, result.part) == (MUTEX, 0.0, "(toggle s1)", "start")


@pytest.mark.parametrize(("start", "tolerance", "merged"), [
    ("2.001", None, True), ("2.002", None, False), ("2.009", None, False),
    ("2.001", 0.001, False), ("2.010", 0.1, True),
])
def test_happenings_within_a_tenth_of_the_tolerance_are_one(start: str, tolerance: float | None, merged: bool,
                                                             tmp_path: Path) -> None:
    """VAL's rule as it behaves (docs/beyond-classical-oracle.md): a start at most tolerance/10 after an end
    is in the same happening, so `heat` does not see `filled` yet and fails; further apart (even within the
    tolerance, which PDDL 2.1's ε-separation would call a mutex) it is a happening of its own."""
    path = tmp_path / "plan.plan"
    path.write_text(TEMPORAL_PLAN.replace("2.010", start))
    result = run_val(TEMPORAL / "domain.pddl", TEMPORAL / "p01.pddl", path, tolerance)
    if merged:
        assert (result.kind, result.action, result.part) == (PRECONDITION, "(heat p1)", "start")
        assert result.time == 2.0
    else:
        assert result.status == VALID, result.output


TOUR = FIXTURES / "beyond_classical" / "oracle" / "pddl3"
ROUND_TRIP = "(go base a)\n(go a b)\n(go b c)\n"


def test_a_violated_preference_is_counted(tmp_path: Path) -> None:
    result = _val(TOUR, ROUND_TRIP, tmp_path)
    assert (result.status, result.value, result.violations) == (VALID, 6.0, (("p1", 1),))


@pytest.mark.parametrize(("problem", "plan", "time", "words"), [
    ("p01.pddl", "(shoot base)\n" + ROUND_TRIP, 1.0, "Failure to satisfy: (NOT (photo base))"),
    ("p01.pddl", "(go base a)\n(go a b)\n(shoot b)\n(go b c)\n", 3.0,
     "(photo b) satisfied without (photo a) sometime before"),
    ("p02.pddl", ROUND_TRIP + "(go c base)\n(go base a)\n(go a b)\n(go b c)\n(shoot c)\n", 5.0,
     "Constraint violated by satisfaction of (at a) at 5"),  # at-most-once
    ("p02.pddl", ROUND_TRIP, None, "(photo c)"),  # sometime, never by the end
    ("p03.pddl", ROUND_TRIP + "(shoot c)\n", 2.0, "Failed to meet deadline on (visited b) (1)"),  # within
])
def test_a_broken_trajectory_constraint_names_when(problem: str, plan: str, time: float | None, words: str,
                                                  tmp_path: Path) -> None:
    result = _val(TOUR, plan, tmp_path, problem)
    assert (result.status, result.kind, result.time, result.action) == (INVALID, CONSTRAINT, time, words)


def test_a_simulator_that_judges_constraints_over_the_trajectory(tmp_path: Path) -> None:
    """A simulator that runs every step and lists the broken constraints (``broken_constraints``, each with
    the state where its violation became certain) agrees with VAL when that state is VAL's."""
    from val_oracle import _constraint_differences

    val = _val(TOUR, "(shoot base)\n" + ROUND_TRIP, tmp_path)
    assert val.kind == CONSTRAINT and val.time == 1.0
    at = SimpleNamespace
    assert _constraint_differences(val, [at(text="(always (not (photo base)))", state=1, at_end=False)]) == []
    assert _constraint_differences(val, [at(text="(always (not (photo base)))", state=2, at_end=False)])
    assert _constraint_differences(val, [at(text="(always (not (photo base)))", state=None, at_end=True)])
    assert _constraint_differences(val, [])
    never = _val(TOUR, ROUND_TRIP, tmp_path, "p02.pddl")
    assert never.time is None
    assert _constraint_differences(never, [at(text="(sometime (photo c))", state=3, at_end=True)]) == []


# --------------------------------------------------------------------------------------------------
# mutations


def test_at_least_ten_mutations_of_a_classical_plan() -> None:
    plan = (EXAMPLES / "blocksworld" / "p01.plan").read_text()
    made = mutations(plan, ["a", "b", "c"])
    assert len(made) >= 10
    assert len({m.text for m in made}) == len(made)
    assert plan not in {m.text for m in made}
    assert all(read_steps(m.text) for m in made)


def test_temporal_mutations_move_happenings() -> None:
    made = mutations(TEMPORAL_PLAN, ["p1", "p2"], til_times=[10.0], epsilon=0.01, seed=3)
    kinds = {m.name.rsplit("-", 1)[0].rstrip("-0123456789") for m in made}
    assert {"shift-later", "shrink-duration", "past-deadline", "within-epsilon", "exchange-times"} <= kinds
    assert len(made) >= 15
    past = next(m for m in made if m.name.startswith("past-deadline"))
    assert any(s.time == 10.5 for s in read_steps(past.text))
    close = next(m for m in made if m.name.startswith("within-epsilon"))
    steps = read_steps(close.text)
    ends = [(s.time or 0.0) + (s.duration or 0.0) for s in steps]
    assert any(abs((s.time or 0.0) - end - 0.005) < 1e-9 for s in steps for end in ends)


def test_vals_answers_to_temporal_mutations(tmp_path: Path) -> None:
    """Not vacuous: most mutations of a valid temporal plan are invalid for VAL, and the harness reads a
    verdict for each (or a crash)."""
    made = mutations(TEMPORAL_PLAN, ["p1", "p2"], til_times=[10.0])
    statuses = [_val(TEMPORAL, m.text, tmp_path).status for m in made]
    assert set(statuses) <= {VALID, INVALID, CRASH}
    assert statuses.count(INVALID) >= len(made) * 2 // 3


# --------------------------------------------------------------------------------------------------
# differential: classical plans, where plansight simulates today

CLASSICAL = ("blocksworld", "gripper", "adl", "logistics", "elevator-costs")


def _classical_plans() -> list[Path]:
    return [plan for folder in CLASSICAL for plan in sorted((EXAMPLES / folder).glob("p*.plan"))]


@pytest.mark.parametrize("plan", _classical_plans(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_plansight_agrees_with_val_on_every_mutation(plan: Path, tmp_path: Path) -> None:
    domain, problem = plan.parent / "domain.pddl", plan.with_suffix(".pddl")
    comparisons = compare_with_mutations(domain, problem, plan, tmp_path)
    assert comparisons[0][0] == "original" and comparisons[0][1].agree
    assert len(comparisons) >= 11
    for name, comparison in comparisons:
        assert comparison.agree or comparison.val_at_fault, f"{name}: {comparison}"
    assert INVALID in {comparison.val.status for _, comparison in comparisons}


def test_vals_known_slips_are_told_apart(tmp_path: Path) -> None:
    """VAL drops an extra argument that names an object, so it calls this plan valid: a difference, but
    VAL's; and it crashes on a missing argument."""
    folder = EXAMPLES / "blocksworld"
    steps = (folder / "p01.plan").read_text().splitlines()
    extra = tmp_path / "extra.plan"
    extra.write_text("\n".join(s.replace("(stack a b)", "(stack a b a)") for s in steps) + "\n")
    comparison = compare(folder / "domain.pddl", folder / "p01.pddl", extra)
    assert comparison.val.status == VALID and comparison.plansight.verdict is False
    assert comparison.val_at_fault and "(stack a b a) read as (stack a b)" in comparison.val_slips[0]
    missing = tmp_path / "missing.plan"
    missing.write_text("\n".join(s.replace("(stack a b)", "(stack a)") for s in steps) + "\n")
    crash = compare(folder / "domain.pddl", folder / "p01.pddl", missing)
    assert crash.val.status == CRASH and crash.val_at_fault


@pytest.mark.parametrize(("wrap", "status"), [
    (lambda steps: "\n".join(["**" + steps[0] + "**", *steps[1:]]) + "\n", INVALID),  # read as empty
    (lambda steps: "```\n" + "\n".join(steps) + "\n```\n", VALID),  # the fence is skipped
])
def test_val_skips_lines_that_are_not_actions(wrap: Callable[[list[str]], str], status: str,
                                              tmp_path: Path) -> None:
    folder = EXAMPLES / "blocksworld"
    steps = [step.text() for step in read_steps((folder / "p01.plan").read_text())]
    plan = tmp_path / "wrapped.plan"
    plan.write_text(wrap(steps))
    comparison = compare(folder / "domain.pddl", folder / "p01.pddl", plan)
    assert comparison.val.status == status
    assert comparison.plansight.failing_step == 0  # plansight: the first line is not an action
    assert not comparison.agree and comparison.val_at_fault
    assert comparison.val_slips == ("VAL skipped plan lines that are not actions",)


def test_goal_differences_name_the_atoms(tmp_path: Path) -> None:
    folder = EXAMPLES / "blocksworld"
    cut = tmp_path / "cut.plan"
    cut.write_text(render(read_steps((folder / "p01.plan").read_text())[:-1]))
    comparison = compare(folder / "domain.pddl", folder / "p01.pddl", cut)
    assert comparison.agree and comparison.val.kind == GOAL and comparison.val.goal_atoms
